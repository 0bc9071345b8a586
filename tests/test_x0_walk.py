"""The walk of one setting, the buffer x0, from the Playground tab's Play to the loss (issue 31): which of the
project's files handle its value on the way, traced while the tab's own handler runs.

A file is on the walk when one of its functions holds x0's value (a local ``x0``, a config whose ``x0`` it is, or
a dict of values holding it). The walk counts those files up to the loss, and how often it climbs back up from
the core (``stsdemo/*`` outside ``app/``) into the app before it gets there: the view driving the core piece by
piece climbs once per piece.
"""

import sys
from pathlib import Path
from types import SimpleNamespace

import gradio as gr

from stsdemo.app.playground_memory import PlaygroundMemory
from stsdemo.app.ui import playground_tab

from test_playground_view import stand_in, values

REPO = Path(__file__).resolve().parents[1]
X0 = 0.17            # a value nothing else in a run holds
MOST_FILES = 8


def _holds(value, depth: int = 0) -> bool:
    if isinstance(value, float):
        return abs(value - X0) < 1e-12
    if depth > 1 or value is None or isinstance(value, (str, int, bytes, type)):
        return False
    if isinstance(value, dict):
        return any(_holds(item, depth + 1) for item in list(value.values())[:60])
    return isinstance(getattr(value, "x0", None), float) and abs(value.x0 - X0) < 1e-12


def _walk(kind: str) -> list[str]:
    """The project's files whose functions held x0, in the order they first did, while the tab's ``kind`` handler
    ran on a run that exists (Play continues it, Reset starts it again)."""
    memory = PlaygroundMemory(max_pairs=120, encoder_for=stand_in)
    with gr.Blocks() as demo:
        tab = playground_tab.build()
        playground_tab.wire(tab, SimpleNamespace(playground=memory), demo)
    handler = next(block.fn for block in demo.fns.values()
                   if getattr(block.fn, "__name__", "") == f"playground_{kind}")
    given = {component: values(x0=X0).get(name, component.value) for name, component in tab.controls.items()}
    given[tab.controls["model"]] = ""
    request = SimpleNamespace(session_hash="walk-of-x0")
    list(handler(given, request))            # the data embedded and a run made: not part of the walk
    walk = []

    def trace(frame, event, _):
        path = Path(frame.f_code.co_filename).resolve()
        if event != "call" or REPO / "stsdemo" not in path.parents:
            return None
        name = path.relative_to(REPO).as_posix()

        def local(frame, event, _):
            if event in ("line", "return") and any(_holds(value) for key, value in frame.f_locals.items()
                                                   if key != "self"):
                walk.append(name)
            return local
        return local

    sys.settrace(trace)
    try:
        list(handler(given, request))
    finally:
        sys.settrace(None)
    return walk


def _to_the_loss(walk: list[str]) -> list[str]:
    last = max(i for i, name in enumerate(walk) if name.startswith("stsdemo/losses/") and "buffer" not in name)
    return walk[:last + 1]


def test_x0_reaches_the_loss_through_at_most_eight_files_never_climbing_back():
    for kind in ("play", "reset"):
        walk = _to_the_loss(_walk(kind))
        files = list(dict.fromkeys(walk))
        assert files[0] == "stsdemo/app/ui/playground_tab.py" and files[-1].startswith("stsdemo/losses/"), files
        assert len(files) <= MOST_FILES, files
        in_app = [name.startswith("stsdemo/app/") for name in walk]
        climbs = sum(1 for before, now in zip(in_app, in_app[1:]) if now and not before)
        assert climbs == 0, walk
