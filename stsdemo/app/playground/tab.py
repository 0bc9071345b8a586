"""Tab 2, *Playground*: watch the buffer act. The tab is the Playground's own page (``stsdemo/playground/web/``,
served by the app under ``/playground/``: :mod:`stsdemo.app.playground.site`) in a frame. The page trains in the
visitor's browser, in Web Workers, with the one engine the API and MCP run too; the server sends it the pinned
data sets once and does no Playground work while it plays. The same page is the free static site
(``python -m stsdemo site DIR``).

A link to the tab (``?tab=playground&preset=memorisation&hide=lr``) hands its other parameters to the page
(:mod:`stsdemo.app.ui.page_frame`).
"""

from __future__ import annotations

import gradio as gr

from ..ui.page_frame import page_frame
from ..ui.words import say


def build() -> gr.Tab:
    with gr.Tab(say("tab_playground"), id="playground") as tab:
        page_frame("playground", "Playground: the buffered loss beside its no-buffer twin", 1400)
        gr.Markdown(say("playground_note"), elem_classes="sts-note")
    return tab
