"""The one exception type for bad user input.

Every entry point turns it into a clear message: the CLI prints one line and exits with status 2,
the UI shows a ``gr.Error`` toast. Its text says what was wrong and what is allowed.
"""


class InputError(ValueError):
    """Bad input from a user: the message names the value, what was wrong and what is allowed."""


def check_range(name: str, value, low=None, high=None, *, low_open: bool = False, integer: bool = False):
    """Return ``value`` if it lies in the allowed range, else raise :class:`InputError` naming the bound.

    ``low_open`` makes the lower bound strict (``value > low``). ``integer`` requires a whole number.
    """
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be a number, got {value!r}") from None
    if number != number or number in (float("inf"), float("-inf")):
        raise InputError(f"{name} must be a finite number, got {value!r}")
    if integer and number != int(number):
        raise InputError(f"{name} must be a whole number, got {value!r}")
    if low is not None and (number <= low if low_open else number < low):
        bound = f"> {low}" if low_open else f">= {low}"
        raise InputError(
            f"{name} must be {bound}" + (f" and <= {high}" if high is not None else "") + f", got {value!r}"
        )
    if high is not None and number > high:
        bound = (
            f"> {low} and " if low_open and low is not None else (f">= {low} and " if low is not None else "")
        )
        raise InputError(f"{name} must be {bound}<= {high}, got {value!r}")
    return int(number) if integer else number
