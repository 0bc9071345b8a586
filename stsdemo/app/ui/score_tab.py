"""Tab 1, *Score a pair*: one pair (or a CSV of pairs) through a scorer, and where it falls on the label line."""

from __future__ import annotations

from types import SimpleNamespace

import gradio as gr

from .. import models, score
from .common import LATEX, session_of, upload_note, user_errors

# Real pairs from the STS Benchmark test split (original casing), with their gold score 0..5.
EXAMPLES = [
    ["A woman plays the flute.", "A woman is playing the flute.", 5.0],
    ["A man and a dog on rocks on a beach.", "A man and dog on a rocky seashore.", 4.6],
    ["A man is riding an electric bicycle.", "A man is riding a bicycle.", 3.5],
    ["A monkey is playing drums.", "Someone in a gorilla costume is playing a set of drums.", 2.5],
    ["A man is playing a harp.", "A man is playing a keyboard.", 1.5],
    ["A man is cycling.", "A man is talking.", 0.6],
    ["A woman is spreading mustard on a bread roll.", "A kitten is playing with a woman's finger.", 0.0],
]
START = EXAMPLES[2]


def build() -> SimpleNamespace:
    """The tab's layout; :func:`wire` connects it."""
    with gr.Tab("Score a pair", id="score") as tab:
        with gr.Row(equal_height=False, elem_classes="sts-wrap"):
            with gr.Column(scale=5, min_width=280):
                s1 = gr.Textbox(label="Sentence 1", lines=2, value=START[0])
                s2 = gr.Textbox(label="Sentence 2", lines=2, value=START[1])
                model = gr.Dropdown(models.model_choices(""), value=models.DEFAULT_CHOICE, label="Model",
                                    allow_custom_value=True,
                                    info="Your finished runs appear here; or type a hub id / local folder.")
                with gr.Row(elem_classes="sts-wrap"):
                    scheme = gr.Radio(list(score.SCHEME_CHOICES), value=score.SCHEME_CHOICES[0], label="Label scheme",
                                      scale=3, min_width=200)
                    gold = gr.Number(label="Gold label (optional)", value=START[2], scale=1, min_width=120)
                with gr.Row(elem_classes="sts-wrap"):
                    custom = gr.Textbox(label="Ordered categories", value="unrelated, related, same", visible=False,
                                        scale=3, min_width=200,
                                        info="Lowest first, comma-separated; node i sits at i·d.")
                    gap = gr.Number(label="Gap d", value=1.0, minimum=0.01, visible=False, scale=1, min_width=120)
                button = gr.Button("Score the pair", variant="primary")
            with gr.Column(scale=7, min_width=280):
                with gr.Row(elem_classes="sts-wrap sts-results"):
                    prediction = gr.Number(label="Prediction (on the label line)", interactive=False,
                                           elem_classes="sts-result", min_width=140)
                    category = gr.Textbox(label="Category", interactive=False, elem_classes="sts-result",
                                          min_width=140)
                    node = gr.Number(label="Node", interactive=False, elem_classes="sts-result", min_width=100)
                    cosine = gr.Number(label="Cosine similarity", interactive=False, elem_classes="sts-result",
                                       min_width=140)
                gr.Markdown(score.NUMBERS_NOTE, elem_classes="sts-note", latex_delimiters=LATEX)
                number_line = gr.Plot(label="Number line", show_label=False, elem_id="number-line")
                notice = gr.Markdown(elem_classes="sts-note")
        gr.Examples(EXAMPLES, inputs=[s1, s2, gold], label="STS Benchmark test pairs (gold score 0–5)",
                    example_labels=[f"{g:g} · {a}  /  {b}" for a, b, g in EXAMPLES])
        with gr.Accordion("Batch mode: score a CSV / TSV file", open=False):
            gr.Markdown("A header row with two sentence columns (`sentence1,sentence2`, `premise,hypothesis`, …); a "
                        "label column is optional. You get the file back with `prediction`, `category` and `cosine` "
                        f"per row (up to {score.MAX_SCORED_ROWS:,} rows). " + upload_note(), elem_classes="sts-note")
            with gr.Row(elem_classes="sts-wrap"):
                pairs_file = gr.File(label="Pairs to score", file_types=[".csv", ".tsv", ".txt"], min_width=200)
                scored = gr.File(label="Scored file", interactive=False, min_width=200)
            file_button = gr.Button("Score the file")
            preview = gr.Dataframe(label="First rows", visible=False, interactive=False)
    return SimpleNamespace(**locals())


def wire(tab: SimpleNamespace, state, demo: gr.Blocks) -> None:
    @user_errors
    def score_pair(model: str, sentence1: str, sentence2: str, scheme_choice: str, custom: str, gap: float,
                   gold: float | None, request: gr.Request):
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
        view = score.score_view(state, session_of(request), model, sentence1, sentence2, scheme_choice, custom, gap,
                                gold)
        s = view.score
        return round(s.prediction, 4), s.category, s.node, round(s.cosine, 4), view.figure, view.notice

    @user_errors
    def score_file(model, path, scheme_choice, custom, gap, request: gr.Request):
        out, rows = score.score_file_view(state, session_of(request), model, path, scheme_choice, custom, gap)
        return str(out), gr.update(value=rows, visible=True)

    def scheme_visibility(choice):
        custom = choice == score.SCHEME_CHOICES[3]
        return gr.update(visible=custom), gr.update(visible=custom)

    inputs = [tab.model, tab.s1, tab.s2, tab.scheme, tab.custom, tab.gap, tab.gold]
    outputs = [tab.prediction, tab.category, tab.node, tab.cosine, tab.number_line, tab.notice]
    tab.button.click(score_pair, inputs, outputs, api_name="score", concurrency_id="score", concurrency_limit=4)
    gr.on([tab.s1.submit, tab.s2.submit], score_pair, inputs, outputs, api_visibility="private",
          concurrency_id="score", concurrency_limit=4)
    tab.scheme.change(scheme_visibility, tab.scheme, [tab.custom, tab.gap], api_visibility="private", queue=False)
    tab.file_button.click(score_file, [tab.model, tab.pairs_file, tab.scheme, tab.custom, tab.gap],
                          [tab.scored, tab.preview], api_name="score_file", concurrency_id="score",
                          concurrency_limit=4)
    demo.load(score_pair, inputs, outputs, api_visibility="private", concurrency_id="score", concurrency_limit=4)
