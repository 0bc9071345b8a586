"""The GPU time a fine-tune asks ZeroGPU for, from measured speeds with a stated margin, and what share of a
visitor's daily ZeroGPU time that is, said before the run starts.

On ZeroGPU every second a run holds the GPU is the visitor's quota (about 2-3 GPU minutes a day without a Hugging Face
account), and shorter requested durations queue first, so the request should be close to what the run takes, never
short of it: a run past its duration is cut off.

The request: ``MARGIN x (start-up + training + dev evaluations + the 7-task evaluation)``, where

* training is :meth:`.budget.RunPlan.estimate` on a GPU: FLOPs at 10 TFLOP/s plus 35 ms a step, fitted to
  the training speeds of an H100 shared by 6-10 jobs; on one H100 to itself all-MiniLM-L6-v2 trained at 508.6 and
  516.0 pairs/s in fp32 at batch 16, length 256 (``docs/runs/h100-2026-11-27``): 31.5 ms a step, where the
  estimate says 41 ms;
* evaluation runs at the measured speed of all-MiniLM-L6-v2's 7-task evaluation on one H200
  (:data:`.run_cost.GPU_SENTENCE_SECONDS`: 26,289 distinct sentences in 2.39 s), slower in proportion to the
  encoder's FLOPs per token beside MiniLM's: the dev evaluations' sentences, and the 7 tasks' (twice when the base
  model's scores are not cached);
* start-up (:data:`START_SECONDS`): the model onto the GPU and the precision probe (4 precisions x 7 steps);
* :data:`MARGIN` 1.5: ZeroGPU's GPU (an H200 slice) is not the GPUs measured, and a worker's start is not counted
  above.
"""

from __future__ import annotations

import os
from dataclasses import replace

from ..config import TrainConfig
from ..stages import plan_stages
from .budget import Encoder, Machine, RunPlan
from .run_cost import FINAL_EVAL_SENTENCES, GPU_SENTENCE_SECONDS

MARGIN = 1.5
START_SECONDS = 20.0
MINILM = Encoder(hidden=384, layers=6, heads=12, intermediate=1536, vocab=30522, positions=512)
MEAN_TEST_TOKENS = 14.3  # mean tokens of the 26,289 distinct SentEval test sentences (MiniLM's tokenizer)
MAX_SECONDS = 1500  # the longest this app asks ZeroGPU for
VISITOR_DAILY_SECONDS = (
    120,
    180,
)  # ZeroGPU's daily GPU time of a visitor without an account: about 2-3 minutes
GPU = Machine(memory=80e9, cores=1, gpu=True)


def requested_seconds(
    config: TrainConfig, final_eval: bool, base_cached: bool = False, plan: RunPlan | None = None
) -> int:
    """Whole seconds to ask ZeroGPU for ``config``'s run (with the 7-task evaluation when ``final_eval``; the base
    model's too unless ``base_cached``), at most :data:`MAX_SECONDS`. ``plan``: the run's plan where the caller has
    it (else it is read: the encoder's config and the data's lengths)."""
    plan = replace(plan or RunPlan.of(config), where=GPU)
    scale = max(1.0, plan.encoder.forward_flops(MEAN_TEST_TOKENS) / MINILM.forward_flops(MEAN_TEST_TOKENS))
    sentence_seconds = scale * GPU_SENTENCE_SECONDS
    dev_sentences = 2 * min(config.max_dev_pairs or plan.dev.pairs, plan.dev.pairs)
    evaluations = 0
    for index, stage in enumerate(
        plan_stages(config)
    ):  # as the loop evaluates: every eval_every, each end, step 0
        data = plan.data[stage.data]
        steps = stage.total_steps(min(config.max_pairs or data.pairs, data.pairs), config.batch_size)
        evaluations += steps // config.eval_every + (steps % config.eval_every > 0) + (index == 0)
    seconds = (
        START_SECONDS + plan.estimate(config).train_seconds + evaluations * dev_sentences * sentence_seconds
    )
    if final_eval:
        seconds += FINAL_EVAL_SENTENCES * sentence_seconds * (1 if base_cached else 2)
    return int(min(MAX_SECONDS, round(MARGIN * seconds)))


def on_zero_gpu() -> bool:
    """Whether this app runs on a ZeroGPU Space (Hugging Face sets ``SPACES_ZERO_GPU``)."""
    return bool(os.environ.get("SPACES_ZERO_GPU"))


def quota_note(seconds: int) -> str:
    """What ``seconds`` of ZeroGPU time is of a visitor's day, in words."""
    low, high = VISITOR_DAILY_SECONDS
    share = f"{100 * seconds / high:.0f}-{100 * seconds / low:.0f} %"
    if seconds > high:
        share = "more than all"
    return (
        f"This run asks ZeroGPU for up to {seconds} s of GPU time ({MARGIN:g} x the time measured speeds give): "
        f"{share} of the {low // 60}-{high // 60} GPU minutes a day a visitor without a Hugging Face account "
        "has (an account has more). Fewer steps or no 7-task evaluation ask for less."
    )
