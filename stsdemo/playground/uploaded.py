"""A visitor's own labelled sentence pairs as a Playground data set, complete or refused with one clear line.

The file is a CSV or TSV with a header row, read by the same rules as the Score tab's files
(:func:`stsdemo.data.user_files.read_rows`: the columns found by name, sentences cleaned, the same messages). It
may hold at most :data:`MAX_UPLOAD_PAIRS` pairs (and :data:`MAX_UPLOAD_BYTES`, checked before it is read), so that
embedding its sentences stays a wait of seconds, and at least :data:`MIN_UPLOAD_PAIRS`, so that every run has a
report set, a selection set and training pairs. Every pair needs a label, no pair may appear twice (in either
order), and the labels must not all be the same.

The scale the labels sit on is named (``sts``, ``nli``, or ordered categories lowest first such as
``"bad, fair, good"``: :func:`stsdemo.labels.get_scheme`), or inferred: a file whose labels are all NLI category
names is on NLI's scale; a file of numbers is on the whole numbers from the lowest label (rounded down) to the
highest (rounded up), shifted so that the lowest is node 0 and each node named by its own number (a 1-5 file:
categories "1" to "5" on nodes 0 to 4). Anything else is refused: category names other than NLI's need the
scale named, since their order cannot be guessed.

Like the built-in sets, a report set is held out of the file (:data:`REPORT_SHARE` of it, at least
:data:`REPORT_MIN` pairs), chosen by a fixed permutation, so the same file always splits the same way; the rest is
the pool a run draws its training and selection pairs from (the engine's `splitSizes`). The data set's
``name`` is a key of its content (pairs and scale), so the embedding cache and the app know a file again whatever
it is called; its ``title`` is the file's name.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass

import numpy as np

from ..data.pairs import PairSet
from ..data.user_files import UserRows, parse_label, read_rows
from ..errors import InputError
from ..labels import NLI, LabelScheme, get_scheme
from .config import MAX_UPLOAD_PAIRS, SELECTION_MIN
from .datasets import PlaygroundData, index_pairs

INFER = "infer"  # the scale argument that infers the scale from the labels
MAX_UPLOAD_BYTES = 5 * 1024 * 1024  # 1 KB a pair on average: far above what 5,000 sentence pairs need
REPORT_SHARE = 0.2  # the share of a file held out as its report set ...
REPORT_MIN = 50  # ... never fewer pairs (a Spearman on a handful of pairs is noise)
MIN_TRAINING_PAIRS = 100  # the fewest training pairs a run of the smallest file draws
# 200; a file this small holds out REPORT_MIN pairs (its REPORT_SHARE is fewer), so its pool of 150 gives
# split_sizes a selection set of SELECTION_MIN and MIN_TRAINING_PAIRS to train on
MIN_UPLOAD_PAIRS = REPORT_MIN + SELECTION_MIN + MIN_TRAINING_PAIRS
MAX_INFERRED_NODES = 11  # a 0-10 scale; more whole numbers are likely a 0-100 score to rescale
SPLIT_SEED = 0  # the fixed permutation that picks every file's report set


@dataclass(frozen=True)
class UploadedData:
    """An uploaded file as a Playground data set: the data, one sentence saying what its scale is and how it
    was found, and what cleaning its sentences changed ('' if nothing)."""

    data: PlaygroundData
    scale_text: str
    notice: str


def load_uploaded_pairs(path, scale: str | None = INFER) -> UploadedData:
    """The labelled pairs of the CSV/TSV file at ``path`` as a Playground data set, its labels on ``scale``
    (:data:`INFER`, None or blank: inferred from the labels; else what :func:`~stsdemo.labels.get_scheme`
    reads). Raises one :class:`InputError` for anything the file lacks; nothing is half-loaded."""
    chosen = None if _infers(scale) else get_scheme(scale)
    read = read_rows(path, max_rows=MAX_UPLOAD_PAIRS, max_bytes=MAX_UPLOAD_BYTES)
    texts = [text.strip() for text in read.labels]
    _refuse_empty_labels(texts, read.rows)
    _refuse_repeated_pairs(read)
    _refuse_too_few(read)
    scheme, labels, scale_text = _scale(texts, read.rows, chosen, read.file_name)
    pairs = PairSet(read.file_name, read.sentences1, read.sentences2, labels, scheme)
    pool, report = split_report(pairs)
    sentences, train_index, held_index = index_pairs(pool, report)
    data = PlaygroundData(content_key(pairs), sentences, train_index, held_index, scheme, read.file_name)
    return UploadedData(data, scale_text, read.notice)


def _infers(scale: str | None) -> bool:
    return scale is None or str(scale).strip().lower() in ("", INFER)


def report_size(pairs: int) -> int:
    """How many of a file's ``pairs`` are held out as its report set."""
    return max(REPORT_MIN, round(REPORT_SHARE * pairs))


