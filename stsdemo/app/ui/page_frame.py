"""The Playground's page (``stsdemo/playground/web/``, served under ``/playground/`` by
:mod:`stsdemo.app.playground.site`) in a tab's frame: the Playground tab frames it whole, the Loss explorer tab its
Loss explorer alone (``view=loss``), so the app draws what the static site draws, with the same code.

A link to the tab (``?tab=loss&k=3``, ``?tab=playground&preset=memorisation&hide=lr``) hands its other parameters to
the page, which reads them as the static site does, at load and whenever a link is followed in place; the frame
grows with the page it holds (the page posts its height).
"""

from __future__ import annotations

import json

import gradio as gr

PAGE = "playground/index.html"

# The page's query, less the tab, goes to the frame whenever the app's address names this tab (polled: a link
# followed in place changes it without a reload); the frame takes the height its page posts.
FRAME_JS = """
const frame = element.querySelector("iframe"), [tab, view] = JSON.parse(frame.dataset.for);
let shown = null;
function follow() {
  const query = new URLSearchParams(window.location.search);
  if ((query.get("tab") || "").toLowerCase() !== tab) return;
  query.delete("tab");
  if (view) query.set("view", view);
  const wanted = PAGE + (query.toString() ? "?" + query.toString() : "");
  if (wanted !== shown) { shown = wanted; frame.src = wanted; }
}
follow();
setInterval(follow, 500);
window.addEventListener("message", (event) => {
  if (event.source === frame.contentWindow && event.data && Number.isFinite(event.data.playgroundHeight)) {
    frame.style.height = Math.max(MIN_HEIGHT, Math.min(20000, event.data.playgroundHeight)) + "px";
  }
});
"""


def page_frame(tab: str, title: str, height: int, view: str = "") -> gr.HTML:
    """The page in a frame for the app's tab ``tab`` (its id), ``height`` px tall until the page says its own;
    ``view``: the page's part shown alone (``loss``), or the whole Playground."""
    start = f"{PAGE}?view={view}" if view else PAGE
    html = (
        f'<iframe id="{tab}-frame" title="{title}" src="{start}" data-for=\'{json.dumps([tab, view])}\' '
        f'style="width:100%;height:{height}px;border:0;display:block"></iframe>'
    )
    script = FRAME_JS.replace("PAGE", json.dumps(PAGE)).replace("MIN_HEIGHT", str(min(height, 600)))
    return gr.HTML(html, js_on_load=script, elem_id=f"{tab}-frame-box", padding=False)
