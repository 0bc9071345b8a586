"""Links that reopen a state: each tab's "Copy link" control and the page load that restores a link. Wiring
only; what a link holds and how it is checked is :mod:`stsdemo.app.links`.

Copying is two steps: the server writes the link's query from the fields' values (checked as a link is
read back), then a browser-side ``js`` step puts the page's own address in front (right behind a proxy or
in a Space's frame), copies it to the clipboard where the browser allows, and shows it in the box beside
the button, so it can be copied by hand where the clipboard is not allowed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import gradio as gr

from .. import links
from .words import say

# The query from the server -> the whole link, copied where the clipboard allows it; what the box then shows.
COPY_JS = """
(query) => {
  if (typeof query !== "string" || !query.startsWith("?")) return query;
  const url = window.location.origin + window.location.pathname + query;
  try { navigator.clipboard.writeText(url).catch(() => {}); } catch (error) {}
  return url;
}
"""


# The page's own script (launch(js=...)): a click on a link to another state of this page (``?tab=...``, the
# start-here steps, "See the evidence") opens it in place, through the hidden opener (:func:`link_opener`),
# instead of a new browser tab (Gradio's Markdown opens links in one) or a reload (which would start a new
# session); the back button does the same. A followed link then brings the tabs into view, their bar at the top
# of the window and the chosen tab's content right below it (the start-here steps sit above the tabs, up to
# 3,000 px above them on a phone): once at the click and again when the server has selected the tab (the page may
# only then be long enough to scroll that far). "#start-here" reopens the start-here panel, which its Hide button
# closes; the choice is remembered by the browser. On a phone the panel folds to its heading, which unfolds it.
PAGE_JS = """
() => {
  const hidden = "sts-start-hidden", root = document.documentElement;
  const remember = (value) => { try { value ? localStorage.setItem(hidden, "1") : localStorage.removeItem(hidden); }
                                catch (error) {} };
  try { if (localStorage.getItem(hidden) === "1") root.classList.add(hidden); } catch (error) {}
  const bring = () => { const tabs = document.getElementById("sts-tabs");
                        if (tabs) tabs.scrollIntoView({block: "start"}); };
  const selected = () => { const tab = document.querySelector("#sts-tabs [role=tab][aria-selected=true]");
                           return tab ? tab.textContent : null; };
  // one link in flight at a time: a link followed meanwhile is opened once the last one's tab is shown, so the page
  // always ends on the address bar's link however fast links follow each other
  let inFlight = false;
  const open = () => {
    const button = document.querySelector("#sts-open-link");
    if (!button || inFlight) return;
    inFlight = true;
    const sent = window.location.search, before = selected(), started = Date.now();
    button.click();
    bring();
    const wait = setInterval(() => {
      if (selected() === before && Date.now() - started <= 5000) return;
      clearInterval(wait);
      inFlight = false;
      setTimeout(bring, 50);
      if (window.location.search !== sent) open();
    }, 50);
  };
  window.stsHideStart = () => { root.classList.add(hidden); remember(true); };
  // on a phone the start-here panel is one line, its heading a button that unfolds the steps
  const unfolded = "sts-start-open", heading = () => document.querySelector("#start-here-steps h3");
  const unfold = () => { const open = document.getElementById("start-here").classList.toggle(unfolded);
                         heading().setAttribute("aria-expanded", String(open)); };
  const asButton = setInterval(() => {
    const found = heading(), phone = window.matchMedia("(max-width: 720px)").matches;
    if (!found && phone) return;
    clearInterval(asButton);
    if (!phone) return;   // a desktop shows the steps: its heading stays a heading
    found.tabIndex = 0;
    found.setAttribute("role", "button");
    found.setAttribute("aria-expanded", "false");
  }, 100);
  document.addEventListener("keydown", (event) => {
    if ((event.key === "Enter" || event.key === " ") && event.target === heading()) { event.preventDefault(); unfold(); }
  });
  document.addEventListener("click", (event) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    if (event.target instanceof Element && event.target.closest("#start-here-steps h3")) { unfold(); return; }
    const anchor = event.target instanceof Element ? event.target.closest("a[href]") : null;
    if (!anchor) return;
    const href = anchor.getAttribute("href");
    if (href === "#start-here") {
      event.preventDefault();
      root.classList.remove(hidden);
      remember(false);
      const panel = document.getElementById("start-here");
      if (panel) panel.scrollIntoView({block: "start"});
      return;
    }
    const url = new URL(href, window.location.href);
    if (url.origin !== window.location.origin || url.pathname !== window.location.pathname
        || !url.searchParams.has("tab")) return;
    event.preventDefault();
    event.stopPropagation();
    history.pushState(null, "", url.search);
    open();
  }, true);
  window.addEventListener("popstate", open);
}
"""
HIDE_START_JS = "() => { if (window.stsHideStart) window.stsHideStart(); }"


@dataclass
class LinkOpener:
    """The hidden control that opens a link in place (:func:`link_opener`)."""

    query: gr.Textbox
    button: gr.Button


@dataclass
class LinkBox:
    """A tab's "Copy link" button, the box that shows the link, and its notice (:func:`link_box`)."""

    button: gr.Button
    text: gr.Textbox
    notice: gr.Markdown


