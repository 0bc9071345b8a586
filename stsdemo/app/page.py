"""The page: the header, the start-here path and the five tabs (each built and wired by its folder's ``tab.py``)
over one :class:`~stsdemo.app.app_state.AppState`, and how the server launches it.

Bad input anywhere becomes a ``gr.Error`` toast with the core's message (see :func:`.ui.common.user_errors`);
what works around Gradio itself is :mod:`stsdemo.serving.gradio_seam`.
"""

from __future__ import annotations

import os

import gradio as gr
from starlette.middleware import Middleware

from .. import environment, strings
from ..evaluate import TASKS
from ..serving import caps, gradio_seam
from . import lesson
from .app_state import AppState
from .benchmark import evidence_view
from .benchmark import tab as benchmark_tab
from .benchmark import view as benchmark_view
from .finetune import tab as finetune_tab
from .loss_explorer import tab as loss_tab
from .playground import tab as playground_tab
from .playground.site import PlaygroundSite
from .score import tab as score_tab
from .ui import share, tools
from .ui.common import LATEX, ChoiceLists, session_of
from .ui.words import I18N, english_api_info, in_language, request_language, say, say_each

PAPER = "https://arxiv.org/abs/2406.05326"

# Narrow windows (phones): the page's own flex containers may shrink below their content (min-width 0), the
# tab bar wraps (``overflow_behavior="wrap"``), and under 720 px every row marked ``sts-wrap`` becomes one
# column. (Gradio scopes the rules inside a media query to elements under ``.contain``; the container chain
# itself is set outside it.)
CSS = """
.gradio-container {max-width: min(1320px, 100%) !important; margin: auto;}
.gradio-container, .gradio-container .main, .gradio-container .wrap, .gradio-container .contain,
.gradio-container .column, .gradio-container .tabs, .gradio-container .tab-wrapper {min-width: 0 !important;}
#sts-header h1 {margin-bottom: 0.1em;}
#sts-header p {color: var(--body-text-color-subdued); margin-top: 0;}
.sts-note {font-size: 0.92em; color: var(--body-text-color-subdued);}
.sts-result input, .sts-result textarea {font-weight: 600; font-size: 1.08em;}
.sts-wrap {flex-wrap: wrap !important;}
footer {visibility: hidden;}
#start-here {border: 1px solid var(--border-color-primary); border-radius: 10px; padding: 4px 14px 10px;
  background: var(--background-fill-secondary);}
#start-here ol {margin-top: 0.3em;}
#start-here-hide {align-self: flex-start; width: auto !important; flex: 0 0 auto !important;}
.sts-start-hidden #start-here {display: none !important;}
@media (max-width: 720px) {
  .js-plotly-plot .modebar-container {display: none !important;}
  #start-here-steps h3 {cursor: pointer; margin: 0.2em 0;}
  #start-here-steps h3::after {content: " ▸";}
  #start-here.sts-start-open #start-here-steps h3::after {content: " ▾";}
  #start-here:not(.sts-start-open) #start-here-steps h3 ~ *,
  #start-here:not(.sts-start-open) #start-here-hide {display: none !important;}
  .sts-wrap {flex-direction: column !important;}
  .sts-wrap > * {min-width: 0 !important; width: 100% !important; flex: 1 1 auto !important;}
  #sts-header h1 {font-size: 1.45em;}
  .prose, .sts-note {overflow-wrap: anywhere;}
  .table-wrap {max-width: 100%; overflow-x: auto;}
  .prose math[display="block"], .prose .katex-display {max-width: 100%; overflow-x: auto; overflow-y: hidden;}
}
"""


def mcp_wanted(argv=()) -> bool:
    """Serve the MCP server too: ``--mcp`` among ``argv`` (``python app.py --mcp``) or ``STSDEMO_MCP=1``."""
    return "--mcp" in argv or os.environ.get("STSDEMO_MCP") == "1"