def split_report(pairs: PairSet) -> tuple[PairSet, PairSet]:
    """The pool and the report set of ``pairs``, each in file order: the report set is the first
    :func:`report_size` positions of a permutation that depends on the number of pairs alone."""
    order = np.random.default_rng(SPLIT_SEED).permutation(len(pairs))
    held = report_size(len(pairs))
    return pairs.select(np.sort(order[held:])), pairs.select(np.sort(order[:held]))


def content_key(pairs: PairSet) -> str:
    """``upload:`` and 12 hex digits of the sha256 of the pairs, their labels and scale, in file order."""
    content = {
        "scheme": pairs.scheme.to_dict(),
        "pairs": list(zip(pairs.sentences1, pairs.sentences2, pairs.labels.tolist())),
    }
    digest = hashlib.sha256(json.dumps(content, ensure_ascii=False).encode("utf-8"))
    return "upload:" + digest.hexdigest()[:12]


def _refuse_empty_labels(texts: list[str], rows: list[int]) -> None:
    for text, row in zip(texts, rows):
        if not text:
            raise InputError("upload_label_empty", row=row)


def _refuse_repeated_pairs(read: UserRows) -> None:
    """A pair that appears twice could land in both the report set and the pool: a run would be measured on
    what it trained on."""
    first_row = {}
    for s1, s2, row in zip(read.sentences1, read.sentences2, read.rows):
        pair = (s1, s2) if s1 <= s2 else (s2, s1)
        if pair in first_row:
            raise InputError("upload_duplicate_pair", first_row=first_row[pair], row=row)
        first_row[pair] = row


def _refuse_too_few(read: UserRows) -> None:
    if len(read.rows) < MIN_UPLOAD_PAIRS:
        raise InputError(
            "upload_too_few_pairs",
            file_name=read.file_name,
            n_rows=len(read.rows),
            min_upload_pairs=MIN_UPLOAD_PAIRS,
            report_min=REPORT_MIN,
            selection_min=SELECTION_MIN,
            min_training_pairs=MIN_TRAINING_PAIRS,
        )


def _scale(
    texts: list[str], rows: list[int], chosen: LabelScheme | None, file_name: str
) -> tuple[LabelScheme, list[float], str]:
    """The scheme of the labels, each label as a node of it, and the sentence saying how the scheme was found:
    ``chosen``, named by the file (NLI's categories), or inferred from the numbers."""
    named = chosen or (NLI if all(_is_category(text, NLI) for text in texts) else None)
    values = (
        [parse_label(text, named, row) for text, row in zip(texts, rows)] if named else _numbers(texts, rows)
    )
    if len(set(values)) == 1:
        raise InputError("upload_one_label", file_name=file_name, texts=repr(texts[0]))
    if chosen:
        return chosen, values, f"Scale chosen ({chosen.name}): {_on_nodes(chosen)}."
    if named:
        return named, values, f"Scale named by the file: its labels are NLI's {_on_nodes(named)}."
    return _whole_number_scale(values)


def _is_category(text: str, scheme: LabelScheme) -> bool:
    return text.lower() in (name.lower() for name in scheme.categories)


def _numbers(texts: list[str], rows: list[int]) -> list[float]:
    """Each label as the number it writes; a name or an infinite number is refused (the scale is not named)."""
    numbers = []
    for text, row in zip(texts, rows):
        try:
            number = float(text)
        except ValueError:
            raise InputError("upload_label_not_number", row=row, text=repr(text)) from None
        if not math.isfinite(number):
            raise InputError("upload_label_not_finite", row=row, text=repr(text))
        numbers.append(number)
    return numbers


def _whole_number_scale(numbers: list[float]) -> tuple[LabelScheme, list[float], str]:
    """The whole numbers from the lowest label (rounded down) to the highest (rounded up) as categories on nodes
    0, 1, ..., each label shifted with them."""
    low, high = math.floor(min(numbers)), math.ceil(max(numbers))
    if high - low + 1 > MAX_INFERRED_NODES:
        raise InputError(
            "upload_scale_too_wide",
            min=f"{min(numbers):g}",
            max=f"{max(numbers):g}",
            count=high - low + 1,
            max_inferred_nodes=MAX_INFERRED_NODES,
        )
    scheme = LabelScheme("inferred", tuple(str(node) for node in range(low, high + 1)))
    shift = f", each label minus {low}" if low > 0 else (f", each label plus {-low}" if low < 0 else "")
    return (
        scheme,
        [number - low for number in numbers],
        (
            f"Scale inferred from the labels ({min(numbers):g} to {max(numbers):g}): {_on_nodes(scheme)}{shift}."
        ),
    )


def _on_nodes(scheme: LabelScheme) -> str:
    return f"categories {', '.join(scheme.categories)} on nodes 0 to {len(scheme.categories) - 1}"
