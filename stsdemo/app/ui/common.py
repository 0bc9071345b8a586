"""What the tab builders share: error toasts, the session of a request, the model lists, the curve updates."""

from __future__ import annotations

import functools
import inspect
import logging
import re

import gradio as gr

from ... import environment
from ...errors import InputError
from .. import model_cache, plots, store
from ..progress import SKIP

log = logging.getLogger("stsdemo.app.ui")

TYPE_REPR = re.compile(r" \(type: <class '[^']*'>\)")   # in Gradio's "Value: 'x' (type: <class 'str'>) is not in ..."
LATEX = [{"left": "$$", "right": "$$", "display": True}, {"left": "$", "right": "$", "display": False}]


def user_errors(fn):
    """Turn the core's InputError (and any unexpected error) into a gr.Error toast, never a traceback."""

    def convert(error: Exception) -> gr.Error:
        if isinstance(error, gr.Error):
            return error
        if isinstance(error, InputError):  # a visitor's bad input: their toast, no traceback in the server log
            return gr.Error(str(error), print_exception=False)
        log.exception("unexpected error in %s", fn.__name__)
        return gr.Error(f"Something went wrong ({type(error).__name__}: {str(error)[:300]})")

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


FIELD_CLASSES = (gr.Number, gr.Slider, gr.Dropdown, gr.Radio, gr.CheckboxGroup)


def name_input_errors() -> None:
    """Make Gradio's own input checks say which field they are about, and refuse fractions in whole-number
    fields. Gradio checks a Number's or Slider's bounds (and a Dropdown's choices) before our handlers run,
    with a message that names no field ("Value 0 is less than minimum value 0.1."); an API caller sends
    many numbers at once, so each message is prefixed with the field's label. A ``precision=0`` box would
    silently round 2.5 to 2; it says so instead. A refused value is the caller's, not the server's: no traceback
    goes to the log.

    The field classes' ``preprocess`` is wrapped, once per process, rather than each block's: Gradio copies a
    session's blocks when an event updates them (a link restored at page load does), and a copy would lose a
    per-block wrapper."""
    for cls in FIELD_CLASSES:
        if not getattr(cls.preprocess, "names_the_field", False):
            cls.preprocess = _naming_preprocess(cls.preprocess)


def _naming_preprocess(preprocess):
    @functools.wraps(preprocess)
    def checked(block, payload):
        if not block.label:
            return preprocess(block, payload)
        label = str(block.label)
        number = isinstance(payload, (int, float)) and not isinstance(payload, bool)
        if isinstance(block, gr.Number) and block.precision == 0 and number and not float(payload).is_integer():
            raise gr.Error(f"{label}: must be a whole number, got {payload:g}", print_exception=False)
        try:
            return preprocess(block, payload)
        except gr.Error as error:
            message = TYPE_REPR.sub("", error.message)   # without the value's Python type
            raise gr.Error(f"{label}: {message}", print_exception=False) from None

    checked.names_the_field = True
    return checked


def session_of(request: gr.Request | None) -> str:
    return store.session_key(getattr(request, "session_hash", None))


def skip(value):
    """A view-model's SKIP as Gradio's "leave this output as it is"."""
    return gr.skip() if value is SKIP else value


def upload_note() -> str:
    """The upload cap, stated where files are uploaded (launch(max_file_size=...) enforces it)."""
    return f"Files up to {environment.max_upload_text()}."


class ChoiceLists:
    """The four dropdowns that list a session's runs (scoring, start-from, benchmark, run picker), refreshed
    together when a tab opens, a run ends or a run is deleted."""

    def __init__(self, score_model, base_model, bench_model, run_pick):
        self.components = [score_model, base_model, bench_model, run_pick]

    @staticmethod
    def updates(session: str) -> tuple:
        return (gr.update(choices=model_cache.model_choices(session)),
                gr.update(choices=model_cache.base_model_choices(session)),
                gr.update(choices=model_cache.bench_choices(session)),
                gr.update(choices=store.run_choices(session, finished_only=False)))

    def refresh_on_select(self, *tabs) -> None:
        def refresh(request: gr.Request):
            return self.updates(session_of(request))

        for tab in tabs:
            tab.select(refresh, None, self.components, api_visibility="private", queue=False)


class CurveSender:
    """Updates for the three training LinePlots, working around how Gradio 6.31's LinePlot redraws.

    Its colour scale only knows the series present when the chart was last built, and an in-place data
    update does not rebuild it; a changed ``color_map`` does, but the rebuild draws the data of the
    *previous* update. So new data goes out first, and the colour map naming its series one update
    later (``settled()`` says whether one more update is needed to catch up). The dev chart's y range
    (:func:`plots.dev_y_range`, whole points around its data) rebuilds it too, so it travels with the colour map.
    """

    def __init__(self):
        self.sent = (None, None, None)      # (colour map, y range) the plots were last given
        self.pending = (None, None, None)   # (colour map, y range) of the data sent last

    def updates(self, curves) -> tuple:
        maps = ((curves.dev_colors, plots.dev_y_range(curves.dev)), (curves.loss_colors, None),
                (curves.buffer_colors, None))
        out = []
        for frame, lagged, sent in zip((curves.dev, curves.loss, curves.buffer), self.pending, self.sent):
            if lagged is not None and lagged != sent:
                colors, y_range = lagged
                out.append(gr.update(value=frame.copy(), color_map=colors,
                                     **({"y_lim": y_range} if y_range is not None else {})))
            else:
                out.append(gr.update(value=frame.copy()))
        self.sent = tuple(lagged if lagged is not None else sent for lagged, sent in zip(self.pending, self.sent))
        self.pending = maps
        return tuple(out)

    def settled(self) -> bool:
        return self.sent == self.pending
