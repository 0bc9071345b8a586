"""The app as a lesson, without a browser: the start-here path, the Score tab's gold label and custom-list
notices, the scored file's node column and summary, the Loss explorer's bands and formulas, and the Benchmark
tab's plain readings, paper rows, legend and axis (issue 27). The layout cases are in test_browser.py."""

from __future__ import annotations

import re

import pytest

from stsdemo import claims_text
from stsdemo.app import lesson, links
from stsdemo.app.benchmark import evidence_view
from stsdemo.app.score import view as score_view
from stsdemo.evidence import Claim, ClaimLine
from stsdemo.labels import get_scheme
from stsdemo.scoring import label_summary
from stsdemo.story import plain

# ---- the start-here path ------------------------------------------------------------------------------------


def test_every_start_here_step_is_a_link_that_opens_its_tab_without_a_notice():
    assert [step.tab for step in lesson.STEPS] == [
        "loss",
        "playground",
        "score",
        "train",
    ]  # the order
    assert all(step.tab in links.TABS for step in lesson.STEPS)
    for step in lesson.STEPS:
        restored = links.parse(step.query)
        assert (restored.tab, restored.notices) == (step.tab, []), step.query
    for language, benchmark in (("en", "[Benchmark](?tab=bench)"), ("zh", "[基准测试](?tab=bench)")):
        text = lesson.start_markdown(language)
        assert all(f"]({step.query})" in text for step in lesson.STEPS) and benchmark in text
        for step in lesson.STEPS:  # the question first, the answer and its reveal in a closed fold after it
            asked = text.index(plain(getattr(step.story.question.ask, language))[:20])
            fold = text.index("<details><summary>", asked)
            assert asked < fold < text.index(plain(getattr(step.story.reveal, language))[:20], fold)


# ---- Score a pair ------------------------------------------------------------------------------------------


def test_a_gold_label_from_another_line_or_off_the_line_is_not_drawn_and_says_why():
    sts, nli = get_scheme("sts"), get_scheme("nli")
    assert score_view.gold_on_line(0.6, score_view.STS_LINE, sts) == (0.6, "")
    drawn, note = score_view.gold_on_line(0.6, score_view.STS_LINE, nli)  # an STS example's gold on NLI
    assert (
        drawn is None and "0.6 not drawn" in note and "0 … 5" in note and "contradiction … entailment" in note
    )
    drawn, note = score_view.gold_on_line(3.5, None, nli)  # off the NLI line
    assert drawn is None and "runs from 0 (contradiction) to 2 (entailment)" in note
    assert score_view.gold_on_line(None, score_view.STS_LINE, nli) == (None, "")


def test_the_score_tabs_notes_are_said_in_the_visitors_language():
    sts, nli = get_scheme("sts"), get_scheme("nli")
    _, english = score_view.gold_on_line(0.6, score_view.STS_LINE, nli)
    _, chinese = score_view.gold_on_line(0.6, score_view.STS_LINE, nli, "zh")
    assert "not drawn" in english and "未画出金标 0.6" in chinese
    assert score_view.beyond_note(-1.49, "0", sts, "zh").startswith("↔ **预测值 -1.49 落在标签线之外**")
    relabel = score_view.relabel_note(sts, get_scheme("bad, fair, good"), "zh")
    assert "从 0.5 起为 fair" in relabel and "从 1.5 起为 good" in relabel and "bad" in relabel


def test_a_custom_list_read_against_the_sts_scorer_says_it_only_relabels_and_where_each_category_starts():
    note = score_view.relabel_note(get_scheme("sts"), get_scheme("bad, fair, good"))
    assert "was not trained on it" in note and "0 … 5" in note
    assert (
        "bad below 0.5" in note
        and "fair from 0.5" in note
        and "good from 1.5" in note
        and "Fine-tune" in note
    )


