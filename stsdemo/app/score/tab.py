"""Tab 1, *Score a pair*: one pair (or a CSV of pairs) through a scorer, and where it falls on the label line."""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from .. import model_cache
from ..progress import progress_html
from ..ui import share
from ..ui.common import LATEX, session_of, upload_note, user_errors
from ..ui.words import request_language, say
from . import view as score_view

EXAMPLES, START = score_view.EXAMPLES, score_view.START  # STS Benchmark test pairs with their gold score 0..5


@dataclass
class ScoreTab:
    """What the tab hands on: its fields (a link's among them, by their names in :mod:`stsdemo.app.links`), its
    results and the batch mode's controls."""

    tab: gr.Tab
    s1: gr.Textbox
    s2: gr.Textbox
    model: gr.Dropdown
    scheme: gr.Radio
    gold: gr.Number
    custom: gr.Textbox
    gap: gr.Number
    button: gr.Button
    link: share.LinkBox
    prediction: gr.Number
    category: gr.Textbox
    node: gr.Number
    cosine: gr.Number
    notice: gr.Markdown
    number_line: gr.Plot
    line: gr.State  # the line the shown result is read on (a gold label typed now belongs to it)
    dropped: gr.State  # the last scoring did not draw the gold label: it was given on another line
    used: gr.State  # the model the shown result was scored with: the Model box follows it
    examples: gr.Examples
    pairs_file: gr.File
    scored: gr.File
    file_button: gr.Button
    file_summary: gr.Markdown
    file_progress: gr.HTML
    preview: gr.Dataframe


def build() -> ScoreTab:
    """The tab's layout; :func:`wire` connects it."""
    with gr.Tab(say("tab_score"), id="score") as tab:
        with gr.Row(equal_height=False, elem_classes="sts-wrap"):
            with gr.Column(scale=5, min_width=280):
                s1 = gr.Textbox(label=say("score_sentence1"), lines=2, value=START[0])
                s2 = gr.Textbox(label=say("score_sentence2"), lines=2, value=START[1])
                model = gr.Dropdown(
                    model_cache.model_choices(""),
                    value=model_cache.DEFAULT_CHOICE,
                    label=say("model"),
                    allow_custom_value=True,
                    info=say("score_model_info"),
                )
                with gr.Row(elem_classes="sts-wrap"):
                    scheme = gr.Radio(
                        list(score_view.SCHEME_CHOICES),
                        value=score_view.SCHEMES["own"],
                        label=say("score_scheme"),
                        scale=3,
                        min_width=200,
                    )
                    gold = gr.Number(label=say("score_gold"), value=START[2], scale=1, min_width=120)
                with gr.Row(elem_classes="sts-wrap"):
                    custom = gr.Textbox(
                        label=say("score_custom"),
                        value=score_view.CUSTOM_START[0],
                        visible=False,
                        scale=3,
                        min_width=200,
                        info=say("score_custom_info"),
                    )
                    gap = gr.Number(
                        label=say("score_gap"),
                        value=score_view.CUSTOM_START[1],
                        minimum=0.01,
                        visible=False,
                        scale=1,
                        min_width=120,
                    )
                button = gr.Button(say("score_button"), variant="primary")
                link = share.link_box("score")
            with gr.Column(scale=7, min_width=280):
                with gr.Row(elem_classes="sts-wrap sts-results"):
                    prediction = gr.Number(
                        label=say("score_prediction"),
                        interactive=False,
                        elem_classes="sts-result",
                        min_width=140,
                    )
                    category = gr.Textbox(
                        label=say("score_category"),
                        interactive=False,
                        elem_classes="sts-result",
                        min_width=140,
                    )
                    node = gr.Number(
                        label=say("score_node"), interactive=False, elem_classes="sts-result", min_width=100
                    )
                    cosine = gr.Number(
                        label=say("score_cosine"), interactive=False, elem_classes="sts-result", min_width=140
                    )
                notice = gr.Markdown(elem_classes="sts-note", elem_id="score-notice")
                number_line = gr.Plot(label="Number line", show_label=False, elem_id="number-line")
                gr.Markdown(say("score_numbers_note"), elem_classes="sts-note", latex_delimiters=LATEX)
        line = gr.State(None)
        dropped = gr.State(False)
        used = gr.State(None)
        examples = gr.Examples(
            EXAMPLES,
            inputs=[s1, s2, gold],
            label=say("score_examples"),
            example_labels=[f"{g:g} · {a}  /  {b}" for a, b, g in EXAMPLES],
        )
        with gr.Accordion(say("score_batch"), open=False):
            gr.Markdown(
                say("score_batch_note", rows=f"{score_view.MAX_SCORED_ROWS:,}", cap=upload_note("score")),
                elem_classes="sts-note",
            )
            with gr.Row(elem_classes="sts-wrap"):
                pairs_file = gr.File(
                    label=say("score_pairs_file"), file_types=[".csv", ".tsv", ".txt"], min_width=200
                )
                scored = gr.File(label=say("score_scored_file"), interactive=False, min_width=200)
            file_button = gr.Button(say("score_file_button"))
            file_progress = gr.HTML(
                progress_html(0, str(say("score_no_file")), "idle"), elem_id="score-file-progress"
            )
            file_summary = gr.Markdown(elem_classes="sts-note", elem_id="score-file-summary")
            preview = gr.Dataframe(label=say("score_first_rows"), visible=False, interactive=False)
    return ScoreTab(
        tab=tab,
        s1=s1,
        s2=s2,
        model=model,
        scheme=scheme,
        gold=gold,
        custom=custom,
        gap=gap,
        button=button,
        link=link,
        prediction=prediction,
        category=category,
        node=node,
        cosine=cosine,
        notice=notice,
        number_line=number_line,
        line=line,
        dropped=dropped,
        used=used,
        examples=examples,
        pairs_file=pairs_file,
        scored=scored,
        file_button=file_button,
        file_summary=file_summary,
        file_progress=file_progress,
        preview=preview,
    )


