"""What one fine-tune costs on this machine, estimated before it starts: its peak memory, its training and
dev-evaluation time, and the final 7-task evaluation's time, from its settings, its encoder's ``config.json``
(:class:`Encoder`) and the sentence lengths of its data (:class:`DataProfile`). The estimates are upper bounds on
shape; each constant below says where its number comes from, and ``python -m bench.perf.cost_fit`` measures them
against real runs (docs/results.json, ``cost_fit``). :mod:`.budget` holds a run (or a Compare's whole job)
against the caps with them.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import environment
from ..config import TrainConfig
from ..data import PairSet, load_dev_data
from ..model_source import hub_config, is_hub_id, start_encoder_config

# ---- constants, and where they come from --------------------------------------------------------------------
# Activation memory kept for the backward pass, per token and encoder layer (fp32, CPU): ACTIVATION_BYTES per
# hidden unit plus ATTENTION_BYTES per head and key position (the attention scores grow with the length). Fitted
# (least squares, rounded up) to the peak-RSS growth of one forward + backward + AdamW step of all-MiniLM-L6-v2
# at batch/length 8/64, 8/128, 16/128, 8/256 and 32/64, every token real (measured 270, 696, 1464, 1794 and
# 1188 MiB; the fit gives 112.5 and 11.1; these constants predict 306, 720, 1440, 1872 and 1224 MiB). The shape
# is Korthikanti et al. 2022's (s·b·h·(34 + 5·a·s/h) bytes in 16-bit); under bf16 autocast on a GPU it is lower,
# so the estimate stays an upper bound there. Long pairs (issue 40): a run at batch 9, max length 512 on 300 pairs of
# about 550 tokens grew the process by 7.5 GiB (peak RSS 8.67 GB) where ATTENTION_BYTES = 12 estimated 6.35 GiB:
# eager fp32 attention keeps per head and key position its scores, softmax, dropout mask and dropped
# probabilities (13 bytes) and the backward pass briefly holds their gradients beside them, so 20 bytes bounds it
# (estimated 8.88 GiB, over the growth and the peak; a larger constant only raises the short runs' estimates, which
# stay over their measures). tests/test_one_budget.py holds the estimate over that measure.
ACTIVATION_BYTES = 112
ATTENTION_BYTES = 20
STATIC_BYTES = 4  # per parameter: fp32 weights
TRAINED_BYTES = 12  # per trained parameter: its fp32 gradient and AdamW's two moments
# What a run holds besides weights, optimiser and activations (the libraries' working memory, a checkpoint's copy
# of the weights while it is written, the dev set's embeddings): bench.perf.cost_fit measured a 524 MiB peak-RSS growth
# for MiniLM at batch 4, max length 32, where the terms above give 418 MiB.
RUN_OVERHEAD_BYTES = 256 * 1024**2
# Training throughput, from the FLOPs of a step (forward 2 per multiply-add, backward twice the forward) and the
# recorded speeds of docs/results.md ("Speed on each machine": the medians of bench.evidence.quality's runs, batch 16 on
# STS-B + SICK-R, whose batches pad to 29.3 tokens on average). CPU, 2 cores: all-MiniLM-L6-v2 37.6 pairs/s and
# all-mpnet-base-v2 4.6 pairs/s, i.e. 142 and 138 GFLOP/s: about 70 GFLOP/s a core, no overhead per step.
# Measured against short real runs (bench.perf.cost_fit, docs/results.json "cost_fit"): on the project's 2-core machine
# under a load of 9-13, one thread's CPU time over 6 runs (batch 4-64, max length 32-256, short and ~300-token
# pairs) fitted 2.8 s + 1.98 x the estimate at 70 GFLOP/s a core, 6.0x under for the smallest run (its start-up:
# loading, checkpoints). So a CPU core is counted at 50 GFLOP/s and each run starts with RUN_START_SECONDS; the
# wall-clock limit (stsdemo.serving.caps) stops what a busier machine still makes longer.
# NVIDIA H100 shared by 6-10 jobs: 389.7 and 193.7 pairs/s, i.e. 41.1 and 82.6 ms a step for 60.5 and 480.8
# GFLOP: 10.1 TFLOP/s plus 35 ms a step (a GPU to itself is faster, so the estimate errs long); its start-up
# (the model onto the GPU, the precision probe's 4 x 7 steps) is stsdemo.serving.gpu_time's 20 s.
CPU_FLOPS_PER_CORE = 50e9
RUN_START_SECONDS = {"cpu": 5.0, "gpu": 20.0}
GPU_FLOPS = 10e12
GPU_STEP_SECONDS = 0.035
# Encoding (the dev and the final evaluations) on a GPU is bound by tokenizing and padding on the host, not by its
# FLOPs: all-MiniLM-L6-v2 evaluated the 26,289 distinct 7-task sentences in 2.39 s on one H200 to itself
# (bench.perf.speed --parts eval7; its profile put the GPU's share under 0.1 s, but those logs were not kept:
# docs/runs/h200-2026-11-28/README.md);
# an encoder with more FLOPs a sentence takes proportionally longer. (The H100's 19.8 s of 2026-11-27 was the model
# left on that machine's CPU cores by the benchmark.) On a CPU the FLOPs bound it (bench.perf.cost_fit measures both).
GPU_SENTENCE_SECONDS = 2.39 / 26_289
# The final 7-task evaluation: the 18,850 test pairs of STS12-16, STS-B and SICK-R hold 26,289 distinct sentences
# of 14.3 tokens on average by the embedded tokenizer ([CLS] and [SEP] included; counted once from the SentEval
# files). Each is encoded by the trained model and by its base; the base's results may be cached, but the estimate
# counts both, so it stays an upper bound.
FINAL_EVAL_SENTENCES = 26_289
FINAL_EVAL_TOKENS = 14.3
FINAL_EVAL_MODELS = 2
SAMPLE_PAIRS = 500  # pairs of a data set tokenized for its sentence lengths (evenly spread)
# The encoder assumed where a hub model's config.json cannot be read: BERT-base, the size of most STS encoders.
FALLBACK_ENCODER = dict(
    hidden_size=768,
    num_hidden_layers=12,
    num_attention_heads=12,
    intermediate_size=3072,
    vocab_size=30522,
    max_position_embeddings=512,
)
# What each dimension is called in the config.json of the encoder families a visitor may name.
CONFIG_NAMES = {
    "hidden": ("hidden_size", "dim", "n_embd", "d_model"),
    "layers": ("num_hidden_layers", "n_layers", "n_layer", "num_layers"),
    "heads": ("num_attention_heads", "n_heads", "n_head"),
    "intermediate": ("intermediate_size", "hidden_dim", "n_inner", "ffn_dim"),
    "vocab": ("vocab_size",),
    "positions": ("max_position_embeddings", "n_positions"),
}


# ---- the machine and the encoder -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Machine:
    """Where a run trains: the memory its tensors live in (RAM, or the GPU's), its cores, whether it is a GPU."""

    memory: float
    cores: int
    gpu: bool

    def seconds(self, flops: float, steps: int) -> float:
        """Time for ``flops`` of work in ``steps`` optimiser steps (see the throughput constants)."""
        if self.gpu:
            return flops / GPU_FLOPS + steps * GPU_STEP_SECONDS
        return flops / (CPU_FLOPS_PER_CORE * self.cores)


def machine() -> Machine:
    """This machine, as a run here sees it: the first GPU when torch has one, else the RAM this process may use
    (the container's limit where one is set) and the threads torch trains with."""
    import torch

    if torch.cuda.is_available():
        return Machine(float(torch.cuda.get_device_properties(0).total_memory), 1, True)
    memory = float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    for limit_file in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            memory = min(memory, float(Path(limit_file).read_text().strip()))
        except (OSError, ValueError):  # no such file, or "max": no limit
            continue
    return Machine(memory, max(1, torch.get_num_threads()), False)


@dataclass(frozen=True)
class Encoder:
    """The sizes of an encoder that its memory and work follow, from its ``config.json``."""

    hidden: int
    layers: int
    heads: int
    intermediate: int
    vocab: int
    positions: int

    @classmethod
    def from_config(cls, hf_config: dict | None) -> Encoder:
        """Each size under whichever name its family uses (:data:`CONFIG_NAMES`), else BERT-base's."""
        hf_config = hf_config or FALLBACK_ENCODER
        sizes = {}
        for size, names in CONFIG_NAMES.items():
            value = next((hf_config[name] for name in names if isinstance(hf_config.get(name), int)), None)
            sizes[size] = value if value and value > 0 else None
        hidden = sizes["hidden"] or FALLBACK_ENCODER["hidden_size"]
        return cls(
            hidden,
            sizes["layers"] or FALLBACK_ENCODER["num_hidden_layers"],
            sizes["heads"] or FALLBACK_ENCODER["num_attention_heads"],
            sizes["intermediate"] or 4 * hidden,
            sizes["vocab"] or FALLBACK_ENCODER["vocab_size"],
            sizes["positions"] or FALLBACK_ENCODER["max_position_embeddings"],
        )

    def parameters(self) -> int:
        """Weights of the embeddings and the layers (biases and norms, under 1 % of a BERT, left out)."""
        layer = 4 * self.hidden**2 + 2 * self.hidden * self.intermediate
        return (self.vocab + self.positions) * self.hidden + self.layers * layer

    def lora_parameters(self, rank: int) -> int:
        """A LoRA adapter of ``rank`` on every linear layer: four attention projections and the two of the MLP."""
        return rank * self.layers * (8 * self.hidden + 2 * (self.hidden + self.intermediate))

    def forward_flops(self, length: float) -> float:
        """FLOPs of one token's forward pass in a sentence of ``length`` tokens (projections, MLP, attention)."""
        per_layer = 8 * self.hidden**2 + 4 * self.hidden * self.intermediate + 4 * self.hidden * length
        return self.layers * per_layer

    def activation_bytes(self, length: float) -> float:
        """Bytes one token of a ``length``-token sentence keeps for the backward pass, in one layer."""
        return ACTIVATION_BYTES * self.hidden + ATTENTION_BYTES * self.heads * length


MINILM = Encoder(
    hidden=384, layers=6, heads=12, intermediate=1536, vocab=30522, positions=512
)  # all-MiniLM-L6-v2


def encode_seconds(encoder: Encoder, where: Machine, sentences: float, length: float) -> float:
    """Time to encode ``sentences`` of ``length`` tokens (batches sorted by length pad little): their forward
    FLOPs, and on a GPU at least :data:`GPU_SENTENCE_SECONDS` a sentence, scaled by the encoder's FLOPs a
    sentence beside MiniLM's on the 7-task sentences."""
    flops = sentences * length * encoder.forward_flops(length)
    if not where.gpu:
        return where.seconds(flops, 0)
    minilm_sentence = FINAL_EVAL_TOKENS * MINILM.forward_flops(FINAL_EVAL_TOKENS)
    scale = max(1.0, length * encoder.forward_flops(length) / minilm_sentence)
    return max(where.seconds(flops, 0), sentences * GPU_SENTENCE_SECONDS * scale)


def encoder_of(model: str) -> Encoder:
    """The sizes of the encoder a run starts from (its base's for a saved scorer), read from its files or the
    hub's ``config.json`` without loading weights; BERT-base's when they cannot be read."""
    hf_config = start_encoder_config(model)
    if hf_config is None and is_hub_id(model):
        hf_config = hub_config(str(model).strip())
    return Encoder.from_config(hf_config)


# ---- the data -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DataProfile:
    """A data set as its cost sees it: its size and the token counts of an evenly spread sample of its
    sentences (sorted), as the embedded encoder's tokenizer counts them."""

    pairs: int
    lengths: np.ndarray

    @classmethod
    def of(cls, pairs: PairSet) -> DataProfile:
        sample = pairs.spaced(SAMPLE_PAIRS)
        sentences = [*sample.sentences1, *sample.sentences2]
        counts = _tokenizer()(sentences, truncation=False, return_length=True)["length"]
        return cls(len(pairs), np.sort(np.asarray(counts, dtype=float)))

    def padded(self, sentences: int, max_length: int) -> float:
        """The expected length a batch of ``sentences`` is padded to: its longest, cut at ``max_length``."""
        capped = np.minimum(self.lengths, max_length)
        share = np.arange(1, len(capped) + 1) / len(capped)
        below = np.concatenate([[0.0], share[:-1]])
        return float(np.sum(capped * (share**sentences - below**sentences)))

    def mean(self, max_length: int) -> float:
        """The mean sentence length cut at ``max_length`` (evaluation sorts by length: batches pad little)."""
        return float(np.minimum(self.lengths, max_length).mean())


@functools.lru_cache(maxsize=1)
def _tokenizer():
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(environment.default_model_path()))


