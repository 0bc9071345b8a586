"""Sentence-pair data: the paper's STS and NLI sets, user CSV/TSV files, and the leakage filter.

Every loader returns a :class:`PairSet` whose labels already sit on the line of its
:class:`~stsdemo.labels.LabelScheme` (STS 0..5, NLI contradiction 0 / neutral 1 / entailment 2).

Data comes from a SentEval-format folder (``environment.data_dir()``, see ``shared/data/README.md``)
or, for online users, from the Hugging Face hub. ``source`` picks: ``"auto"`` (the folder if it
exists, else the hub), ``"local"`` (the folder, or an error naming STSDEMO_DATA_DIR) or ``"hub"``.
The local files are read the way SentEval reads them, so the evaluation numbers match SimCSE's.
"""

from __future__ import annotations

import csv
import io
import math
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import environment
from .atomic import atomic_write
from .config import DEV_DATA
from .errors import InputError
from .labels import NLI, STS, LabelScheme, sick_to_sts

TRAINING_DATA = ("stsb", "sick", "stsb+sick", "nli", "snli-train")
SNLI_HELD_OUT = 1000                  # SNLI dev pairs held out of "snli-train" to select its checkpoint
SNLI_SPLIT_SEED = 0                   # the held-out pairs are the same for every run
SOURCES = ("auto", "local", "hub")
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
HUB_SNLI = "stanfordnlp/snli"   # SNLI 1.0 itself; pairs without a gold label carry label -1
HUB_SNLI_SPLITS = {"dev": "validation", "test": "test"}

# Header names load_csv recognises (compared lower-cased, spaces and dashes read as underscores).
SENTENCE_COLUMN_PAIRS = (
    ("sentence1", "sentence2"),
    ("sentence_1", "sentence_2"),
    ("sentence_a", "sentence_b"),
    ("text1", "text2"),
    ("text_a", "text_b"),
    ("s1", "s2"),
    ("premise", "hypothesis"),
)
LABEL_COLUMNS = ("label", "score", "relatedness_score", "similarity", "gold_label")
TAB_SUFFIXES = (".tsv", ".tab")
MAX_FILE_BYTES = 200 * 1024 * 1024   # a user's CSV/TSV larger than this is refused before it is read
MAX_SENTENCE_CHARS = 20_000          # longer text is cut; the encoder sees at most max_length tokens anyway
_INVISIBLE = {"Cc", "Cf", "Cs", "Zs", "Zl", "Zp"}  # control, format, surrogate and space characters


def clean_text(text, label: str = "sentence") -> tuple[str, str]:
    """A sentence ready to encode and a notice ('' if none); InputError if it has nothing visible.

    Control characters (except tab and line breaks) and lone surrogates are dropped: they carry no meaning and
    some tokenizers choke on them. Emoji, right-to-left text and every other script are kept as they are.
    Text longer than ``MAX_SENTENCE_CHARS`` is cut, and the notice says so.
    """
    if text is None or not isinstance(text, str):
        raise InputError(f"{label} must be text, got {type(text).__name__}")
    kept = "".join(ch for ch in text if ch in "\t\n\r" or unicodedata.category(ch) not in ("Cc", "Cs"))
    removed = len(text) - len(kept)
    kept = kept.strip()
    if not any(unicodedata.category(ch) not in _INVISIBLE for ch in kept):
        raise InputError(f"{label} is empty; type a sentence with at least one visible character")
    notes = []
    if removed:
        notes.append(f"{removed} control character{'s' if removed != 1 else ''} removed from {label}")
    if len(kept) > MAX_SENTENCE_CHARS:
        kept = kept[:MAX_SENTENCE_CHARS]
        notes.append(f"{label} was cut to its first {MAX_SENTENCE_CHARS:,} characters")
    return kept, "; ".join(notes)