def wire(tab: ScoreTab, state, demo: gr.Blocks, restored=()) -> None:
    """``restored``: the events that restore a link's state (on page load, and a link followed in place); the
    pair is scored after each (with no link events, on page load)."""

    @user_errors
    def score_and_draw(
        model: str,
        sentence1: str,
        sentence2: str,
        scheme_choice: str,
        custom: str,
        gap: float,
        gold: float | None,
        request: gr.Request,
        gold_line: list | None = None,
    ):
        """Score how similar two sentences are, on an ordered label line (STS 0-5 by default).

        Returns the prediction (a float on the label line, from the scorer's head or its calibrated cosine
        a*cos(u, v) + b), the category (the nearest label node) and that node, the raw cosine similarity of
        the two sentence embeddings, a number-line figure and any notice (e.g. an input that was shortened).

        Args:
            model: "default" (the shipped scorer), "run:<id>" (a finished run of this session), or a hub id.
            sentence1: the first sentence.
            sentence2: the second sentence.
            scheme_choice: how to read the prediction: "The model's own", "STS 0–5", "NLI (contradiction · neutral ·
                entailment)" or "Custom ordered list".
            custom: the ordered categories for "Custom ordered list", lowest first, comma-separated.
            gap: the distance d between neighbouring nodes of a custom list.
            gold: an optional gold label, drawn on the number line.
        """
        view = score_view.score_view(
            state,
            session_of(request),
            model,
            sentence1,
            sentence2,
            scheme_choice,
            custom,
            gap,
            gold,
            gold_line,
            request_language(request),
        )
        s = view.score  # which model scored and why (a switch, a scheme that does not fit) is in the notice
        return (
            round(s.prediction, 4),
            s.category,
            s.node,
            round(s.cosine, 4),
            view.figure,
            view.notice,
            view.line,
            view.gold_dropped,
            view.model_choice,
        )

    @user_errors
    def score_file(model, path, scheme_choice, custom, gap, request: gr.Request):
        """Score a CSV/TSV of sentence pairs; streams a progress bar with the time left, then the scored file,
        its first rows and a note."""
        for step in score_view.score_file_steps(
            state, session_of(request), model, path, scheme_choice, custom, gap
        ):
            if step.path is None:
                yield gr.skip(), gr.skip(), gr.skip(), step.progress
            else:
                yield str(step.path), gr.update(value=step.rows, visible=True), step.summary, step.progress

    def scheme_visibility(choice):
        custom = choice == score_view.SCHEMES["custom"]
        return gr.update(visible=custom), gr.update(visible=custom)

    # the public endpoint (the button) takes no State: an MCP server warns about one, and an API call has no line
    # to remember; the other triggers pass the line the gold label was given on
    public = [tab.model, tab.s1, tab.s2, tab.scheme, tab.custom, tab.gap, tab.gold]
    inputs = [*public, tab.line]
    outputs = [
        tab.prediction,
        tab.category,
        tab.node,
        tab.cosine,
        tab.number_line,
        tab.notice,
        tab.line,
        tab.dropped,
        tab.used,
    ]

    def scored(event) -> None:
        """A gold label that the scoring did not draw (given on another line) is cleared from its box; the Model
        box shows the model that scored, the one the scheme switched to included, as the notice names it."""
        event.success(
            lambda dropped: None if dropped else gr.skip(),
            tab.dropped,
            tab.gold,
            api_visibility="private",
            queue=False,
        )
        event.success(
            lambda used: used or gr.skip(), tab.used, tab.model, api_visibility="private", queue=False
        )

    scoring = dict(concurrency_id="score", concurrency_limit=4)
    scored(tab.button.click(score_and_draw, public, outputs, api_name="score", **scoring))
    # a changed scheme (or custom list) re-scores at once: an old result is never shown under a new line
    scored(
        gr.on(
            [tab.s1.submit, tab.s2.submit, tab.scheme.input, tab.custom.submit, tab.gap.submit],
            score_and_draw,
            inputs,
            outputs,
            api_visibility="private",
            **scoring,
        )
    )
    # an example's gold score is on the STS line: it is drawn only when the result is read there
    scored(
        tab.examples.load_input_event.then(
            lambda: score_view.STS_LINE, None, tab.line, queue=False, api_visibility="private"
        ).then(score_and_draw, inputs, outputs, api_visibility="private", **scoring)
    )
    tab.scheme.change(
        scheme_visibility, tab.scheme, [tab.custom, tab.gap], api_visibility="private", queue=False
    )
    tab.file_button.click(
        score_file,
        [tab.model, tab.pairs_file, tab.scheme, tab.custom, tab.gap],
        [tab.scored, tab.preview, tab.file_summary, tab.file_progress],
        api_name="score_file",
        concurrency_id="score_file",
        concurrency_limit=1,
    )  # a file waits; a pair does not
    for start in [event.then for event in restored] or [
        demo.load
    ]:  # a restored gold belongs to the link's line
        scored(
            start(lambda: None, None, tab.line, queue=False, api_visibility="private").then(
                score_and_draw, inputs, outputs, api_visibility="private", **scoring
            )
        )
    share.wire_copy(tab.link, "score", vars(tab))
