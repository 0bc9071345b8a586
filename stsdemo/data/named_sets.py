"""The paper's named sets: STS Benchmark, SICK-R, STS12-16 and NLI/SNLI, from the SentEval folder or the hub.

Every loader returns a :class:`~stsdemo.data.pairs.PairSet` whose labels already sit on the line of its
:class:`~stsdemo.labels.LabelScheme` (STS 0..5, NLI contradiction 0 / neutral 1 / entailment 2).
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from ..labels import NLI, STS, sick_to_sts
from .pairs import PairSet
from .senteval_files import local_sick, local_snli, local_sts_year, local_stsb
from .sources import check_choice, hub_split, local_root, require_columns

STS_YEARS = (12, 13, 14, 15, 16)
STSB_SPLITS = ("train", "dev", "test")
SICK_SPLITS = ("train", "trial", "test")
NLI_LOCAL_SPLITS = ("dev", "test")

# Hub sets (verified against their dataset cards). STS-B's score is divided by 5 there.
HUB_STSB = "sentence-transformers/stsb"
HUB_STS_YEAR = "mteb/sts{year}-sts"
# SICK with its SemEval-2014 train/validation/test split (sentence_A, sentence_B, relatedness_score).
# The repository holds a loading script, which current `datasets` no longer runs, so we read the
# hub's own Parquet export of it. (mteb/sickr-sts is not used: its "test" split holds all 9927 SICK
# pairs, training pairs included, so filtering SICK train against it would leave nothing.)
HUB_SICK = "RobZamp/sick"
HUB_SICK_REVISION = "refs/convert/parquet"
HUB_SICK_SPLITS = {"train": "train", "trial": "validation", "test": "test"}
HUB_NLI = "sentence-transformers/all-nli"
HUB_NLI_CONFIG = "pair-class"
HUB_NLI_NAMES = ("entailment", "neutral", "contradiction")  # the card's ClassLabel order
HUB_SNLI = "stanfordnlp/snli"  # SNLI 1.0 itself; pairs without a gold label carry label -1
HUB_SNLI_SPLITS = {"dev": "validation", "test": "test"}


def load_stsb(split: str, source: str = "auto") -> PairSet:
    """STS Benchmark ``train``/``dev``/``test`` (5749/1500/1379 pairs), scores 0..5."""
    check_choice("STS-B split", split, STSB_SPLITS)
    root = local_root(source)
    if root is not None:
        return local_stsb(root, split)
    table = hub_split(HUB_STSB, "validation" if split == "dev" else split)
    require_columns(table, HUB_STSB, ("sentence1", "sentence2", "score"))
    # The hub copy stores score / 5; rounding drops the float noise of the round trip.
    labels = np.round(np.asarray(table["score"], dtype=np.float64) * 5.0, 6)
    return PairSet(f"STS-B {split}", table["sentence1"], table["sentence2"], labels, STS)


def load_sick(split: str, source: str = "auto") -> PairSet:
    """SICK ``train``/``trial``/``test`` (4500/500/4927 locally), relatedness mapped 1..5 -> 0..5."""
    check_choice("SICK split", split, SICK_SPLITS)
    root = local_root(source)
    if root is not None:
        return local_sick(root, split)
    table = hub_split(HUB_SICK, HUB_SICK_SPLITS[split], revision=HUB_SICK_REVISION)
    require_columns(table, HUB_SICK, ("sentence_A", "sentence_B", "relatedness_score"))
    return PairSet(
        f"SICK {split}",
        table["sentence_A"],
        table["sentence_B"],
        sick_to_sts(table["relatedness_score"]),
        STS,
    )


def load_sts_year(year: int, source: str = "auto") -> dict[str, PairSet]:
    """STS12..STS16 test data as ``{subset: PairSet}``; pairs without a gold score are left out.

    The hub copies (``mteb/sts1X-sts``) carry no subset names, so there the dict has one key, ``"all"``.
    """
    check_choice("STS year", year, STS_YEARS)
    root = local_root(source)
    if root is not None:
        return local_sts_year(root, year)
    repo = HUB_STS_YEAR.format(year=year)
    table = hub_split(repo, "test")
    require_columns(table, repo, ("sentence1", "sentence2", "score"))
    return {"all": PairSet(f"STS{year}", table["sentence1"], table["sentence2"], table["score"], STS)}


def load_nli(splits=("dev", "test"), source="auto") -> PairSet:
    """NLI pairs on the NLI line (contradiction 0, neutral 1, entailment 2).

    Locally: SNLI dev + test (9842 + 9824). Hub: ``sentence-transformers/all-nli`` ``pair-class``
    (SNLI + MultiNLI; splits train/dev/test), whose label ids are mapped through their names.
    """
    splits = (splits,) if isinstance(splits, str) else tuple(splits)
    root = local_root(source)
    if root is not None:
        for split in splits:
            if split not in NLI_LOCAL_SPLITS:
                raise InputError("nli_split_not_local", split=repr(split), splits=", ".join(NLI_LOCAL_SPLITS))
        return PairSet.concat([local_snli(root, split) for split in splits], f"SNLI {'+'.join(splits)}")
    parts = []
    for split in splits:
        table = hub_split(HUB_NLI, split, config=HUB_NLI_CONFIG)
        require_columns(table, HUB_NLI, ("premise", "hypothesis", "label"))
        feature = table.features["label"]
        names = getattr(feature, "names", None) or HUB_NLI_NAMES  # older revisions store plain ints
        labels = [NLI.node_of(names[int(i)]) for i in table["label"]]
        parts.append(PairSet(f"all-nli {split}", table["premise"], table["hypothesis"], labels, NLI))
    return PairSet.concat(parts, f"all-nli {'+'.join(splits)}")


def load_snli(split: str, source="auto") -> PairSet:
    """SNLI dev or test on the NLI line: the pairs that have a gold label (dev 9,842, test 9,824).

    Locally SentEval's copy; from the hub ``stanfordnlp/snli``, less its pairs without a gold label (label
    -1), which SentEval's copy leaves out too. Unlike :func:`load_nli`, never another NLI set: what reads this
    reports SNLI figures.
    """
    check_choice("SNLI split", split, HUB_SNLI_SPLITS)
    root = local_root(source)
    if root is not None:
        return local_snli(root, split)
    table = hub_split(HUB_SNLI, HUB_SNLI_SPLITS[split])
    require_columns(table, HUB_SNLI, ("premise", "hypothesis", "label"))
    names = getattr(table.features["label"], "names", None) or HUB_NLI_NAMES
    table = table.filter(lambda row: row["label"] >= 0)
    labels = [NLI.node_of(names[int(i)]) for i in table["label"]]
    return PairSet(f"SNLI {split}", table["premise"], table["hypothesis"], labels, NLI)


def senteval_test_sets(source="auto") -> dict[str, PairSet]:
    """The seven SentEval STS tasks, in the paper's column order.

    STS12-16 join all their subsets (SimCSE's "all" setting); STS-B and SICK-R are the test splits.
    """
    sets = {}
    for year in STS_YEARS:
        sets[f"STS{year}"] = PairSet.concat(load_sts_year(year, source).values(), f"STS{year}")
    sets["STSBenchmark"] = load_stsb("test", source)
    sets["SICKRelatedness"] = load_sick("test", source)
    return sets
