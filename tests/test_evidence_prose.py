"""docs/evidence.md's prose says what its verdict block and the Benchmark tab say (issue 38): every paired figure
and verdict word in it is read back from the page and checked against the verdicts recomputed from
docs/results.json under stsdemo.paired's rule, and against the app's shipped evidence."""

from __future__ import annotations

import pytest

from bench.common import load_results
from bench.evidence import evidence_prose, report
from stsdemo.app.benchmark import evidence_view, tuning_view


@pytest.fixture(scope="module")
def recomputed():
    return evidence_prose.lines_by_ref(load_results())


def _page_prose() -> str:
    page = report.EVIDENCE_MD.read_text(encoding="utf-8")
    return page.split(evidence_prose.BEGIN, 1)[1].split(evidence_prose.END, 1)[0]


def test_the_page_prose_is_what_the_records_give():
    assert _page_prose().strip() == evidence_prose.prose(load_results()).strip(), (
        "stale prose in docs/evidence.md: run python -m bench.evidence.report"
    )


def test_every_verdict_word_in_the_prose_is_the_recomputed_verdict_of_its_figure(recomputed):
    read = [found.groupdict() for found in evidence_prose.FIGURE.finditer(_page_prose())]
    assert len(read) == len(evidence_prose.REFS)  # each named comparison once, each with its verdict
    for found in read:
        same = [
            line
            for line in recomputed.values()
            if (f"{line['mean']:+.2f}", f"{line['se']:.2f}", line["n"])
            == (found["mean"], found["se"], int(found["n"]))
        ]
        assert same, found
        assert {line["verdict"] for line in same} == {found["verdict"]}, found


def test_the_prose_the_block_and_the_tab_give_each_comparison_one_verdict(recomputed):
    shipped = {
        (claim.claim, line.test): line.verdict
        for claim in evidence_view.load_evidence().claims
        for line in claim.lines
    }
    tuned = {
        (f"{evidence_prose.TUNED} {claim['claim']}", line["test"]): line["verdict"]
        for claim in tuning_view.load_tuning()["claims"]
        if claim["encoder"] == "all-MiniLM-L6-v2"
        for line in claim["lines"]
    }
    for ref, key in evidence_prose.REFS.items():
        assert {**shipped, **tuned}[key] == recomputed[ref]["verdict"], ref


def test_the_tuned_arms_paragraph_quotes_the_tuned_buffer_comparisons_as_recorded(recomputed):
    page = report.EVIDENCE_MD.read_text(encoding="utf-8")  # the paragraph left the README (issue 50)
    paragraph = page[page.index("**With every arm on one learning-rate grid**") :].split("\n\n", 1)[0]
    paragraph = " ".join(paragraph.split())  # wrapped lines read as one
    for ref, (claim, _) in evidence_prose.REFS.items():
        if claim.startswith(evidence_prose.TUNED):
            line = recomputed[ref]
            figure = f"{line['mean']:+.2f} ± {line['se']:.2f}".replace("-", "−")
            assert figure in paragraph and str(line["verdict"]) in paragraph, ref
