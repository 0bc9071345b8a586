"""What the tab builders share: error toasts, the session of a request, the model lists. (What works around
Gradio itself is :mod:`stsdemo.serving.gradio_seam`.)"""

from __future__ import annotations

import functools
import inspect
import logging

import gradio as gr

from ... import environment
from ...errors import InputError, Text
from ...serving import caps, session_files
from ...serving.gradio_seam import served_language
from .. import model_cache
from ..progress import SKIP
from .words import say

log = logging.getLogger("stsdemo.app.ui")

LATEX = [{"left": "$$", "right": "$$", "display": True}, {"left": "$", "right": "$", "display": False}]


def user_errors(fn):
    """Turn the core's InputError (and any unexpected error) into a gr.Error toast, never a traceback."""

    def convert(error: Exception) -> gr.Error:
        if isinstance(error, gr.Error):
            return error
        language = served_language()  # the visitor's (words.request_language), "en" outside an event
        if isinstance(
            error, InputError
        ):  # a visitor's bad input: their toast, no traceback in the server log
            return gr.Error(error.in_language(language), print_exception=False)
        log.exception("unexpected error in %s", fn.__name__)  # the one traceback of a bug
        unexpected = Text("unexpected", type=type(error).__name__, message=str(error)[:300])
        return gr.Error(unexpected.in_language(language), print_exception=False)

    if inspect.isgeneratorfunction(fn):

        @functools.wraps(fn)
        def stream(*args, **kwargs):
            try:
                yield from fn(*args, **kwargs)
            except Exception as error:  # noqa: BLE001 - converted for the user
                raise convert(error) from None

        return stream

    @functools.wraps(fn)
    def call(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Exception as error:  # noqa: BLE001 - converted for the user
            raise convert(error) from None

    return call


def session_of(request: gr.Request | None) -> str:
    return session_files.session_key(getattr(request, "session_hash", None))


def skip(value):
    """A view-model's SKIP as Gradio's "leave this output as it is"."""
    return gr.skip() if value is SKIP else value


def upload_note(kind: str = "training"):
    """The size cap of a ``kind`` of file ("score", "training"), stated where it is uploaded: its one declaration,
    ``<kind>_file_bytes`` in :mod:`stsdemo.serving.caps`, under the upload cap that launch(max_file_size=...)
    enforces."""
    limit = min(caps.value(f"{kind}_file_bytes"), environment.max_upload_bytes())
    return say("upload_cap", size=caps.size_text(limit))


class ChoiceLists:
    """The four dropdowns that list a session's runs (scoring, start-from, benchmark, run picker), refreshed
    together when a tab opens, a run ends or a run is deleted."""

    def __init__(self, score_model, base_model, bench_model, run_pick):
        self.components = [score_model, base_model, bench_model, run_pick]

    @staticmethod
    def updates(session: str, ended: str | None = None) -> tuple:
        """The four lists of ``session``'s runs; ``ended``: the id of a run that just ended, picked in the run
        picker when it has a checkpoint, since its status says it "can be downloaded below" (an empty picker
        would refuse Prepare zip)."""
        runs = session_files.run_choices(session, finished_only=False)
        picked = session_files.RUN_PREFIX + ended if ended else None
        return (
            gr.update(choices=model_cache.model_choices(session)),
            gr.update(choices=model_cache.base_model_choices(session)),
            gr.update(choices=model_cache.bench_choices(session)),
            gr.update(choices=runs, **({"value": picked} if picked in dict(runs).values() else {})),
        )

    def refresh_on_select(self, *tabs) -> None:
        def refresh(request: gr.Request):
            return self.updates(session_of(request))

        for tab in tabs:
            tab.select(refresh, None, self.components, api_visibility="private", queue=False)
