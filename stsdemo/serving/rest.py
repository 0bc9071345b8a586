"""What a raw call may carry, read strictly where it enters the app: an API endpoint's arguments (REST v1
``POST /gradio_api/call/<name>`` with ``{"data": [...]}``, REST v2 ``POST /gradio_api/call/v2/<name>`` with
``{name: value}``, MCP) and each form field's own input. Plain Python: the Gradio side (the ASGI middleware, the
field classes' input check, the MCP server) is :mod:`.gradio_seam`, which calls these.

The rules, one per kind of value, each refusal naming the argument or field (an :class:`InputError`):

* a number: JSON numbers, or text that reads as one (``"2"``, ``"-0.5"``, ``"1e-3"``: ASCII digits, as a link
  reads them, :data:`stsdemo.value_text.NUMBER`); ``true``/``false`` are not numbers, NaN and infinity are not
  finite, a whole number beyond :data:`MAX_NUMBER` is too large (10**400 is no float), and anything else is refused;
* true or false: JSON booleans, or the words ``"true"``/``"false"`` (as a link reads them,
  :func:`stsdemo.value_text.boolean`); numbers are not booleans;
* text: JSON strings; a name that is looked up (a model, a run) at most :data:`MAX_NAME_CHARS` characters,
  refused before it reaches the filesystem or the hub;
* a file: only one uploaded to this app (``POST /gradio_api/upload``), as ``{"path": ..., "meta":
  {"_type": "gradio.FileData"}}``;
* an argument left out takes the endpoint's declared default; one without a default is refused, and so is an
  argument the endpoint does not take (:func:`completed`, :func:`checked_keywords`).

The ranges themselves are the settings' own declarations (:mod:`stsdemo.config`, the Playground's
:mod:`stsdemo.playground.config`), checked by the core once a value has been read here.
"""

from __future__ import annotations

import functools
import inspect
import json
import math
import typing
from dataclasses import dataclass
from pathlib import Path

from .. import value_text
from ..errors import InputError

MAX_NUMBER = 1e15  # a whole number beyond any setting's range, and still exact as a float
MAX_NAME_CHARS = 1_000  # a model or run name: hub ids have at most 96 characters, a folder path far fewer
FILE_META = {"_type": "gradio.FileData"}


