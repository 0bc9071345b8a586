"""Verdicts and run outcomes are types (issue 41): :class:`stsdemo.verdict.Verdict` and its claim-level
:class:`~stsdemo.verdict.Combined`, and :class:`stsdemo.events.Outcome`. Outside their modules no code compares a
verdict or an outcome with its words (``== "holds"``, ``in ("stopped", "failed")``, ``.startswith("mixed")``): a
reworded verdict would leave such a reader silently matching nothing. Read from the source, as the Gradio seam's
rule is (tests/test_gradio_seam.py), so a new file is checked with no change here."""

from __future__ import annotations

import ast
from pathlib import Path

from stsdemo.events import Outcome
from stsdemo.verdict import MIXED, ONE_SEED_ONLY, WHERE_SEEDS, Verdict

ROOT = Path(__file__).resolve().parent.parent
HOMES = {ROOT / "stsdemo" / "verdict.py", ROOT / "stsdemo" / "events.py"}  # where the words are declared
WORDS = {
    *(verdict.value for verdict in Verdict),
    *(outcome.value for outcome in Outcome),
    ONE_SEED_ONLY,
    MIXED.strip(" :"),
    WHERE_SEEDS.strip(" ()"),
}
AFFIXES = ("startswith", "endswith", "removeprefix", "removesuffix")


def _python_files():
    for folder in ("stsdemo", "bench"):
        yield from sorted((ROOT / folder).rglob("*.py"))


def _word(node: ast.AST, prefix: bool = False) -> str | None:
    """The verdict or outcome word a string literal is (with ``prefix``: starts with), else None."""
    if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
        return None
    text = node.value.strip(" :()")
    return next((word for word in WORDS if text == word or (prefix and text.startswith(word))), None)


def _compared_words(node: ast.AST) -> list[str]:
    """The words a comparison or an affix test holds as literals: ``x == "holds"``, ``x in ("finished", ...)``,
    ``x.startswith("mixed")``."""
    if isinstance(node, ast.Compare):
        sides = [node.left, *node.comparators]
        literals = [
            item
            for side in sides
            for item in (side.elts if isinstance(side, (ast.Tuple, ast.List, ast.Set)) else [side])
        ]
        return [word for word in map(_word, literals) if word]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in AFFIXES:
        literals = [item for arg in node.args for item in (arg.elts if isinstance(arg, ast.Tuple) else [arg])]
        return [word for word in (_word(item, prefix=True) for item in literals) if word]
    return []


def compared_words(path: Path) -> list[tuple[int, str]]:
    """``(line, word)`` for each verdict or outcome word ``path`` compares as a string, in line order."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return sorted((node.lineno, word) for node in ast.walk(tree) for word in _compared_words(node))


def test_no_verdict_or_outcome_is_compared_as_a_string_outside_its_module():
    found = [
        f"{path.relative_to(ROOT)}:{line} compares {word!r}"
        for path in _python_files()
        if path not in HOMES
        for line, word in compared_words(path)
    ]
    assert not found, (
        "compare the type (Verdict.HOLDS, verdict.marked, Outcome.FINISHED), not its words:\n"
        + "\n".join(found)
    )


def test_the_check_sees_each_form_of_comparison(tmp_path):
    """The rule can fail: each way of comparing a word is found, and reading a type is not."""
    planted = tmp_path / "planted.py"
    planted.write_text(
        'if verdict == "holds": pass\n'
        'if outcome in ("stopped", "failed"): pass\n'
        'if "reversed" != kind: pass\n'
        'if text.startswith("mixed: "): pass\n'
        'if text.endswith(" (comparisons with 2+ seeds)"): pass\n'
        "if verdict is Verdict.HOLDS or outcome == Outcome.FINISHED: pass\n"
        'shown = {"holds": "yes"}\n',
        encoding="utf-8",
    )
    assert [word for _, word in compared_words(planted)] == [
        "holds",
        "failed",
        "stopped",
        "reversed",
        "mixed",
        "comparisons with 2+ seeds",
    ]
