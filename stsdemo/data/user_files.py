"""A user's CSV/TSV file of sentence pairs: read with its columns found by name, checked row by row, and written
back."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..atomic import atomic_write
from ..errors import InputError, Text
from ..labels import LabelScheme
from .pairs import MAX_SENTENCE_CHARS, PairSet, clean_text

# Header names read_rows recognises (compared lower-cased, spaces and dashes read as underscores).
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
MAX_FILE_BYTES = 200 * 1024 * 1024  # a user's CSV/TSV larger than this is refused before it is read


def _megabytes(size: int) -> str:
    return f"{size / 1024 / 1024:.1f} MB" if size >= 1024 * 1024 else f"{size / 1024:.1f} KB"


def _decode_user_file(path: Path, max_bytes: int | None = MAX_FILE_BYTES) -> str:
    if not path.is_file():
        raise InputError("file_not_found", path=repr(str(path)))
    size = path.stat().st_size
    if max_bytes is not None and size > max_bytes:
        raise InputError(
            "file_too_large", path=repr(path.name), size=_megabytes(size), limit=_megabytes(max_bytes)
        )
    raw = path.read_bytes()
    if not raw.strip():
        raise InputError("file_empty", path=repr(path.name))
    if b"\x00" in raw[:8192]:
        raise InputError("file_binary", path=repr(path.name))
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError("file_not_utf8", path=repr(path.name), start=exc.start) from None


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
        raise InputError("no_such_column", name=repr(name), listed=", ".join(repr(h) for h in header))
    return header_keys.index(key)


def _sentence_columns(header_keys, header, sentence1, sentence2) -> tuple[int, int]:
    if sentence1 is not None or sentence2 is not None:
        if sentence1 is None or sentence2 is None:
            raise InputError("name_both_columns")
        return _column(header_keys, header, sentence1), _column(header_keys, header, sentence2)
    for name1, name2 in SENTENCE_COLUMN_PAIRS:
        if name1 in header_keys and name2 in header_keys:
            return header_keys.index(name1), header_keys.index(name2)
    accepted = ", ".join(f"{a}/{b}" for a, b in SENTENCE_COLUMN_PAIRS)
    raise InputError("no_sentence_columns", listed=", ".join(repr(h) for h in header), accepted=accepted)


def _label_column(header_keys, header, label) -> int:
    if label is not None:
        return _column(header_keys, header, label)
    for name in LABEL_COLUMNS:
        if name in header_keys:
            return header_keys.index(name)
    raise InputError(
        "no_label_column", listed=", ".join(repr(h) for h in header), label_columns=", ".join(LABEL_COLUMNS)
    )


def parse_label(text: str, scheme: LabelScheme, row: int) -> float:
    """A category name of ``scheme`` (checked first) or a number on its line within [low, high]."""
    value = text.strip()
    allowed = Text(
        "label_allowed",
        low=f"{scheme.low:g}",
        high=f"{scheme.high:g}",
        categories=", ".join(scheme.categories),
    )
    if not value:
        raise InputError("label_empty_expected", row=row, allowed=allowed)
    if any(value.lower() == name.lower() for name in scheme.categories):
        return scheme.node_of(value)
    try:
        number = float(value)
    except ValueError:
        raise InputError("label_not_allowed", row=row, value=repr(value), allowed=allowed) from None
    if not math.isfinite(number):
        raise InputError("label_not_finite_expected", row=row, value=repr(value), allowed=allowed)
    if not scheme.low <= number <= scheme.high:
        raise InputError(
            "label_outside",
            row=row,
            value=repr(value),
            low=f"{scheme.low:g}",
            high=f"{scheme.high:g}",
            scheme=scheme.name,
        )
    return number


@dataclass(frozen=True)
class UserRows:
    """The pairs of a user's file as read: cleaned sentences, each pair's label (as ``read_label`` gave it: by
    default the text the file holds; ``labels`` is None for a file without a label column), the row each pair
    came from (data rows counted from 1, blank lines included) and ``notice``, what cleaning changed."""

    file_name: str
    sentences1: list[str]
    sentences2: list[str]
    labels: list | None
    rows: list[int]
    notice: str


def label_as_written(text: str, row: int) -> str:
    """The label text a file holds, unparsed (:func:`read_rows`'s default)."""
    return text


def read_rows(
    path,
    sentence1=None,
    sentence2=None,
    label=None,
    max_rows: int = 200_000,
    require_label: bool = True,
    max_bytes: int | None = MAX_FILE_BYTES,
    read_label: Callable[[str, int], object] = label_as_written,
) -> UserRows:
    """The rows of a user's CSV or TSV file with a header row: the one set of rules every reader of such files
    follows (:func:`load_csv`, the Playground's uploads).

    Columns are found by name (see ``SENTENCE_COLUMN_PAIRS`` and ``LABEL_COLUMNS``) unless given. With
    ``require_label=False`` a file without a label column loads (``labels`` None). ``read_label(text, row)``
    turns each label's text into the value kept, row by row, so a bad label is reported where the file has it.
    Row numbers in messages count data rows from 1 (the header is not a row). Anything wrong raises
    :class:`InputError`. Limits, checked as early as possible: ``max_bytes`` before the file is read,
    ``max_rows`` while it is parsed. Sentences are cleaned as :func:`clean_text` does.
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
        sentences1, sentences2, labels, rows = [], [], [], []
        cut = cleaned = 0
        for row, fields in enumerate(reader, start=1):
            if not any(f.strip() for f in fields):
                continue  # blank line
            if len(rows) >= max_rows:
                raise InputError("file_too_many_rows", path=path.name, max_rows=max_rows)
            if len(fields) != len(header):
                raise InputError("row_fields", row=row, n_fields=len(fields), n_header=len(header))
            s1, s2 = _unmarked(fields[first].strip()), _unmarked(fields[second].strip())
            if not s1 or not s2:
                raise InputError("row_empty_sentence", row=row)
            try:
                (s1, note1), (s2, note2) = clean_text(s1, "sentence 1"), clean_text(s2, "sentence 2")
            except InputError as error:
                raise InputError("row_empty_sentence_because", row=row, error=error) from None
            cut += ("cut to" in note1) + ("cut to" in note2)
            cleaned += bool("control" in note1 or "control" in note2)
            if label_index is not None:
                labels.append(read_label(fields[label_index], row))
            sentences1.append(s1)
            sentences2.append(s2)
            rows.append(row)
    except csv.Error as exc:
        if "field limit" in str(exc):
            raise InputError(
                "field_too_long",
                path=path.name,
                line_num=reader.line_num,
                field_size_limit=f"{csv.field_size_limit():,}",
                max_sentence_chars=f"{MAX_SENTENCE_CHARS:,}",
            ) from None
        raise InputError("file_malformed", path=path.name, line_num=reader.line_num, exc=exc) from None
    except StopIteration:
        raise InputError("file_empty", path=repr(path.name)) from None
    if not rows:
        raise InputError("file_no_pairs", path=path.name)
    notes = []
    if cut:
        notes.append(f"{cut} sentence{'s' if cut != 1 else ''} cut to {MAX_SENTENCE_CHARS:,} characters")
    if cleaned:
        notes.append(f"control characters removed in {cleaned} row{'s' if cleaned != 1 else ''}")
    return UserRows(
        path.name, sentences1, sentences2, labels if label_index is not None else None, rows, "; ".join(notes)
    )


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
    """Sentence pairs from a user's CSV or TSV file with a header row, read by :func:`read_rows` (its columns,
    limits and messages), each label a category name of ``scheme`` or a number on its line
    (:func:`parse_label`). With ``require_label=False`` (files to be scored) a file without a label column loads
    with NaN labels. ``notice`` on the result says what cleaning changed. Anything wrong raises
    :class:`InputError`.
    """
    read = read_rows(
        path,
        sentence1,
        sentence2,
        label,
        max_rows,
        require_label,
        max_bytes,
        read_label=lambda text, row: parse_label(text, scheme, row),
    )
    labels = read.labels if read.labels is not None else [math.nan] * len(read.rows)
    return PairSet(read.file_name, read.sentences1, read.sentences2, labels, scheme, read.notice)


FORMULA_LEADS = ("=", "+", "-", "@", "\t", "\r")  # a cell beginning so is a formula to a spreadsheet


def spreadsheet_cell(text: str) -> str:
    """A text cell of a CSV the app writes, as a spreadsheet shows it and never runs it (OWASP's CSV injection
    rule): one beginning with a formula's lead gets a leading apostrophe, which spreadsheets read as "text" and
    do not show. A number (``-0.5``) stays as it is; :func:`read_rows` takes the apostrophe off again."""
    if not text.startswith(FORMULA_LEADS):
        return text
    try:
        float(text)
        return text
    except ValueError:
        return "'" + text


def _unmarked(text: str) -> str:
    """A cell as it was before :func:`spreadsheet_cell` marked it."""
    return text[1:] if text.startswith("'") and text[1:].startswith(FORMULA_LEADS) else text


def write_pairs(pairs: PairSet, path) -> Path:
    """Write ``pairs`` as a CSV (sentence1, sentence2, label) that :func:`load_csv` reads back, each sentence a
    :func:`spreadsheet_cell`.

    Written to a temporary sibling first and renamed, so a crash never leaves half a file.
    """
    path = Path(path)
    with atomic_write(path, newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["sentence1", "sentence2", "label"])
        writer.writerows(
            zip(
                map(spreadsheet_cell, pairs.sentences1),
                map(spreadsheet_cell, pairs.sentences2),
                (str(float(x)) for x in pairs.labels),
            )
        )
    return path