@dataclass
class PairSet:
    """Sentence pairs with one float label each, on ``scheme``'s line."""

    name: str
    sentences1: list[str]
    sentences2: list[str]
    labels: np.ndarray
    scheme: LabelScheme
    notice: str = ""          # what loading changed (sentences cut, control characters removed), or ""

    def __post_init__(self):
        self.sentences1 = list(self.sentences1)
        self.sentences2 = list(self.sentences2)
        self.labels = np.asarray(self.labels, dtype=np.float64).reshape(-1)
        if not len(self.sentences1) == len(self.sentences2) == len(self.labels):
            raise ValueError(
                f"{self.name}: {len(self.sentences1)} first sentences, {len(self.sentences2)} second "
                f"sentences and {len(self.labels)} labels; they must be equally many"
            )

    def __len__(self) -> int:
        return len(self.labels)

    def select(self, indices) -> "PairSet":
        """The pairs at ``indices`` (integer positions or a boolean mask), in that order."""
        index = np.asarray(indices)
        if index.dtype == bool:
            index = np.flatnonzero(index)
        index = index.astype(np.int64).reshape(-1)
        return PairSet(
            self.name,
            [self.sentences1[i] for i in index],
            [self.sentences2[i] for i in index],
            self.labels[index],
            self.scheme,
        )

    @staticmethod
    def concat(sets, name) -> "PairSet":
        """One set holding the pairs of ``sets`` in order; all must share a label scheme."""
        sets = list(sets)
        if not sets:
            raise ValueError("PairSet.concat needs at least one set")
        scheme = sets[0].scheme
        for other in sets[1:]:
            if other.scheme != scheme:
                raise InputError(
                    f"cannot join {sets[0].name} ({scheme.name} labels) with {other.name} "
                    f"({other.scheme.name} labels); all sets must use one label scheme"
                )
        return PairSet(
            name,
            [s for part in sets for s in part.sentences1],
            [s for part in sets for s in part.sentences2],
            np.concatenate([part.labels for part in sets]),
            scheme,
        )


# ----------------------------------------------------------------------------------------------
# Where data comes from


def _local_root(source: str) -> Path | None:
    """The SentEval folder to read, or None when the hub should be used."""
    if source not in SOURCES:
        raise InputError(f"unknown data source {source!r}; allowed: {', '.join(SOURCES)}")
    if source == "hub":
        return None
    folder = environment.data_dir()
    if folder is not None and folder.is_dir():
        return folder
    if source == "local":
        where = f"{folder} does not exist" if folder is not None else "no data folder is configured"
        raise InputError(
            f"local data requested but {where}; set STSDEMO_DATA_DIR to a SentEval-format folder "
            "(with STS/, SICK/, SNLI/) or use source='hub'"
        )
    return None


def _hub_split(repo: str, split: str, config: str | None = None, revision: str | None = None):
    """One split of a hub dataset; failures (offline, renamed sets) become an InputError."""
    import datasets

    try:
        return datasets.load_dataset(repo, config, split=split, revision=revision)
    except Exception as exc:  # network, missing split, format change: all mean "cannot get it"
        raise InputError(
            f"could not load {repo} (split {split}) from the Hugging Face hub: {exc}. "
            "Offline, set STSDEMO_DATA_DIR to a SentEval-format data folder."
        ) from exc


def _require_columns(table, repo: str, columns) -> None:
    missing = [c for c in columns if c not in table.column_names]
    if missing:
        raise InputError(
            f"{repo} has no column(s) {', '.join(missing)} (found: {', '.join(table.column_names)})"
        )


def _check_choice(what: str, value, allowed) -> None:
    if value not in allowed:
        raise InputError(f"unknown {what} {value!r}; allowed: {', '.join(map(str, allowed))}")


# ----------------------------------------------------------------------------------------------
# SentEval file formats


def _read_lines(path: Path) -> list[str]:
    """The lines of a UTF-8 text file, split as SentEval splits them (``str.splitlines``)."""
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise InputError(f"data file {path} is missing; check STSDEMO_DATA_DIR") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"data file {path} is not UTF-8 text ({exc})") from None


def _read_tab_rows(path: Path, min_fields: int, skip_header: bool = False) -> list[list[str]]:
    """Tab-separated rows, split on tabs only: STS-B/SICK text contains bare quote characters."""
    lines = _read_lines(path)[1 if skip_header else 0 :]
    rows = []
    for number, line in enumerate(lines, start=2 if skip_header else 1):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) < min_fields:
            raise InputError(
                f"{path}, line {number}: expected at least {min_fields} tab-separated fields, found {len(fields)}"
            )
        rows.append(fields)
    return rows


