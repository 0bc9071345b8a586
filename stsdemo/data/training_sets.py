"""Training and checkpoint-selection data by name, and the leakage filter (paper Appendix A)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..config import DEV_DATA
from ..errors import InputError
from ..labels import NLI, STS, LabelScheme
from .named_sets import load_nli, load_sick, load_snli, load_stsb, senteval_test_sets
from .pairs import PairSet
from .sources import check_choice
from .user_files import load_csv

TRAINING_DATA = ("stsb", "sick", "stsb+sick", "nli", "snli-train")
SNLI_HELD_OUT = 1000  # SNLI dev pairs held out of "snli-train" to select its checkpoint
SNLI_SPLIT_SEED = 0  # the held-out pairs are the same for every run


def _pair_key(a: str, b: str) -> tuple[str, str]:
    """Order-free key of a pair, so (a, b) and (b, a) match; compared on stripped exact text."""
    a, b = a.strip(), b.strip()
    return (a, b) if a <= b else (b, a)


def filter_leakage(train: PairSet, test_sets: list[PairSet]) -> tuple[PairSet, int]:
    """Drop every training pair whose two sentences form a test pair (either order).

    A pair sharing only one sentence with a test pair is kept. Returns (kept pairs, removed count).
    """
    test_keys = {_pair_key(a, b) for test in test_sets for a, b in zip(test.sentences1, test.sentences2)}
    keep = [
        i
        for i, (a, b) in enumerate(zip(train.sentences1, train.sentences2))
        if _pair_key(a, b) not in test_keys
    ]
    return train.select(keep), len(train) - len(keep)


def filtered_tune_parts(source: str) -> dict[str, tuple[PairSet, int]]:
    """STS-B train and SICK train, each filtered against all seven test sets: {name: (kept, removed)}."""
    tests = list(senteval_test_sets(source).values())
    return {
        "STS-B train": filter_leakage(load_stsb("train", source), tests),
        "SICK train": filter_leakage(load_sick("train", source), tests),
    }


def leakage_report(source="auto") -> dict:
    """Pairs before/removed/kept by the leakage filter, for STS-B train and SICK train separately."""
    return {
        name: {"before": len(kept) + removed, "removed": removed, "kept": len(kept)}
        for name, (kept, removed) in filtered_tune_parts(source).items()
    }


def snli_dev_split(
    held_out: int = SNLI_HELD_OUT, train_pairs: int | None = None, source="auto"
) -> tuple[PairSet, PairSet]:
    """SNLI dev as (training pairs, held-out selection pairs), split by a fixed permutation so the held-out
    pairs are spread over the file and the same for every run; ``train_pairs`` keeps a fixed random sample of
    N training pairs. Each part keeps the file's order. SNLI test stays unseen: it is the test set."""
    dev = load_snli("dev", source)
    order = np.random.default_rng(SNLI_SPLIT_SEED).permutation(len(dev))
    train = order[held_out:] if train_pairs is None else order[held_out : held_out + train_pairs]
    return dev.select(np.sort(train)), dev.select(np.sort(order[:held_out]))


def builtin_scheme(name: str) -> LabelScheme | None:
    """The label scheme of a named training or dev set (None for a user's file)."""
    key = str(name).strip().lower()
    if key in ("nli", "snli-train", "snli-heldout"):
        return NLI
    return STS if key in TRAINING_DATA or key in DEV_DATA else None


def load_dev_data(name: str, source="auto") -> PairSet:
    """A checkpoint-selection set by name (``DEV_DATA``): STS-B dev, or the SNLI dev pairs held out of
    ``snli-train``."""
    key = str(name).strip().lower()
    check_choice("dev data", key, DEV_DATA)
    return load_stsb("dev", source) if key == "stsb" else snli_dev_split(source=source)[1]


def load_training_data(name: str, scheme=None, source="auto") -> PairSet:
    """Training pairs by name (see ``TRAINING_DATA``) or from a user's .csv/.tsv file.

    ``"snli-train"`` is SNLI dev less the 1,000 pairs held out to select its checkpoint (``snli-heldout``).
    ``"stsb+sick"`` is the paper's tune data: STS-B train + SICK train with every pair that appears
    in one of the seven test sets removed; its name carries the removed count. A user file needs
    ``scheme``; for the named sets ``scheme`` may be omitted and, if given, must match theirs.
    """
    key = str(name).strip().lower()
    if key in TRAINING_DATA:
        own = builtin_scheme(key)
        if scheme is not None and (scheme.categories, scheme.gap) != (own.categories, own.gap):
            raise InputError(
                "training_data_scheme",
                key=repr(key),
                own=own.name,
                categories=", ".join(own.categories),
                scheme=scheme.name,
            )
        if key == "stsb":
            return load_stsb("train", source)
        if key == "sick":
            return load_sick("train", source)
        if key == "nli":
            return load_nli(source=source)
        if key == "snli-train":
            return snli_dev_split(source=source)[0]
        parts = filtered_tune_parts(source)
        removed = sum(count for _, count in parts.values())
        return PairSet.concat([kept for kept, _ in parts.values()], f"stsb+sick (filtered, -{removed})")
    path = Path(str(name)).expanduser()
    if path.suffix.lower() not in (".csv", ".tsv", ".tab", ".txt") and not path.is_file():
        raise InputError("unknown_training_data", name=repr(name), training_data=", ".join(TRAINING_DATA))
    if scheme is None:
        raise InputError("training_file_scheme", path=repr(path.name))
    return load_csv(path, scheme)