def test_the_score_view_drops_a_gold_label_given_on_another_line(app_state):
    view = score_view.score_view(
        app_state,
        "lesson",
        "default",
        "A man plays.",
        "A man is playing.",
        score_view.SCHEMES["custom"],
        "low, high",
        1.0,
        gold=0.6,
        gold_line=score_view.STS_LINE,
    )
    assert view.gold_dropped and "not drawn" in view.notice and view.line == ["low", "high", 1.0]
    assert not any(str(trace.name).startswith("gold") for trace in view.figure.data)
    kept = score_view.score_view(
        app_state,
        "lesson",
        "default",
        "A man plays.",
        "A man is playing.",
        score_view.SCHEMES["sts"],
        gold=0.6,
        gold_line=score_view.STS_LINE,
    )
    assert not kept.gold_dropped and any(str(t.name) == "gold label 0.6" for t in kept.figure.data)


def test_a_scored_file_has_the_node_and_with_labels_a_spearman_and_on_node_summary(app_state, tmp_path):
    pairs = tmp_path / "pairs.csv"
    pairs.write_text(
        "sentence1,sentence2,score\nA man plays a guitar.,A man plays a guitar.,5\n"
        "A cat sleeps.,A dog runs in the park.,0.4\nA man is cycling.,A man rides a bike.,4.2\n",
        encoding="utf-8",
    )
    out, rows, summary = score_view.score_file_view(
        app_state, "lesson", "default", str(pairs), score_view.SCHEMES["sts"]
    )
    assert list(rows.columns) == [
        "sentence1",
        "sentence2",
        "label",
        "prediction",
        "category",
        "node",
        "cosine",
    ]
    assert all(float(node) == float(category) for node, category in zip(rows["node"], rows["category"]))
    assert re.search(
        r"3 labelled pairs: Spearman -?\d+\.\d\d \(x100, prediction vs label\); \d+\.\d% on", summary
    )
    unlabelled = tmp_path / "plain.csv"
    unlabelled.write_text("sentence1,sentence2\nA man plays.,A man is playing.\n", encoding="utf-8")
    out, rows, summary = score_view.score_file_view(
        app_state, "lesson", "default", str(unlabelled), score_view.SCHEMES["sts"]
    )
    assert "node" in rows.columns and "label" not in rows.columns and summary == ""


def test_label_summary_counts_the_pairs_on_their_labels_node():
    sts = get_scheme("sts")
    line = label_summary([0, 2.4, 4.6, float("nan")], [0.2, 2.6, 4.7, 1.0], sts)  # nodes 0, 3, 5 for 0, 2, 5
    assert line.startswith("3 labelled pairs: Spearman 100.00") and "66.7% on the label's node" in line
    assert (
        "not defined" in label_summary([3, 3], [1, 2], sts) and label_summary([float("nan")], [1], sts) == ""
    )


# ---- links ------------------------------------------------------------------------------------------------


def test_a_link_notice_writes_comparisons_in_words():
    notice = links.parse("?tab=score&scheme=custom&categories=a,b&gap=0").notices[0]
    assert notice.startswith("gap d must be more than 0") and "›" not in notice


# ---- the Benchmark tab -------------------------------------------------------------------------------------


def test_each_claim_has_a_plain_reading_and_c6_says_what_it_measured():
    found = evidence_view.load_evidence()
    text = claims_text.claims_markdown(found)
    assert "mean ± se (standard error)" in text and text.count("*In plain words:*") == len(found.claims)
    c6 = next(claim for claim in found.claims if claim.claim == "C6")
    what, figure, reading = claims_text.memory_reading(c6)
    assert "batch 16" in what and "batch 512" in what and "less memory" in figure
    assert "far below half" not in text and "holds in direction" not in text
    assert "each run at its usual batch size (16 and 512)" in reading and "about half" in reading
    assert "sd" in evidence_view.SPREADS and "standard deviation" in evidence_view.SPREADS


