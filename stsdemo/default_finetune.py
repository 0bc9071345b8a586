"""The default fine-tune, declared once: the run a visitor's Fine-tune form starts at
(:mod:`stsdemo.app.finetune.form` draws its fields' defaults from here) and the run ``bench.perf.app_default`` times, so
what the benchmark reports is what a visitor gets.

A warm start from the shipped scorer (the embedded encoder when none is shipped), Smooth K2 on a·cos + b with the
paper's k for BERT, on STS-B train. Short on a CPU (:data:`CPU_RUN`: about a minute on 2 cores, 500 dev pairs);
on a GPU (:data:`GPU_RUN`) the paper's one epoch and max length (the declared defaults) with the 7-task
evaluation. The paper's recipe is one preset away (:data:`stsdemo.config.PRESETS`).
"""

from __future__ import annotations

import torch

from . import environment, save_format
from .config import TrainConfig
from .losses.spec import paper_k
from .preflight import preflight
from .serving import gpu_time

DEFAULT_STEPS = 60  # the CPU default run: about a minute of training on 2 cores
DATA = "stsb"  # STS-B train, on the STS line
SCHEME = "sts"

START = dict(target="cosine", loss="sk2", k=paper_k("sk2", "bert"))
# None: the setting is left empty (every step of the epochs, every pair); final_eval: the 7-task evaluation after
# the run, which is no TrainConfig setting but the run's workflow (stsdemo.workflow.train_and_evaluate)
GPU_RUN = dict(
    max_steps=None, eval_every=250, log_every=10, max_pairs=None, max_dev_pairs=None, final_eval=True
)
CPU_RUN = dict(
    max_steps=DEFAULT_STEPS,
    eval_every=20,
    log_every=5,
    max_length=128,
    max_pairs=None,
    max_dev_pairs=500,
    final_eval=False,
)


def on_gpu() -> bool:
    """Whether runs here train on a GPU (a ZeroGPU Space lends one to each run)."""
    return torch.cuda.is_available() or gpu_time.on_zero_gpu()


def default_settings() -> dict:
    """The default run's settings on this machine (TrainConfig's names, plus ``final_eval``), read when asked
    (not when this module is imported): whether a GPU is here decides the run's length."""
    return {**START, **(GPU_RUN if on_gpu() else CPU_RUN)}


def start_model() -> str:
    """Where the default run starts: the shipped scorer's folder, or "" (the embedded encoder with a fresh head)
    where none is shipped."""
    scorer = environment.default_scorer_dir()
    return str(scorer) if save_format.is_scorer(scorer) else ""


def run_config(settings: dict, **run) -> TrainConfig:
    """A TrainConfig (not checked) of ``settings`` and the run's own fields ``run`` (model, data, run name,
    output folder...): stage 1 of a two-stage run takes the run's step cap."""
    return TrainConfig(**settings, stage1_max_steps=settings.get("max_steps"), **run)


def default_config(run_name: str, output_dir: str) -> TrainConfig:
    """The default run, checked (:func:`stsdemo.preflight.preflight`), its best checkpoint written to
    ``output_dir``; whether to run the 7-task evaluation after it is ``default_settings()["final_eval"]``."""
    settings = {name: value for name, value in default_settings().items() if name != "final_eval"}
    return preflight(
        run_config(
            settings, model=start_model(), data=DATA, scheme=SCHEME, run_name=run_name, output_dir=output_dir
        )
    )