def _parse_gold(path: Path, number: int, text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise InputError(f"{path}, line {number}: gold score {text!r} is not a number") from None


def _local_stsb(root: Path, split: str) -> PairSet:
    """``sts-<split>.csv``: column 4 the 0..5 score, columns 5 and 6 the sentences."""
    path = root / "STS" / "STSBenchmark" / f"sts-{split}.csv"
    rows = _read_tab_rows(path, min_fields=7)
    labels = [_parse_gold(path, i + 1, row[4]) for i, row in enumerate(rows)]
    return PairSet(f"STS-B {split}", [r[5].strip() for r in rows], [r[6].strip() for r in rows], labels, STS)


def _local_sick(root: Path, split: str) -> PairSet:
    """``SICK_<split>.txt``: header, then pair_ID, sentence_A, sentence_B, relatedness 1..5, ..."""
    filename = "SICK_test_annotated.txt" if split == "test" else f"SICK_{split}.txt"
    path = root / "SICK" / filename
    rows = _read_tab_rows(path, min_fields=4, skip_header=True)
    relatedness = [_parse_gold(path, i + 2, row[3]) for i, row in enumerate(rows)]
    return PairSet(
        f"SICK {split}", [r[1].strip() for r in rows], [r[2].strip() for r in rows], sick_to_sts(relatedness), STS
    )


def _local_sts_year(root: Path, year: int) -> dict[str, PairSet]:
    """``STS.input.<subset>.txt`` (two sentences a line) with ``STS.gs.<subset>.txt`` (score or empty)."""
    folder = root / "STS" / f"STS{year}-en-test"
    inputs = sorted(folder.glob("STS.input.*.txt"))
    if not inputs:
        raise InputError(f"no STS.input.*.txt files in {folder}; check STSDEMO_DATA_DIR")
    subsets = {}
    for input_path in inputs:
        subset = input_path.name[len("STS.input.") : -len(".txt")]
        gold_path = folder / f"STS.gs.{subset}.txt"
        pairs = _read_lines(input_path)
        gold = _read_lines(gold_path)
        if len(pairs) != len(gold):
            raise InputError(f"{input_path} has {len(pairs)} lines but {gold_path} has {len(gold)}")
        first, second, labels = [], [], []
        for number, (pair, score) in enumerate(zip(pairs, gold), start=1):
            if not score.strip():  # no gold score: SentEval leaves the pair out
                continue
            fields = pair.split("\t")
            if len(fields) != 2:
                raise InputError(
                    f"{input_path}, line {number}: expected 2 tab-separated sentences, found {len(fields)}"
                )
            first.append(fields[0].strip())
            second.append(fields[1].strip())
            labels.append(_parse_gold(gold_path, number, score))
        subsets[subset] = PairSet(f"STS{year} {subset}", first, second, labels, STS)
    return subsets


def _local_snli(root: Path, split: str) -> PairSet:
    """``s1.<split>``, ``s2.<split>``, ``labels.<split>``: one item a line."""
    folder = root / "SNLI"
    first, second, names = (_read_lines(folder / f"{part}.{split}") for part in ("s1", "s2", "labels"))
    if not len(first) == len(second) == len(names):
        raise InputError(f"{folder}: s1/s2/labels.{split} have {len(first)}/{len(second)}/{len(names)} lines")
    labels = [NLI.node_of(name) for name in names]
    return PairSet(f"SNLI {split}", [s.strip() for s in first], [s.strip() for s in second], labels, NLI)


# ----------------------------------------------------------------------------------------------
# Public loaders


def load_stsb(split: str, source: str = "auto") -> PairSet:
    """STS Benchmark ``train``/``dev``/``test`` (5749/1500/1379 pairs), scores 0..5."""
    _check_choice("STS-B split", split, STSB_SPLITS)
    root = _local_root(source)
    if root is not None:
        return _local_stsb(root, split)
    table = _hub_split(HUB_STSB, "validation" if split == "dev" else split)
    _require_columns(table, HUB_STSB, ("sentence1", "sentence2", "score"))
    # The hub copy stores score / 5; rounding drops the float noise of the round trip.
    labels = np.round(np.asarray(table["score"], dtype=np.float64) * 5.0, 6)
    return PairSet(f"STS-B {split}", table["sentence1"], table["sentence2"], labels, STS)


def load_sick(split: str, source: str = "auto") -> PairSet:
    """SICK ``train``/``trial``/``test`` (4500/500/4927 locally), relatedness mapped 1..5 -> 0..5."""
    _check_choice("SICK split", split, SICK_SPLITS)
    root = _local_root(source)
    if root is not None:
        return _local_sick(root, split)
    table = _hub_split(HUB_SICK, HUB_SICK_SPLITS[split], revision=HUB_SICK_REVISION)
    _require_columns(table, HUB_SICK, ("sentence_A", "sentence_B", "relatedness_score"))
    return PairSet(
        f"SICK {split}", table["sentence_A"], table["sentence_B"], sick_to_sts(table["relatedness_score"]), STS
    )


def load_sts_year(year: int, source: str = "auto") -> dict[str, PairSet]:
    """STS12..STS16 test data as ``{subset: PairSet}``; pairs without a gold score are left out.

    The hub copies (``mteb/sts1X-sts``) carry no subset names, so there the dict has one key, ``"all"``.
    """
    _check_choice("STS year", year, STS_YEARS)
    root = _local_root(source)
    if root is not None:
        return _local_sts_year(root, year)
    repo = HUB_STS_YEAR.format(year=year)
    table = _hub_split(repo, "test")
    _require_columns(table, repo, ("sentence1", "sentence2", "score"))
    return {"all": PairSet(f"STS{year}", table["sentence1"], table["sentence2"], table["score"], STS)}


def load_nli(splits=("dev", "test"), source="auto") -> PairSet:
    """NLI pairs on the NLI line (contradiction 0, neutral 1, entailment 2).

    Locally: SNLI dev + test (9842 + 9824). Hub: ``sentence-transformers/all-nli`` ``pair-class``
    (SNLI + MultiNLI; splits train/dev/test), whose label ids are mapped through their names.
    """
    splits = (splits,) if isinstance(splits, str) else tuple(splits)
    root = _local_root(source)
    if root is not None:
        for split in splits:
            if split not in NLI_LOCAL_SPLITS:
                raise InputError(
                    f"NLI split {split!r} is not in the local data folder (it has {', '.join(NLI_LOCAL_SPLITS)}); "
                    "use source='hub' for the training split"
                )
        return PairSet.concat([_local_snli(root, split) for split in splits], f"SNLI {'+'.join(splits)}")
    parts = []
    for split in splits:
        table = _hub_split(HUB_NLI, split, config=HUB_NLI_CONFIG)
        _require_columns(table, HUB_NLI, ("premise", "hypothesis", "label"))
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
    _check_choice("SNLI split", split, HUB_SNLI_SPLITS)
    root = _local_root(source)
    if root is not None:
        return _local_snli(root, split)
    table = _hub_split(HUB_SNLI, HUB_SNLI_SPLITS[split])
    _require_columns(table, HUB_SNLI, ("premise", "hypothesis", "label"))
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


# ----------------------------------------------------------------------------------------------
# User files


def _megabytes(size: int) -> str:
    return f"{size / 1024 / 1024:.1f} MB" if size >= 1024 * 1024 else f"{size / 1024:.1f} KB"


def _decode_user_file(path: Path, max_bytes: int | None = MAX_FILE_BYTES) -> str:
    if not path.is_file():
        raise InputError(f"file {str(path)!r} does not exist or is not a file")
    size = path.stat().st_size
    if max_bytes is not None and size > max_bytes:
        raise InputError(f"file {path.name!r} is {_megabytes(size)}; the limit is {_megabytes(max_bytes)} per file "
                         "(split it into smaller files)")
    raw = path.read_bytes()
    if not raw.strip():
        raise InputError(f"file {path.name!r} is empty; expected a header row and sentence pairs")
    if b"\x00" in raw[:8192]:
        raise InputError(f"file {path.name!r} looks binary; expected a UTF-8 CSV or TSV text file")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"file {path.name!r} is not UTF-8 text (byte {exc.start}); save it as UTF-8 CSV or TSV"
        ) from None