@functools.lru_cache(maxsize=16)
def _named_profile(name: str, scheme: str, dev: bool, source: tuple) -> DataProfile:
    """A training or dev set's profile, computed once per process; ``source`` (where the data is read, and a
    file's time stamp and size) is part of the key, so a changed file is read anew."""
    from ..train import load_pairs

    pairs = load_dev_data(name) if dev else load_pairs(TrainConfig(scheme=scheme), name)
    return DataProfile.of(pairs)


def profile_of(name: str, config: TrainConfig, given: dict[str, PairSet], dev: bool = False) -> DataProfile:
    """The profile of the data named ``name`` (a given set under that name wins)."""
    if name in given:
        return DataProfile.of(given[name])
    path = Path(name).expanduser()
    stamp = (path.stat().st_mtime_ns, path.stat().st_size) if path.is_file() else None
    return _named_profile(name, config.scheme, dev, (str(environment.data_dir()), stamp))


# ---- the estimate ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Estimate:
    """A run's peak memory (bytes), its training, dev-evaluation and final 7-task evaluation time (seconds; 0
    when the run has none) and its start-up (loading, checkpoints: :data:`RUN_START_SECONDS`)."""

    memory: float
    train_seconds: float
    eval_seconds: float
    final_seconds: float = 0.0
    start_seconds: float = 0.0

    @property
    def seconds(self) -> float:
        return self.start_seconds + self.train_seconds + self.eval_seconds + self.final_seconds


def final_eval_seconds(encoder: Encoder, where: Machine, max_length: int) -> float:
    """Time of the final 7-task evaluation (:mod:`stsdemo.final_eval`): every distinct test sentence encoded by
    the trained model and by its base (:data:`FINAL_EVAL_MODELS`), in batches sorted by length, each cut at
    ``max_length``."""
    return encode_seconds(
        encoder, where, FINAL_EVAL_MODELS * FINAL_EVAL_SENTENCES, min(FINAL_EVAL_TOKENS, max_length)
    )