def link_opener() -> LinkOpener:
    """The hidden control that opens a link in place: the page script clicks it after putting the link in the
    address bar, and :func:`wire_restore` restores what the link names, as on page load."""
    query = gr.Textbox(visible="hidden", elem_id="sts-open-query")
    button = gr.Button("Open link", visible="hidden", elem_id="sts-open-link")
    return LinkOpener(query=query, button=button)


def link_box(tab: str) -> LinkBox:
    """The "Copy link" button and the box that shows the link (and any notice about it) in a tab."""
    with gr.Row(elem_classes="sts-wrap sts-link", equal_height=False):
        button = gr.Button(say("copy_link"), size="sm", scale=0, min_width=110, elem_id=f"{tab}-copy-link")
        text = gr.Textbox(
            show_label=False,
            placeholder=say("link_placeholder"),
            interactive=False,
            lines=1,
            max_lines=4,
            scale=4,
            min_width=200,
            elem_id=f"{tab}-link",
            container=False,
        )
    notice = gr.Markdown(elem_classes="sts-note", elem_id=f"{tab}-link-notice")
    return LinkBox(button=button, text=text, notice=notice)


def link_fields(tab: str, components: Mapping) -> dict:
    """The fields a link to ``tab`` carries, picked from a tab's ``components`` by their names in the links' one
    field table (:func:`stsdemo.app.links.field_names`); KeyError when the tab lacks one."""
    return {name: components[name] for name in links.field_names(tab)}


def wire_copy(box: LinkBox, tab: str, components: Mapping) -> None:
    """``components``: the tab's components by name, the fields a link carries among them (:func:`link_fields`)."""
    components = link_fields(tab, components)
    names = list(components)

    def make(*values):
        query, notices = links.encode(tab, dict(zip(names, values)))
        if notices:
            gr.Warning(" · ".join(notices), duration=10)
        return query, "\n\n".join(f"⚠ {n}" for n in notices)

    box.button.click(
        make, list(components.values()), [box.text, box.notice], queue=False, api_visibility="private"
    ).success(None, box.text, box.text, js=COPY_JS, queue=False, api_visibility="private")


def wire_restore(
    demo: gr.Blocks,
    tabs: gr.Tabs,
    parts: dict[str, Mapping],
    boxes: dict[str, LinkBox],
    opener: LinkOpener | None = None,
) -> list:
    """On page load, and when a link to another state of the page is followed in place (``opener``, see
    :data:`PAGE_JS`), a link's tab is selected and its fields filled; bad values fall back with a notice (a
    toast and a line under the tab's link box). Nothing is started. ``parts``: per tab, its components by name,
    the fields a link carries among them (:func:`link_fields`); the framed tabs (Playground, Loss explorer) read
    their link's parameters in their page. Returns the restoring events (the Score tab scores its pair after
    each)."""
    order = [
        (tab, name, component)
        for tab, components in parts.items()
        for name, component in link_fields(tab, components).items()
    ]
    notice_boxes = list(boxes.items())

    def restored(state: links.Restored) -> list:
        out = [gr.Tabs(selected=state.tab) if state.tab else gr.skip()]
        out += [
            state.values[name] if tab == state.tab and name in state.values else gr.skip()
            for tab, name, _ in order
        ]
        message = "\n\n".join(f"⚠ {n}" for n in state.notices)
        out += [message if tab == (state.tab or "") else gr.skip() for tab, _ in notice_boxes]
        if state.notices:
            gr.Warning("This link was partly restored: " + " · ".join(state.notices), duration=15)
        return out

    def restore(request: gr.Request):
        return restored(links.parse(getattr(request, "query_params", None)))

    def follow(query: str):
        return restored(links.parse(str(query or "")))

    outputs = [tabs, *(component for *_, component in order), *(box.notice for _, box in notice_boxes)]
    # queued (so the notice's toast reaches the page), never waiting behind another event; a link followed while
    # the last one is still being restored is restored after it ("once", the default, dropped it: under load the
    # Score tab's scoring of the last link held it pending, and the next link was never opened)
    events = [
        demo.load(
            restore, None, outputs, api_visibility="private", concurrency_limit=None, show_progress="hidden"
        )
    ]
    if opener is not None:
        events.append(
            opener.button.click(
                follow,
                opener.query,
                outputs,
                js="() => [window.location.search]",
                api_visibility="private",
                concurrency_limit=None,
                show_progress="hidden",
                trigger_mode="always_last",
            )
        )
    return events
