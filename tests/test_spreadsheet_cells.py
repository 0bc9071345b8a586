"""Formula cells in the CSVs the app writes (issue 40): a cell a spreadsheet would run as a formula (leading =, +,
-, @, tab or carriage return) is written as text, behind a leading apostrophe; numbers stay numbers, and the
app's own reader takes the apostrophe off again."""

import csv

from stsdemo.data import load_csv, write_pairs
from stsdemo.data.pairs import PairSet
from stsdemo.data.user_files import spreadsheet_cell
from stsdemo.labels import LabelScheme
from stsdemo.scoring import score_pairs

FORMULAS = ['=cmd|" /C calc"!A0', "@SUM(A1:A9)", '+HYPERLINK("http://x","y")', "-2+3", "\t=1", "\r=1"]


def test_a_formula_cell_is_written_as_text_and_a_number_as_it_is():
    assert [spreadsheet_cell(text) for text in FORMULAS] == ["'" + text for text in FORMULAS]
    assert [spreadsheet_cell(text) for text in ("-0.5", "+3", "1e-3", "a = b", "'=x")] == [
        "-0.5",
        "+3",
        "1e-3",
        "a = b",
        "'=x",
    ]


def _rows(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


def test_the_scored_csv_neutralises_every_formula_cell(tmp_path, embedded_model):
    scheme = LabelScheme.custom(["=bad", "@fair", "good"])
    pairs = PairSet("formulas", FORMULAS[:3], ["A man plays.", "-1", "+x"], [0.0, 1.0, 2.0], scheme)
    rows = _rows(score_pairs(embedded_model, pairs, tmp_path / "scored.csv", scheme))
    cells = [cell for row in rows[1:] for cell in row]
    assert not [cell for cell in cells if cell.startswith(("=", "+", "@", "\t", "\r"))], cells
    assert rows[1][0] == "'" + FORMULAS[0] and rows[2][1] == "-1"  # a number stays a number
    assert all(row[4].startswith("'") for row in rows[1:] if row[4] != "good")


def test_written_pairs_are_safe_and_read_back_as_they_were(tmp_path):
    scheme = LabelScheme.custom(["0", "1", "2", "3", "4", "5"])
    pairs = PairSet("formulas", FORMULAS, ["fine"] * len(FORMULAS), [1.0] * len(FORMULAS), scheme)
    path = write_pairs(pairs, tmp_path / "pairs.csv")
    assert all(row[0].startswith("'") for row in _rows(path)[1:])
    back = load_csv(path, scheme)
    assert back.sentences1 == [text.strip() for text in FORMULAS]  # the reader strips a cell's outer space
