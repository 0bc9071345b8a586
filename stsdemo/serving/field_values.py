"""A field's value, and an MCP tool's argument, read by :mod:`.rest`'s rules for its kind: what
:func:`stsdemo.serving.gradio_seam.name_input_errors` and the MCP server's argument check read with (public Gradio
only; the workarounds themselves are the seam's)."""

from __future__ import annotations

import gradio as gr

from ..errors import InputError
from . import rest


def read_field(block, payload, name: str):
    """A field's value read by :mod:`.rest`'s rules for its kind; InputError (``name`` leading) when refused."""
    if isinstance(block, (gr.Number, gr.Slider)):
        value = rest.read_number(name, payload, optional=isinstance(block, gr.Number))
        if (
            isinstance(block, gr.Number)
            and block.precision == 0
            and value is not None
            and not float(value).is_integer()
        ):
            raise InputError("not_whole", name=name, value=f"{value:g}")
        return value
    if isinstance(block, gr.Checkbox):
        return rest.read_bool(name, payload, optional=True)
    if isinstance(block, gr.Textbox):
        return rest.read_text(name, payload, optional=True)
    if isinstance(block, gr.CheckboxGroup) or (isinstance(block, gr.Dropdown) and block.multiselect):
        if payload is not None and not isinstance(payload, list):
            raise InputError("not_a_list_of_choices", name=name, shown=rest.shown(payload))
        for item in payload or ():
            if isinstance(item, str):
                rest.read_text(name, item, max_chars=rest.MAX_NAME_CHARS)
        return payload
    if isinstance(payload, str) or (isinstance(block, gr.Dropdown) and block.allow_custom_value):
        return rest.read_text(name, payload, optional=True, max_chars=rest.MAX_NAME_CHARS)
    return payload  # a choice of another type: Gradio's own check of the choices


def json_kind(schema: dict) -> tuple[str | None, bool]:
    """``(kind, optional)`` of an argument's JSON schema: "number" (number or integer), "boolean", "string" or
    None (anything else), and whether null is allowed."""
    options = schema.get("oneOf") or schema.get("anyOf") or [schema]
    types = {option.get("type") for option in options}
    optional = "null" in types
    types.discard("null")
    kind = {"integer": "number"}.get(next(iter(types)), next(iter(types))) if len(types) == 1 else None
    return (kind if kind in ("number", "boolean", "string") else None), optional