def shown(value) -> str:
    """A value as a refusal repeats it: as JSON writes it, at most 40 characters."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=True)
    except (TypeError, ValueError):
        text = type(value).__name__
    return text if len(text) <= 40 else text[:37] + "..."


def read_number(name: str, value, optional: bool = False):
    """A number as its field or argument ``name`` takes it (see the module's rules); None only if ``optional``.
    Text that reads as a whole number gives an int, any other number text a float."""
    if value is None and optional:
        return None
    if isinstance(value, bool):
        raise InputError("bool_not_a_number", name=name, shown=shown(value))
    if isinstance(value, str):
        text = value.strip()
        if not value_text.is_number(text):
            raise InputError("not_a_number", name=name, value=shown(value))
        value = int(text) if text.lstrip("+-").isdigit() else float(text)
    if not isinstance(value, (int, float)):
        raise InputError("not_a_number", name=name, value=shown(value))
    if isinstance(value, int) and abs(value) > MAX_NUMBER:  # math.isfinite(10**400) raises OverflowError
        raise InputError(
            "number_too_large", name=name, digits=len(str(abs(value))), max_number=f"{MAX_NUMBER:.0e}"
        )
    if not math.isfinite(value):
        raise InputError("not_finite", name=name, value=repr(value))
    return value


def read_bool(name: str, value, optional: bool = False):
    """True or false (see the module's rules); None only if ``optional``."""
    if value is None and optional:
        return None
    if isinstance(value, bool):
        return value
    word = value_text.boolean(value) if isinstance(value, str) else None
    if word is not None:
        return word
    raise InputError("not_bool", name=name, shown=shown(value))


def read_text(name: str, value, optional: bool = False, max_chars: int | None = None):
    """Text of at most ``max_chars`` characters (None: any length, for text the core cuts itself)."""
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise InputError("not_text", name=name, shown=shown(value))
    if max_chars is not None and len(value) > max_chars:
        raise InputError("text_too_long", name=name, length=f"{len(value):,}", max_chars=f"{max_chars:,}")
    return value


def read_texts(name: str, value, optional: bool = False):
    """A list of short texts (names); None only if ``optional``."""
    if value is None and optional:
        return None
    if not isinstance(value, list):
        raise InputError("not_a_list_of_names", name=name, shown=shown(value))
    return [read_text(name, item, max_chars=MAX_NAME_CHARS) for item in value]


def read_file(name: str, value, upload_folder: Path):
    """An uploaded file's ``FileData`` (see the module's rules), or None."""
    if value is None:
        return None
    path = value.get("path") if isinstance(value, dict) else None
    if (
        not isinstance(path, str)
        or len(path) > MAX_NAME_CHARS
        or value.get("meta") != FILE_META
        or "://" in path
        or not Path(path).resolve().is_relative_to(upload_folder.resolve())
    ):
        raise InputError("not_an_uploaded_file", name=name, shown=shown(value))
    return value


# ---- an API function's own arguments ----------------------------------------------------------------------------


def _reader(hint, long_text: bool):
    """How an argument annotated ``hint`` is read: ``(reader, optional)``, or None for what is not read here
    (a request, a progress tracker)."""
    args = typing.get_args(hint)
    optional = type(None) in args
    kinds = (
        [arg for arg in args if arg is not type(None)]
        if args and typing.get_origin(hint) is not list
        else [hint]
    )
    kind = kinds[0] if len(kinds) == 1 else None
    if kind is bool:
        return read_bool, optional
    if kind in (int, float):
        return read_number, optional
    if kind is str:
        return (read_text if long_text else functools.partial(read_text, max_chars=MAX_NAME_CHARS)), optional
    if typing.get_origin(kind) is list and typing.get_args(kind) == (str,):
        return read_texts, optional
    return None


def reads_arguments(long_text: tuple[str, ...] = ()):
    """Decorate an API function so that each argument is read by its annotation (``float``, ``int``, ``bool``,
    ``str``, ``list[str]``, each optionally ``| None``) before the function runs: the same rules over REST v1,
    v2 and MCP, with an InputError naming the argument. ``long_text``: arguments that are free text (a sentence,
    which the core cuts to its limit) rather than a name looked up."""

    def decorate(fn):
        hints = typing.get_type_hints(fn)
        readers = {
            name: reader
            for name in inspect.signature(fn).parameters
            if name in hints and (reader := _reader(hints[name], name in long_text)) is not None
        }
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def read(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            for name, value in bound.arguments.items():
                if name in readers:
                    reader, optional = readers[name]
                    bound.arguments[name] = reader(name, value, optional=optional)
            return fn(*bound.args, **bound.kwargs)

        read.reads_arguments = True  # what tests/test_gradio_seam.py looks for on every API function
        return read

    return decorate


# ---- a call's argument list --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Parameter:
    """One argument of an endpoint, as its API description declares it."""

    name: str
    has_default: bool
    default: object = None
    file: bool = False  # an uploaded file (FileData)


def _takes(parameters: list[Parameter]) -> str:
    return ", ".join(f"[{p.name}]" if p.has_default else p.name for p in parameters)


def completed(data: list, parameters: list[Parameter], name: str) -> list:
    """A positional call's ``data`` with the defaults of the trailing arguments it leaves out; InputError when one
    of them has none, or when ``data`` has more values than the endpoint takes."""
    if len(data) > len(parameters):
        raise InputError(
            "too_many_arguments",
            name=name,
            n_parameters=len(parameters),
            n_data=len(data),
            takes=_takes(parameters),
        )
    missing = [p.name for p in parameters[len(data) :] if not p.has_default]
    if missing:
        raise InputError("missing_arguments", name=name, missing=", ".join(missing), takes=_takes(parameters))
    return [*data, *(p.default for p in parameters[len(data) :])]


def checked_keywords(body: dict, parameters: list[Parameter], name: str) -> None:
    """A call by argument names (REST v2): InputError for an argument the endpoint does not take, or a missing
    one without a default."""
    known = {p.name for p in parameters}
    unknown = [key for key in body if key not in known]
    if unknown:
        raise InputError(
            "unknown_arguments",
            name=name,
            listed=", ".join(shown(key) for key in unknown[:5]),
            takes=_takes(parameters),
        )
    missing = [p.name for p in parameters if not p.has_default and p.name not in body]
    if missing:
        raise InputError("missing_arguments", name=name, missing=", ".join(missing), takes=_takes(parameters))


def checked_files(values: dict, parameters: list[Parameter], upload_folder: Path) -> None:
    """Each file argument given in ``values`` (by name) is a file uploaded to this app."""
    for parameter in parameters:
        if parameter.file and parameter.name in values:
            read_file(parameter.name, values[parameter.name], upload_folder)


def unknown_endpoint(name: str, known) -> str:
    """The refusal of a call to an endpoint the API does not have (``known``: its endpoints, "/name" each)."""
    return f"no endpoint /{name[:60]}; the API has {', '.join(sorted(known))}"
