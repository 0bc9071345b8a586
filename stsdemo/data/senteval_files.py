"""The SentEval file formats (STS-B, SICK, STS12-16, SNLI), read the way SentEval reads them so the evaluation
numbers match SimCSE's."""

from __future__ import annotations

from pathlib import Path

from ..errors import InputError
from ..labels import NLI, STS, sick_to_sts
from .pairs import PairSet


def _read_lines(path: Path) -> list[str]:
    """The lines of a UTF-8 text file, split as SentEval splits them (``str.splitlines``)."""
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise InputError("data_file_missing", path=path) from None
    except UnicodeDecodeError as exc:
        raise InputError("data_file_not_utf8", path=path, exc=exc) from None


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
                "data_line_fields", path=path, number=number, min_fields=min_fields, n_fields=len(fields)
            )
        rows.append(fields)
    return rows


def _parse_gold(path: Path, number: int, text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise InputError("gold_not_a_number", path=path, number=number, text=repr(text)) from None


def local_stsb(root: Path, split: str) -> PairSet:
    """``sts-<split>.csv``: column 4 the 0..5 score, columns 5 and 6 the sentences."""
    path = root / "STS" / "STSBenchmark" / f"sts-{split}.csv"
    rows = _read_tab_rows(path, min_fields=7)
    labels = [_parse_gold(path, i + 1, row[4]) for i, row in enumerate(rows)]
    return PairSet(f"STS-B {split}", [r[5].strip() for r in rows], [r[6].strip() for r in rows], labels, STS)


def local_sick(root: Path, split: str) -> PairSet:
    """``SICK_<split>.txt``: header, then pair_ID, sentence_A, sentence_B, relatedness 1..5, ..."""
    filename = "SICK_test_annotated.txt" if split == "test" else f"SICK_{split}.txt"
    path = root / "SICK" / filename
    rows = _read_tab_rows(path, min_fields=4, skip_header=True)
    relatedness = [_parse_gold(path, i + 2, row[3]) for i, row in enumerate(rows)]
    return PairSet(
        f"SICK {split}",
        [r[1].strip() for r in rows],
        [r[2].strip() for r in rows],
        sick_to_sts(relatedness),
        STS,
    )


def local_sts_year(root: Path, year: int) -> dict[str, PairSet]:
    """``STS.input.<subset>.txt`` (two sentences a line) with ``STS.gs.<subset>.txt`` (score or empty)."""
    folder = root / "STS" / f"STS{year}-en-test"
    inputs = sorted(folder.glob("STS.input.*.txt"))
    if not inputs:
        raise InputError("no_sts_files", folder=folder)
    subsets = {}
    for input_path in inputs:
        subset = input_path.name[len("STS.input.") : -len(".txt")]
        gold_path = folder / f"STS.gs.{subset}.txt"
        pairs = _read_lines(input_path)
        gold = _read_lines(gold_path)
        if len(pairs) != len(gold):
            raise InputError(
                "gold_line_count",
                input_path=input_path,
                n_pairs=len(pairs),
                gold_path=gold_path,
                n_gold=len(gold),
            )
        first, second, labels = [], [], []
        for number, (pair, score) in enumerate(zip(pairs, gold), start=1):
            if not score.strip():  # no gold score: SentEval leaves the pair out
                continue
            fields = pair.split("\t")
            if len(fields) != 2:
                raise InputError(
                    "input_line_fields", input_path=input_path, number=number, n_fields=len(fields)
                )
            first.append(fields[0].strip())
            second.append(fields[1].strip())
            labels.append(_parse_gold(gold_path, number, score))
        subsets[subset] = PairSet(f"STS{year} {subset}", first, second, labels, STS)
    return subsets


def local_snli(root: Path, split: str) -> PairSet:
    """``s1.<split>``, ``s2.<split>``, ``labels.<split>``: one item a line."""
    folder = root / "SNLI"
    first, second, names = (_read_lines(folder / f"{part}.{split}") for part in ("s1", "s2", "labels"))
    if not len(first) == len(second) == len(names):
        raise InputError(
            "split_line_counts",
            folder=folder,
            split=split,
            n_first=len(first),
            n_second=len(second),
            n_names=len(names),
        )
    labels = [NLI.node_of(name) for name in names]
    return PairSet(f"SNLI {split}", [s.strip() for s in first], [s.strip() for s in second], labels, NLI)