def launch_kwargs(mcp: bool | None = None, demo: gr.Blocks | None = None, state=None) -> dict:
    """Theme, CSS and the MCP server (``mcp``; by default with ``STSDEMO_MCP=1``): launch() arguments in
    Gradio 6, shared by app.py and the tests. The MCP server needs ``pip install "gradio[mcp]"``; its tools
    are the three of :mod:`.ui.tools` (given the ``demo``, its server's tool table holds only them). Raw REST calls
    are read strictly (:class:`stsdemo.serving.gradio_seam.StrictCalls`). The page speaks the browser's language
    where strings.json has it (:mod:`.ui.words`). Given the app's ``state``, the Playground's page is served under
    ``/playground/`` (:class:`~stsdemo.app.playground.site.PlaygroundSite`). Run history is
    chosen, not Gradio's default (:func:`stsdemo.environment.run_history`: off on a Space)."""
    theme = gr.themes.Soft(
        primary_hue="blue",
        secondary_hue="orange",
        neutral_hue="slate",
        font=["ui-sans-serif", "system-ui", "Segoe UI", "Roboto", "sans-serif"],
        font_mono=["ui-monospace", "SFMono-Regular", "Menlo", "monospace"],
    )
    mcp = mcp_wanted() if mcp is None else mcp
    site = [Middleware(PlaygroundSite, memory=state.playground)] if state is not None else []
    calls = Middleware(gradio_seam.StrictCalls, uploads=state.uploads if state is not None else None)
    app_kwargs = {"middleware": [*site, calls]}
    if mcp and demo is not None:
        app_kwargs["lifespan"] = gradio_seam.mcp_lifespan(demo, tools.MCP_TOOLS)
    return dict(
        theme=theme,
        css=CSS,
        js=share.PAGE_JS,
        app_kwargs=app_kwargs,
        i18n=I18N,
        run_history=environment.run_history(),
        **({"mcp_server": True} if mcp else {}),
    )


def header() -> None:
    found, _ = benchmark_view.recorded_evidence()
    gr.Markdown(
        say(
            "header",
            paper=PAPER,
            headline=evidence_view.headline(found),
            watch=lesson.step("playground").query,
        ),
        elem_id="sts-header",
        latex_delimiters=LATEX,
    )


def start_here() -> None:
    """The start-here path (:mod:`stsdemo.app.lesson`): dismissable; the header's *Start here* reopens it."""
    with gr.Column(elem_id="start-here", elem_classes="sts-start"):
        steps = {language: lesson.start_markdown(language) for language in strings.LANGUAGES}
        gr.Markdown(say_each("start_here_steps", steps), elem_id="start-here-steps")
        gr.Button(say("start_here_hide"), size="sm", elem_id="start-here-hide").click(
            None, js=share.HIDE_START_JS, api_visibility="private", queue=False
        )


def build_demo(state: AppState | None = None) -> gr.Blocks:
    """The app: five tabs over one :class:`AppState` (a new one unless given)."""
    state = state or AppState()
    with gr.Blocks(title="stsdemo · STS regression with Translated ReLU and Smooth K2") as demo:
        header()
        start_here()
        opener = share.link_opener()
        with gr.Tabs(overflow_behavior="wrap", elem_id="sts-tabs") as tabs:
            score = score_tab.build()
            playground_tab.build()
            loss_tab.build()
            tune = finetune_tab.build()
            bench = benchmark_tab.build()
        gr.Markdown(say("footer", tasks=", ".join(TASKS)), elem_classes="sts-note")
        lists = ChoiceLists(score.model, tune.base_model, bench.model, tune.run_pick)
        # A link (?tab=score&s1=...) reopens a state: restored on load, before the Score tab scores its pair.
        restored = share.wire_restore(
            demo,
            tabs,
            {"score": vars(score), "train": tune.form_fields()},
            {"score": score.link, "train": tune.link},
            opener,
        )
        score_tab.wire(score, state, demo, restored)
        finetune_tab.wire(tune, state, lists)
        benchmark_tab.wire(bench, state, demo)
        tools.wire(state)
        lists.refresh_on_select(score.tab, tune.tab, bench.tab)

        def leave(request: gr.Request):  # a closed tab stops its session's run
            state.request_stop(session_of(request))

        demo.unload(leave)
        demo.queue(max_size=int(caps.value("queue_size")), default_concurrency_limit=1)
        gradio_seam.fair_queue(demo)  # each visitor held to their share of it (stsdemo.serving.fair_queue)
    gradio_seam.name_input_errors(in_language, request_language)  # a refusal in the visitor's language
    gradio_seam.tools_only(demo, tools.MCP_TOOLS)
    english_api_info(demo)
    return demo
