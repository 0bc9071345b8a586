"""Tab 4, *Benchmark*: the project's recorded evidence (arms, seeds, verdicts on the paper's claims), then the
7-task SentEval table and bars for any model or run, beside reference rows, and their download as MTEB results."""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from .. import model_cache
from ..progress import progress_html
from ..ui.common import session_of, skip, user_errors
from ..ui.words import say
from . import evidence_view, tuning_view
from . import view as benchmark_view
from .reference import REFERENCE_NOTE


@dataclass
class BenchmarkTab:
    """What the tab hands on: the recorded evidence's verdicts, charts and table (redrawn with the visitor's own
    evaluations), and the evaluation's model choice, button, progress, results and MTEB download."""

    tab: gr.Tab
    verdicts: gr.Markdown
    sts_chart: gr.Plot
    nli_chart: gr.Plot
    evidence_table: gr.Dataframe
    model: gr.Dropdown
    button: gr.Button
    progress: gr.HTML
    table: gr.Dataframe
    chart: gr.Plot
    mteb_button: gr.Button
    mteb_zip: gr.File


def build() -> BenchmarkTab:
    table_now, sts_now, nli_now, verdicts_now = benchmark_view.evidence_views({})
    with gr.Tab(say("tab_bench"), id="bench") as tab:
        gr.Markdown(say("bench_measured", spreads=evidence_view.SPREADS), elem_classes="sts-note")
        verdicts = gr.Markdown(verdicts_now, elem_id="evidence-verdicts")
        with gr.Row(
            elem_classes="sts-wrap", elem_id="evidence-chart", equal_height=False
        ):  # one column on a phone
            sts_chart = gr.Plot(sts_now, show_label=False, scale=2, min_width=340)
            nli_chart = gr.Plot(nli_now, show_label=False, scale=1, min_width=300)
        evidence_table = gr.Dataframe(
            table_now,
            interactive=False,
            label=say("bench_evidence_table"),
            wrap=True,
            column_widths=evidence_view.COLUMN_WIDTHS,
            max_height=720,
            datatype=["html", *["str"] * (len(evidence_view.COLUMNS) - 1)],
            elem_id="evidence-table",
        )
        gr.Markdown(evidence_view.paper_reading(), elem_classes="sts-note", elem_id="paper-reading")
        gr.Dataframe(
            evidence_view.paper_frame(),
            interactive=False,
            label=say("bench_paper_table"),
            wrap=True,
            column_widths=evidence_view.PAPER_WIDTHS,
            elem_id="paper-table",
        )
        tuned = tuning_view.load_tuning()
        gr.Markdown(
            "### Tuned evidence: every arm at its own best settings\n" + tuning_view.claims_markdown(tuned),
            elem_classes="sts-note",
            elem_id="tuned-claims",
        )
        with gr.Accordion(say("bench_tuned"), open=False, elem_id="tuned-evidence"):
            gr.Dataframe(
                tuning_view.tuned_frame(tuned),
                interactive=False,
                wrap=True,
                elem_id="tuned-table",
                label=say("bench_tuned_table"),
            )
            gr.Dataframe(
                tuning_view.grid_frame(tuned),
                interactive=False,
                wrap=True,
                elem_id="tuned-grid",
                label=say("bench_tuned_grid"),
            )
            gr.Dataframe(
                tuning_view.diagnosis_frame(tuned),
                interactive=False,
                wrap=True,
                elem_id="tuned-diagnosis",
                label=say("bench_tuned_diagnosis"),
            )
        gr.Markdown(say("bench_evaluate_note"), elem_classes="sts-note")
        with gr.Row(elem_classes="sts-wrap"):
            model = gr.Dropdown(
                model_cache.bench_choices(""),
                value=model_cache.DEFAULT_CHOICE,
                label=say("model"),
                allow_custom_value=True,
                scale=4,
                min_width=220,
                info=say("bench_model_info"),
            )
            button = gr.Button(say("bench_evaluate"), variant="primary", scale=1, min_width=160)
        progress = gr.HTML(progress_html(0, str(say("bench_idle")), "idle"))
        table = gr.Dataframe(
            benchmark_view.benchmark_table({}), interactive=False, label=say("bench_results")
        )
        chart = gr.Plot(benchmark_view.benchmark_chart({}), show_label=False)
        gr.Markdown(REFERENCE_NOTE, elem_classes="sts-note")
        gr.Markdown(say("bench_mteb_note"), elem_classes="sts-note")
        with gr.Row(elem_classes="sts-wrap"):
            mteb_button = gr.Button(say("bench_mteb"), scale=1, min_width=160)
            mteb_zip = gr.File(label=say("bench_mteb_zip"), interactive=False, scale=3, min_width=220)
    return BenchmarkTab(
        tab=tab,
        verdicts=verdicts,
        sts_chart=sts_chart,
        nli_chart=nli_chart,
        evidence_table=evidence_table,
        model=model,
        button=button,
        progress=progress,
        table=table,
        chart=chart,
        mteb_button=mteb_button,
        mteb_zip=mteb_zip,
    )


def wire(tab: BenchmarkTab, state, demo: gr.Blocks) -> None:
    @user_errors
    def evaluate(choice, request: gr.Request):
        session = session_of(request)
        for bar, table, figure in benchmark_view.benchmark_stream(state, session, choice):
            yield bar, skip(table), skip(figure), gr.skip()
        yield gr.skip(), gr.skip(), gr.skip(), benchmark_view.evidence_views(state.bench_rows(session))[0]

    def initial(request: gr.Request):
        rows = state.bench_rows(session_of(request))
        return (
            benchmark_view.benchmark_table(rows),
            benchmark_view.benchmark_chart(rows),
            *benchmark_view.evidence_views(rows),
        )

    @user_errors
    def download_mteb(choice, request: gr.Request):
        return str(benchmark_view.mteb_zip(state, session_of(request), choice))

    tab.button.click(
        evaluate,
        tab.model,
        [tab.progress, tab.table, tab.chart, tab.evidence_table],
        api_name="benchmark",
        concurrency_id="eval",
        concurrency_limit=1,
        show_progress="minimal",
    )
    tab.mteb_button.click(
        download_mteb,
        tab.model,
        tab.mteb_zip,
        api_name="benchmark_mteb",
        concurrency_id="zip",
        concurrency_limit=2,
    )
    demo.load(
        initial,
        None,
        [tab.table, tab.chart, tab.evidence_table, tab.sts_chart, tab.nli_chart, tab.verdicts],
        api_visibility="private",
        queue=False,
    )
