"""The one exception type for bad user input, its message declared in English and 简体中文.

Every entry point turns it into a clear message: the CLI prints one line and exits with status 2,
the UI shows a ``gr.Error`` toast in the visitor's language. Its text says what was wrong and what is allowed.
The texts are the ``errors`` part of ``strings.json`` (checked by :func:`stsdemo.strings.check`).
"""

from __future__ import annotations

from . import strings


def texts() -> dict[str, dict[str, str]]:
    """The declared error texts: ``{key: {"en": ..., "zh": ...}}``."""
    return strings.declared()["errors"]


class Text:
    """A declared error text (``key``) with the values of its ``{name}`` marks: ``str()`` is its English,
    :meth:`in_language` any language. A value that is itself a Text (or an InputError) is written in the same
    language. KeyError at once for a key ``strings.json`` does not declare, given values. A text without values
    that is no key is a message written in one language (the operator tools of ``bench/`` write their own):
    it reads as written in every language (tests/test_error_texts.py holds stsdemo/ to declared keys)."""

    def __init__(self, key: str, /, **values):
        if values:
            texts()[key]  # noqa: B018 - a key that is not declared fails where it is written
        self.key, self.values = key, values

    def in_language(self, language: str) -> str:
        if self.key not in texts():
            return self.key
        values = {name: in_language(value, language) for name, value in self.values.items()}
        return texts()[self.key][language].format(**values)

    def __str__(self) -> str:
        return self.in_language("en")

    def __repr__(self) -> str:
        return f"Text({self.key!r}, {self.values!r})"


class Joined:
    """Texts one after another, as a message lists its reasons: "; " between them (in Chinese "；")."""

    SEPARATORS = {"en": "; ", "zh": "；"}

    def __init__(self, items):
        self.items = list(items)

    def in_language(self, language: str) -> str:
        return self.SEPARATORS[language].join(str(in_language(item, language)) for item in self.items)

    def __str__(self) -> str:
        return self.in_language("en")


def in_language(value, language: str):
    """``value`` as a text in ``language`` when it is a declared one (a :class:`Text`, an :class:`InputError`),
    else as it is (a name, a number, a path, a message from elsewhere)."""
    return value.in_language(language) if isinstance(value, (Text, Joined, InputError)) else value


class InputError(ValueError):
    """Bad input from a user: the message names the value, what was wrong and what is allowed.

    ``InputError("key", **values)``: ``key`` names an entry of strings.json's ``errors``; ``str(error)`` is its
    English, :meth:`in_language` its text in a language of :data:`stsdemo.strings.LANGUAGES`."""

    def __init__(self, key: str, /, **values):
        self.text = Text(key, **values)
        super().__init__(str(self.text))

    @property
    def key(self) -> str:
        return self.text.key

    def in_language(self, language: str) -> str:
        return self.text.in_language(language)

    def __reduce__(self):  # pickled (a worker's error) as its key and values, not its English
        return (_rebuilt, (self.text.key, self.text.values))


def _rebuilt(key: str, values: dict) -> InputError:
    return InputError(key, **values)


def check_range(name: str, value, low=None, high=None, *, low_open: bool = False, integer: bool = False):
    """Return ``value`` if it lies in the allowed range, else raise :class:`InputError` naming the bound.

    ``low_open`` makes the lower bound strict (``value > low``). ``integer`` requires a whole number.
    """
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InputError("not_a_number", name=name, value=repr(value)) from None
    if number != number or number in (float("inf"), float("-inf")):
        raise InputError("not_finite", name=name, value=repr(value))
    if integer and number != int(number):
        raise InputError("not_whole", name=name, value=repr(value))
    low_bound = None if low is None else (f"> {low}" if low_open else f">= {low}")
    too_low = low is not None and (number <= low if low_open else number < low)
    if too_low or (high is not None and number > high):
        if high is None:
            raise InputError("range_at_least", name=name, low=low_bound, value=repr(value))
        if low is None:
            raise InputError("range_at_most", name=name, high=high, value=repr(value))
        raise InputError("range_between", name=name, low=low_bound, high=high, value=repr(value))
    return int(number) if integer else number
