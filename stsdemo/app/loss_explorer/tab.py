"""Tab 3, *Loss explorer*: Translated ReLU and Smooth K2 (and L1 / MSE) and their pulls, live. The tab is the
Playground page's Loss explorer alone (``stsdemo/playground/web/loss.js`` and ``sections.js``), in a frame
(:mod:`stsdemo.app.ui.page_frame`), the one the static site shows: the page draws every change itself, so the
server does no work while a visitor drags a knob. A link (``?tab=loss&k=3&x0=0.1&d=1&prediction=3.6&label=3``)
hands its numbers to the page, which keeps each within its knob's range and says when it did not. Programs read
one sample's numbers through the ``loss_at`` API endpoint and MCP tool (:func:`.view.loss_at`)."""

from __future__ import annotations

import gradio as gr

from ..ui.page_frame import page_frame
from ..ui.words import say


def build() -> gr.Tab:
    with gr.Tab(say("tab_loss"), id="loss") as tab:
        page_frame("loss", "Loss explorer: the two losses and their pulls", 900, view="loss")
    return tab
