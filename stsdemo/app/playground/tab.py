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

NOTE = ("The Playground trains in your browser: nothing is sent to the server while it plays, so a whole class can "
        "play at once. [Open it on its own page](playground/index.html). The same runs are available to programs "
        "through this app's `playground` API endpoint and MCP tool, which run the same engine.")


def build() -> gr.Tab:
    with gr.Tab("Playground", id="playground") as tab:
        page_frame("playground", "Playground: the buffered loss beside its no-buffer twin", 1400)
        gr.Markdown(NOTE, elem_classes="sts-note")
    return tab
