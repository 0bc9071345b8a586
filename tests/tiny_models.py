"""A tiny random BERT with the embedded model's tokenizer, for the tests that check how a run goes (its events,
stop and cancel, its files, the line, the faults) rather than what it learns: a step or a dev score of it takes
milliseconds where all-MiniLM-L6-v2 takes a second on two cores. The tests of learning and of published scores
keep the real encoder."""

from __future__ import annotations

import functools
import os
from pathlib import Path

WIDTH = 32  # the tiny encoder's hidden size: the length of its sentence embeddings


def tiny_bert(seed: int, positions: int = 64):
    """``(encoder, tokenizer)``: a 1-layer, 32-wide BERT with random weights and the embedded model's tokenizer."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertModel

    from stsdemo import environment

    torch.manual_seed(seed)
    tokenizer = AutoTokenizer.from_pretrained(str(environment.default_model_path()))
    config = BertConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=WIDTH,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=positions,
    )
    return BertModel(config), tokenizer


def tiny_model(seed: int):
    """A :class:`SiameseRegressor` on :func:`tiny_bert`: saves and loads in a blink."""
    from stsdemo.model import SiameseRegressor

    encoder, tokenizer = tiny_bert(seed)
    return SiameseRegressor(encoder, tokenizer, max_length=32, base_model="tiny-test-bert")


def tiny_encoder() -> str:
    """The folder of a tiny encoder to start runs from (as a visitor names a model), saved once per test process
    in the folder the tests may load models from (``STSDEMO_MODEL_ROOTS``, set by tests/conftest.py)."""
    return _saved_encoder(Path(os.environ["STSDEMO_MODEL_ROOTS"]) / "tiny-encoder")


@functools.cache
def _saved_encoder(folder: Path) -> str:
    if not (folder / "config.json").is_file():
        encoder, tokenizer = tiny_bert(seed=0, positions=512)
        encoder.save_pretrained(folder)
        tokenizer.save_pretrained(folder)
    return str(folder)
