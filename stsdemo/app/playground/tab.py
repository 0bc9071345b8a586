"""Tab 2, *Playground*: watch the buffer act. The tab is the Playground's own page (``stsdemo/playground/web/``,
served by the app under ``/playground/``: :mod:`stsdemo.app.playground.site`) in a frame. The page trains in the
visitor's browser, in Web Workers, with the one engine the API and MCP run too; the server sends it the pinned
data sets once and does no Playground work while it plays. The same page is the free static site
(``python -m stsdemo site DIR``).

A link to the tab (``?tab=playground&preset=memorisation&hide=lr``) hands its other parameters to the page, which
reads them as the static site does; the frame grows with the page it holds (the page posts its height).
"""

from __future__ import annotations

import gradio as gr

FRAME_HTML = ('<iframe id="pg-frame" title="Playground: the buffered loss beside its no-buffer twin" '
              'src="playground/index.html" style="width:100%;height:1400px;border:0;display:block"></iframe>')
# The page's query, less the tab, goes to the frame at load and whenever a link is followed in place; the frame
# takes the height its page posts.
FRAME_JS = """
const frame = element.querySelector("iframe");
let shown = null;
function follow() {
  const query = new URLSearchParams(window.location.search);
  if ((query.get("tab") || "").toLowerCase() !== "playground") return;
  query.delete("tab");
  const wanted = "playground/index.html" + (query.toString() ? "?" + query.toString() : "");
  if (wanted !== shown) { shown = wanted; frame.src = wanted; }
}
follow();
setInterval(follow, 500);
window.addEventListener("message", (event) => {
  if (event.source === frame.contentWindow && event.data && Number.isFinite(event.data.playgroundHeight)) {
    frame.style.height = Math.max(600, Math.min(20000, event.data.playgroundHeight)) + "px";
  }
});
"""
NOTE = ("The Playground trains in your browser: nothing is sent to the server while it plays, so a whole class can "
        "play at once. [Open it on its own page](playground/index.html). The same runs are available to programs "
        "through this app's `playground` API endpoint and MCP tool, which run the same engine.")


def build() -> gr.Tab:
    with gr.Tab("Playground", id="playground") as tab:
        gr.HTML(FRAME_HTML, js_on_load=FRAME_JS, elem_id="pg-frame-box", padding=False)
        gr.Markdown(NOTE, elem_classes="sts-note")
    return tab
