"""The page's paired rule (stsdemo/playground/web/paired.js, run by Node) reads every comparison exactly as
:mod:`stsdemo.paired` does: the same mean to the last bit (both sum exactly, as math.fsum), the same standard error
and interval to within an ulp or two (Python squares by libm's pow, within 0.52 ulp; JavaScript multiplies, exactly
rounded), the same verdict words and texts, on many random difference lists: Spearman-like and accuracy-like
differences, a few seeds to two hundred, all-equal lists, tiny effects near the margin and lists of one or none;
and it writes numbers as Python's format does (a tie rounds to even), whole numbers with the grouping of the
page's language (Intl)."""

from __future__ import annotations

import json
import math
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from stsdemo import strings
from stsdemo.paired import Paired, rule_as_data, rule_text
from stsdemo.static_site import page_strings

RUNNER = Path(__file__).parent / "js" / "run_paired.js"
WHOLES = [0, 7, 999, 1000, 12345, 1234567, -4200]
pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js")


def difference_lists(count: int = 1500) -> list[dict]:
    """Random comparisons of the kinds the Playground and the map read."""
    draw = random.Random(20240607)
    cases = [
        {"diffs": [], "metric": "spearman"},
        {"diffs": [0.3], "metric": "spearman"},
        {"diffs": [0.2] * 5, "metric": "accuracy"},
        {"diffs": [1.5, 1.5], "metric": "spearman"},
    ]
    for index in range(count):
        n = draw.choice([2, 3, 4, 5, 10, 20, 20, 20, 40, 200])
        metric = "accuracy" if index % 3 == 0 else "spearman"
        centre = draw.choice([0.0, 0.02, -0.05, 0.3, -0.8, 2.0, draw.gauss(0, 1)])
        spread = draw.choice([1e-12, 0.01, 0.05, 0.3, 1.0, 4.0])
        diffs = [centre + draw.gauss(0, spread) for _ in range(n)]
        if metric == "accuracy":  # differences of shares of 1,000 pairs: multiples of 0.1, as floats
            diffs = [
                100 * (draw.randint(600, 900) / 1000) - 100 * (draw.randint(600, 900) / 1000) + round(d, 1)
                for d in diffs
            ]
        cases.append({"diffs": diffs, "metric": metric})
    return cases


def same(ours: float, page, ulps: int = 0) -> bool:
    return (page == "NaN" and math.isnan(ours)) or abs(ours - page) <= ulps * math.ulp(ours)


def test_the_page_reads_every_comparison_as_python_does():
    cases = difference_lists()
    numbers = [
        [value, digits]
        for value in (
            0.125,
            -0.125,
            0.375,
            2.5,
            3.5,
            -0.0,
            0.001,
            -0.001,
            1234567.5,
            107.5,
            102.5,
            0.1 + 0.2,
            4.62,
            -4.625,
            1e-7,
            99.995,
        )
        for digits in (0, 1, 2, 3)
    ]
    done = subprocess.run(
        ["node", str(RUNNER)],
        input=json.dumps(
            {
                "rule": rule_as_data(200),
                "strings": page_strings(),
                "cases": cases,
                "numbers": numbers,
                "wholes": WHOLES,
            }
        ),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    answer = json.loads(done.stdout)
    verdicts = set()
    for case, page in zip(cases, answer["read"], strict=True):
        ours = Paired(case["diffs"], list(range(len(case["diffs"]))), case["metric"])
        where = f"{case['metric']} n={ours.n} diffs={case['diffs'][:4]}"
        assert same(ours.mean, page["mean"]) and same(ours.se, page["se"], ulps=4), where
        assert all(same(a, b, ulps=8) for a, b in zip(ours.interval, page["interval"])), where
        assert page["verdict"] == ours.verdict.value, where
        assert page["numbers"] == ours.numbers() and page["interval_text"] == ours.interval_text(), where
        assert page["rule_text"] == {
            language: rule_text(ours.n, case["metric"], language) for language in strings.LANGUAGES
        }, where
        verdicts.add(ours.verdict.value)
    assert verdicts >= {
        "holds",
        "reversed",
        "negligible",
        "no measurable difference",
        "one seed",
        "not measured",
    }
    for (value, digits), signed in zip(numbers, answer["written"], strict=True):
        assert signed == f"{value:+.{digits}f}", (value, digits)
    # a count (a step, pairs) in the page's language: Intl's grouping, which is Python's "," in both languages
    assert answer["counted"] == {language: [f"{n:,}" for n in WHOLES] for language in strings.LANGUAGES}