def _delimiter(path: Path, text: str) -> str:
    """Tab for .tsv/.tab files; otherwise the separator found most often in the header line.

    Only the header is looked at: column names rarely hold punctuation, sentences often do.
    """
    if path.suffix.lower() in TAB_SUFFIXES:
        return "\t"
    header = text.split("\n", 1)[0]
    counts = {sep: header.count(sep) for sep in (",", "\t", ";", "|")}
    best = max(counts, key=counts.get)
    return best if counts[best] else ","


def _header_key(name: str) -> str:
    return name.strip().lower().replace(" ", "_").replace("-", "_")


def _column(header_keys: list[str], header: list[str], name: str) -> int:
    """Index of a column the caller named explicitly (matched like the automatic names)."""
    key = _header_key(str(name))
    if key not in header_keys:
        raise InputError(f"no column {name!r} in the header; columns found: {', '.join(repr(h) for h in header)}")
    return header_keys.index(key)


def _sentence_columns(header_keys, header, sentence1, sentence2) -> tuple[int, int]:
    if sentence1 is not None or sentence2 is not None:
        if sentence1 is None or sentence2 is None:
            raise InputError("name both sentence columns (sentence1 and sentence2), or neither to auto-detect")
        return _column(header_keys, header, sentence1), _column(header_keys, header, sentence2)
    for name1, name2 in SENTENCE_COLUMN_PAIRS:
        if name1 in header_keys and name2 in header_keys:
            return header_keys.index(name1), header_keys.index(name2)
    accepted = ", ".join(f"{a}/{b}" for a, b in SENTENCE_COLUMN_PAIRS)
    raise InputError(
        f"no pair of sentence columns in the header; columns found: {', '.join(repr(h) for h in header)}. "
        f"Accepted pairs: {accepted} (or name the columns explicitly)"
    )


