"""Sentence-pair data: the paper's STS and NLI sets, user CSV/TSV files, and the leakage filter.

One module per concern: :mod:`.pairs` (the :class:`PairSet` and sentence cleaning), :mod:`.sources` (the SentEval
folder or the hub), :mod:`.senteval_files` (SentEval's file formats), :mod:`.named_sets` (STS-B, SICK-R, STS12-16,
NLI/SNLI), :mod:`.user_files` (a user's CSV/TSV) and :mod:`.training_sets` (training and dev data by name, the
leakage filter). The public names are re-exported here: ``from stsdemo.data import load_stsb`` keeps working.
"""

from .named_sets import (
    NLI_LOCAL_SPLITS,
    SICK_SPLITS,
    STS_YEARS,
    STSB_SPLITS,
    load_nli,
    load_sick,
    load_snli,
    load_sts_year,
    load_stsb,
    senteval_test_sets,
)
from .pairs import MAX_SENTENCE_CHARS, PairSet, clean_text
from .sources import SOURCES
from .training_sets import (
    SNLI_HELD_OUT,
    SNLI_SPLIT_SEED,
    TRAINING_DATA,
    builtin_scheme,
    filter_leakage,
    leakage_report,
    load_dev_data,
    load_training_data,
    snli_dev_split,
)
from .user_files import LABEL_COLUMNS, MAX_FILE_BYTES, SENTENCE_COLUMN_PAIRS, load_csv, write_pairs

__all__ = [
    "LABEL_COLUMNS",
    "MAX_FILE_BYTES",
    "MAX_SENTENCE_CHARS",
    "NLI_LOCAL_SPLITS",
    "SENTENCE_COLUMN_PAIRS",
    "SICK_SPLITS",
    "SNLI_HELD_OUT",
    "SNLI_SPLIT_SEED",
    "SOURCES",
    "STSB_SPLITS",
    "STS_YEARS",
    "TRAINING_DATA",
    "PairSet",
    "builtin_scheme",
    "clean_text",
    "filter_leakage",
    "leakage_report",
    "load_csv",
    "load_dev_data",
    "load_nli",
    "load_sick",
    "load_snli",
    "load_sts_year",
    "load_stsb",
    "load_training_data",
    "senteval_test_sets",
    "snli_dev_split",
    "write_pairs",
]