def test_plain_reading_counts_each_verdict_and_highlights_the_largest_marked_difference():
    line = dict(a="a", b="b", diffs=[1, 1, 1], se=0.1, n=3, metric="7-task Avg.")
    claim = Claim(
        "C2",
        "the buffer zone helps",
        "mixed",
        "3",
        [
            ClaimLine(test="one", mean=1.0, verdict="holds", **line),
            ClaimLine(test="two", mean=-2.5, verdict="reversed", **line),
            ClaimLine(test="three", mean=0.02, verdict="negligible", **line),
            ClaimLine(test="four", mean=-3.0, verdict="no measurable difference", **line),
        ],
    )
    reading = claims_text.plain_reading(claim)
    assert reading.startswith(claims_text.QUESTIONS["C2"])
    assert "Of 4 comparisons: yes in 1, the opposite in 1, a difference too small to matter in 1" in reading
    assert "no measurable difference in 1" in reading and "beyond the seed-to-seed noise" not in reading
    # -3.0 is larger but marked nothing: the highlight is the largest difference the rule marked
    assert "Largest marked difference: two, -2.50 points (7-task Avg.; reversed)" in reading
    unmarked = Claim("C5", "head", "no measurable difference", "3", claim.lines[2:])
    assert (
        "Largest difference: four, -3.00 points (7-task Avg.; no measurable difference)"
        in claims_text.plain_reading(unmarked)
    )


def test_the_papers_reported_rows_are_labelled_as_the_papers():
    frame = evidence_view.paper_frame()
    rows = {row["encoder (paper)"]: row for row in frame.to_dict("records")}
    assert rows["BERT-base"]["Smooth K2"] == "76.03" and rows["BERT-base"]["Sentence-BERT"] == "74.89"
    assert rows["RoBERTa-base"]["L1"] == "67.70" and rows["BERT-base"]["source"] == "Zhang & Li 2024, Table 1"
    assert rows["Jina embeddings v2 (base)"]["no training"] == "82.00"
    assert rows["Nomic embed v1"]["Smooth K2"] == "82.83" and rows["Nomic embed v1"]["L1"] == "–"
    assert (
        "not run here" in evidence_view.paper_reading()
        and "Smooth K2 − MSE +1.25" in evidence_view.paper_reading()
    )


def test_the_evidence_charts_have_a_legend_full_names_and_say_where_the_axis_starts():
    found = evidence_view.load_evidence()
    for task in (evidence_view.STS, evidence_view.NLI):
        figure = evidence_view.evidence_figure(found, task)
        legend = [trace.name for trace in figure.data if trace.name]
        assert legend == ["buffer-zone loss (Smooth K2, Translated ReLU)", "other losses and baselines"]
        start = figure.layout.xaxis.range[0]
        reading = figure.layout.title.subtitle.text
        assert f"the axis starts at {start}, not 0" in reading and "± sd over seeds" in reading
        ticks = list(figure.data[0].y)
        assert len(ticks) == len(set(ticks)) and not any(re.fullmatch(r"[a-z0-9+-]+", t) for t in ticks)
    names = evidence_view.evidence_figure(found, evidence_view.STS).data[0].y
    assert any("two-stage (paper recipe)" in name.replace("<br>", " ") for name in names)


def test_the_apps_table_shows_the_full_name_with_the_code_in_small_type_escaped():
    found = evidence_view.load_evidence()
    frame = evidence_view.evidence_frame(found, {"<b>mine</b>": {"Avg.": 79.0}}, markup=True)
    cells = list(frame["arm"])
    assert "ours: Smooth K2, cosine target<br><small><code>sk2-cosine</code></small>" in cells
    assert cells[-1] == "&lt;b&gt;mine&lt;/b&gt;<br><small><code>evaluated here</code></small>"
    assert evidence_view.evidence_frame(found)["arm"][1].endswith("(sk2-2stage)")  # the docs' plain form


@pytest.fixture(scope="module")
def app_state():
    from stsdemo.app.app_state import AppState

    return AppState()