def _label_column(header_keys, header, label) -> int:
    if label is not None:
        return _column(header_keys, header, label)
    for name in LABEL_COLUMNS:
        if name in header_keys:
            return header_keys.index(name)
    raise InputError(
        f"no label column in the header; columns found: {', '.join(repr(h) for h in header)}. "
        f"Accepted label names: {', '.join(LABEL_COLUMNS)} (or name the column explicitly)"
    )


def _parse_label(text: str, scheme: LabelScheme, row: int) -> float:
    """A category name of ``scheme`` (checked first) or a number on its line within [low, high]."""
    value = text.strip()
    allowed = f"a number in [{scheme.low:g}, {scheme.high:g}] or one of: {', '.join(scheme.categories)}"
    if not value:
        raise InputError(f"row {row}: the label is empty; expected {allowed}")
    if any(value.lower() == name.lower() for name in scheme.categories):
        return scheme.node_of(value)
    try:
        number = float(value)
    except ValueError:
        raise InputError(f"row {row}: label {value!r} is not {allowed}") from None
    if not math.isfinite(number):
        raise InputError(f"row {row}: label {value!r} is not a finite number; expected {allowed}")
    if not scheme.low <= number <= scheme.high:
        raise InputError(
            f"row {row}: label {value!r} is outside [{scheme.low:g}, {scheme.high:g}] ({scheme.name} scheme)"
        )
    return number


def load_csv(
    path,
    scheme: LabelScheme,
    sentence1=None,
    sentence2=None,
    label=None,
    max_rows: int = 200_000,
    require_label: bool = True,
    max_bytes: int | None = MAX_FILE_BYTES,
) -> PairSet:
    """Sentence pairs from a user's CSV or TSV file with a header row.

    Columns are found by name (see ``SENTENCE_COLUMN_PAIRS`` and ``LABEL_COLUMNS``) unless given.
    A label is a category name of ``scheme`` or a number on its line. With ``require_label=False``
    (files to be scored) a file without a label column loads with NaN labels. Row numbers in
    messages count data rows from 1 (the header is not a row). Anything wrong raises :class:`InputError`.
    Limits, checked as early as possible: ``max_bytes`` before the file is read, ``max_rows`` while it is
    parsed. Sentences are cleaned as :func:`clean_text` does; ``notice`` on the result says what changed.
    """
    path = Path(path)
    text = _decode_user_file(path, max_bytes)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=_delimiter(path, text))
    try:
        header = next(reader)
        header_keys = [_header_key(h) for h in header]
        first, second = _sentence_columns(header_keys, header, sentence1, sentence2)
        has_label = label is not None or any(key in header_keys for key in LABEL_COLUMNS)
        label_index = _label_column(header_keys, header, label) if require_label or has_label else None
        sentences1, sentences2, labels = [], [], []
        cut = cleaned = 0
        for row, fields in enumerate(reader, start=1):
            if not any(f.strip() for f in fields):
                continue  # blank line
            if len(labels) >= max_rows:
                raise InputError(f"{path.name} has more than {max_rows} rows; the limit is {max_rows} rows per file "
                                 "(split it into smaller files)")
            if len(fields) != len(header):
                raise InputError(f"row {row}: {len(fields)} fields but the header has {len(header)}")
            s1, s2 = fields[first].strip(), fields[second].strip()
            if not s1 or not s2:
                raise InputError(f"row {row}: empty sentence; every pair needs two non-empty sentences")
            try:
                (s1, note1), (s2, note2) = clean_text(s1, "sentence 1"), clean_text(s2, "sentence 2")
            except InputError as error:
                raise InputError(f"row {row}: empty sentence; {error}") from None
            cut += ("cut to" in note1) + ("cut to" in note2)
            cleaned += bool("control" in note1 or "control" in note2)
            labels.append(math.nan if label_index is None else _parse_label(fields[label_index], scheme, row))
            sentences1.append(s1)
            sentences2.append(s2)
    except csv.Error as exc:
        if "field limit" in str(exc):
            raise InputError(f"{path.name}, line {reader.line_num}: a field is longer than {csv.field_size_limit():,} "
                             f"characters; sentences may have up to {MAX_SENTENCE_CHARS:,}") from None
        raise InputError(f"{path.name} is not a well-formed CSV/TSV file (line {reader.line_num}: {exc})") from None
    except StopIteration:
        raise InputError(f"file {path.name!r} is empty; expected a header row and sentence pairs") from None
    if not labels:
        raise InputError(f"{path.name} has a header but no sentence pairs")
    notes = []
    if cut:
        notes.append(f"{cut} sentence{'s' if cut != 1 else ''} cut to {MAX_SENTENCE_CHARS:,} characters")
    if cleaned:
        notes.append(f"control characters removed in {cleaned} row{'s' if cleaned != 1 else ''}")
    return PairSet(path.name, sentences1, sentences2, labels, scheme, "; ".join(notes))


