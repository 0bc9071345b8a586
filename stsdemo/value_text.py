"""A number or a true/false written as text, and the one rule that reads it back: a link's query
(:mod:`stsdemo.app.links`) and a raw API call's arguments (:mod:`stsdemo.serving.rest`) both read through here, so
the same text means the same value wherever it arrives. In the core, as both of those layers read it."""

from __future__ import annotations

import re

MAX_NUMBER_TEXT = 40  # characters of a number
NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", re.ASCII)  # ASCII digits only: not ٣, ３ or 1_0
BOOLEANS = {
    "true": True,
    "false": False,
}  # what a link writes and JSON spells; "1", "yes" or "on" mean nothing


def is_number(text: str) -> bool:
    """Whether ``text`` (already stripped) reads as a number."""
    return len(text) <= MAX_NUMBER_TEXT and NUMBER.fullmatch(text) is not None


def boolean(text: str) -> bool | None:
    """True or False for the words ``true``/``false`` (any case, spaces around), None for any other text."""
    return BOOLEANS.get(text.strip().lower())
