"""A line for long jobs: at most ``slots`` run at once, at most ``waiting`` wait; one more is refused.

    line = JobLine()                      # sizes from settings (STSDEMO_MAX_TRAINING / STSDEMO_MAX_WAITING)
    ticket = line.join("my run")          # InputError when the line is full
    while not ticket.wait(1.0):           # False while waiting: show ticket.position() to the user
        ...
    try: run() finally: ticket.leave()    # always leave: the next one in line starts

Nobody is dropped silently: a ticket is admitted in the order it joined, or its holder is told at once that
the line is full. Leaving (a stop, a closed tab) frees the place for the next one.
"""

from __future__ import annotations

import threading
from typing import Callable

from .. import environment
from ..errors import InputError


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


class Ticket:
    """One place in a :class:`JobLine` (running or waiting)."""

    def __init__(self, line: "JobLine", name: str):
        self.line, self.name = line, name
        self.admitted = False
        self.left = False

    def position(self) -> int:
        """0 once it may run, else its place among those waiting (1 = next)."""
        return self.line.position(self)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until admitted (True) or ``timeout`` seconds pass (False)."""
        return self.line.wait(self, timeout)

    def leave(self) -> None:
        self.line.leave(self)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.leave()


class JobLine:
    """First come, first served admission for long jobs, with a bounded line."""

    def __init__(self, slots: int | Callable[[], int] | None = None, waiting: int | Callable[[], int] | None = None,
                 what: str = "run"):
        self._slots = slots if slots is not None else environment.max_training_runs
        self._max_waiting = waiting if waiting is not None else environment.max_waiting_runs
        self.what = what
        self._cond = threading.Condition()
        self._running: list[Ticket] = []
        self._waiting: list[Ticket] = []

    def slots(self) -> int:
        return max(1, int(self._slots() if callable(self._slots) else self._slots))

    def max_waiting(self) -> int:
        return max(0, int(self._max_waiting() if callable(self._max_waiting) else self._max_waiting))

    def counts(self) -> tuple[int, int]:
        """(running, waiting)."""
        with self._cond:
            return len(self._running), len(self._waiting)

    def join(self, name: str = "") -> Ticket:
        """A place in line; InputError (with the numbers) when all slots are busy and the line is full."""
        with self._cond:
            ticket = Ticket(self, name)
            if len(self._running) < self.slots() and not self._waiting:
                ticket.admitted = True
                self._running.append(ticket)
            elif len(self._waiting) >= self.max_waiting():
                raise InputError(
                    f"the training queue is full: {_plural(len(self._running), self.what)} training and "
                    f"{len(self._waiting)} waiting (at most {self.max_waiting()} may wait); nothing was started, "
                    "try again in a few minutes")
            else:
                self._waiting.append(ticket)
            return ticket

    def position(self, ticket: Ticket) -> int:
        with self._cond:
            if ticket.admitted:
                return 0
            return self._waiting.index(ticket) + 1 if ticket in self._waiting else 0

    def ahead(self, ticket: Ticket) -> str:
        """'1 run training, 2 waiting ahead of yours' for a waiting ticket."""
        with self._cond:
            waiting = self._waiting.index(ticket) if ticket in self._waiting else 0
            text = f"{_plural(len(self._running), self.what)} training"
            return text + (f" and {waiting} waiting" if waiting else "") + " ahead of yours"

    def wait(self, ticket: Ticket, timeout: float | None = None) -> bool:
        with self._cond:
            self._cond.wait_for(lambda: ticket.admitted or ticket.left, timeout)
            return ticket.admitted and not ticket.left

    def leave(self, ticket: Ticket) -> None:
        with self._cond:
            if ticket.left:
                return
            ticket.left = True
            if ticket in self._running:
                self._running.remove(ticket)
            if ticket in self._waiting:
                self._waiting.remove(ticket)
            while self._waiting and len(self._running) < self.slots():
                nxt = self._waiting.pop(0)
                nxt.admitted = True
                self._running.append(nxt)
            self._cond.notify_all()