def write_pairs(pairs: PairSet, path) -> Path:
    """Write ``pairs`` as a CSV (sentence1, sentence2, label) that :func:`load_csv` reads back.

    Written to a temporary sibling first and renamed, so a crash never leaves half a file.
    """
    path = Path(path)
    with atomic_write(path, newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["sentence1", "sentence2", "label"])
        writer.writerows(zip(pairs.sentences1, pairs.sentences2, (str(float(x)) for x in pairs.labels)))
    return path


# ----------------------------------------------------------------------------------------------
# Training data and the leakage filter (paper Appendix A)


def _pair_key(a: str, b: str) -> tuple[str, str]:
    """Order-free key of a pair, so (a, b) and (b, a) match; compared on stripped exact text."""
    a, b = a.strip(), b.strip()
    return (a, b) if a <= b else (b, a)


def filter_leakage(train: PairSet, test_sets: list[PairSet]) -> tuple[PairSet, int]:
    """Drop every training pair whose two sentences form a test pair (either order).

    A pair sharing only one sentence with a test pair is kept. Returns (kept pairs, removed count).
    """
    test_keys = {_pair_key(a, b) for test in test_sets for a, b in zip(test.sentences1, test.sentences2)}
    keep = [i for i, (a, b) in enumerate(zip(train.sentences1, train.sentences2)) if _pair_key(a, b) not in test_keys]
    return train.select(keep), len(train) - len(keep)


def _filtered_tune_parts(source: str) -> dict[str, tuple[PairSet, int]]:
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
        for name, (kept, removed) in _filtered_tune_parts(source).items()
    }


def snli_dev_split(held_out: int = SNLI_HELD_OUT, train_pairs: int | None = None,
                   source="auto") -> tuple[PairSet, PairSet]:
    """SNLI dev as (training pairs, held-out selection pairs), split by a fixed permutation so the held-out
    pairs are spread over the file and the same for every run; ``train_pairs`` keeps a fixed random sample of
    N training pairs. Each part keeps the file's order. SNLI test stays unseen: it is the test set."""
    dev = load_snli("dev", source)
    order = np.random.default_rng(SNLI_SPLIT_SEED).permutation(len(dev))
    train = order[held_out:] if train_pairs is None else order[held_out:held_out + train_pairs]
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
    _check_choice("dev data", key, DEV_DATA)
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
                f"training data {key!r} uses the {own.name} label scheme ({', '.join(own.categories)}), not "
                f"{scheme.name}"
            )
        if key == "stsb":
            return load_stsb("train", source)
        if key == "sick":
            return load_sick("train", source)
        if key == "nli":
            return load_nli(source=source)
        if key == "snli-train":
            return snli_dev_split(source=source)[0]
        parts = _filtered_tune_parts(source)
        removed = sum(count for _, count in parts.values())
        return PairSet.concat([kept for kept, _ in parts.values()], f"stsb+sick (filtered, -{removed})")
    path = Path(str(name)).expanduser()
    if path.suffix.lower() not in (".csv", ".tsv", ".tab", ".txt") and not path.is_file():
        raise InputError(
            f"unknown training data {name!r}; use one of {', '.join(TRAINING_DATA)} or a path to a .csv/.tsv file"
        )
    if scheme is None:
        raise InputError(f"training file {path.name!r} needs a label scheme (sts, nli or your own categories)")
    return load_csv(path, scheme)
