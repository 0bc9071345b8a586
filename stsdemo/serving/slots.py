"""A line for long jobs: at most ``slots`` run at once, at most ``waiting`` wait; one more is refused.

    line = JobLine()                      # sizes from settings (STSDEMO_MAX_TRAINING / STSDEMO_MAX_WAITING)
    ticket = line.join("my run")          # InputError when the line is full
    while not ticket.wait(1.0):           # False while waiting: show ticket.position() to the user
        ...
    try: run() finally: ticket.leave()    # always leave: the next one in line starts

Nobody is dropped silently: a ticket is admitted in the order it joined, or its holder is told at once that
the line is full. Leaving (a stop, a closed tab) frees the place for the next one.

A visitor is a session within its client address (:func:`visitor_of`): a session holds at most one place,
training or waiting, and one address at most ``training_per_address`` (:meth:`JobLine.place_for`), so a class
behind one address is not held to one run while five tabs or five session hashes from one client cannot fill
the line. An IPv6 address stands for its /64 (:data:`IPV6_GROUP`): one home or one client gets a whole /64,
and picking a fresh address in it for every call must not make a fresh visitor.
"""

from __future__ import annotations

import ipaddress
import threading
from collections.abc import Callable
from contextlib import contextmanager

from .. import environment
from ..errors import InputError
from . import budget, caps


def client_address(host: str | None, forwarded_for: str | None, hops: int) -> str | None:
    """The public address of the client behind ``hops`` trusted reverse proxies, each of which appends the address
    it was reached from to X-Forwarded-For (``budget.proxy_hops``).

    With no proxy it is the connection's own address (``host``), and the header, which any client can write, is
    ignored. Behind ``hops`` proxies it is the entry ``hops`` from the right: the one the outermost trusted proxy
    wrote; entries to its left came from the client and may be forged, so the first entry is read only where it
    is that one (a single proxy that writes the header afresh). None when that entry is missing, not an address,
    or not a public one (a private, local or reserved address is an internal hop, which says nothing of the
    visitor: the session identifies them then). A global IPv6 address is named by its /64 network
    (:func:`address_group`).
    """
    if hops:
        entries = [entry.strip() for entry in (forwarded_for or "").split(",") if entry.strip()]
        candidate = entries[-hops] if len(entries) >= hops else None
    else:
        candidate = host
    try:
        address = ipaddress.ip_address((candidate or "").strip())
    except ValueError:
        return None
    return address_group(address) if address.is_global else None


IPV6_GROUP = 64  # an IPv6 visitor's prefix length: a subscriber or a server is given a whole /64


def address_group(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str:
    """How caps name a client address: an IPv4 address as it is (an IPv4-mapped IPv6 one too), an IPv6 one by
    its /64 network (``2001:db8:1:2::/64``)."""
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/{IPV6_GROUP}", strict=False))
    return str(address)


def visitor_of(request) -> str | None:
    """The visitor a Gradio request comes from, for the one-place-per-visitor rule: ``address <ip>`` where the
    client's public address is known (:func:`client_address`), else None (the caller's session stands for it)."""
    client = getattr(request, "client", None)
    headers = getattr(request, "headers", None) or {}
    address = client_address(
        getattr(client, "host", None), headers.get("x-forwarded-for"), budget.proxy_hops()
    )
    return f"address {address}" if address else None


def _plural(count: int, word: str) -> str:
    return f"{count} {_word(count, word)}"


def _word(count: int, word: str) -> str:
    return f"{word}{'' if count == 1 else 's'}"


class Ticket:
    """One place in a :class:`JobLine` (running or waiting)."""

    def __init__(self, line: JobLine, name: str):
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

    def __init__(
        self,
        slots: int | Callable[[], int] | None = None,
        waiting: int | Callable[[], int] | None = None,
        what: str = "run",
    ):
        self._slots = slots if slots is not None else environment.max_training_runs
        self._max_waiting = waiting if waiting is not None else environment.max_waiting_runs
        self.what = what
        self._cond = threading.Condition()
        self._running: list[Ticket] = []
        self._waiting: list[Ticket] = []
        self._visitors: dict[str, str | None] = {}  # sessions holding a place -> their address

    def slots(self) -> int:
        return max(1, int(self._slots() if callable(self._slots) else self._slots))

    def max_waiting(self) -> int:
        return max(0, int(self._max_waiting() if callable(self._max_waiting) else self._max_waiting))

    def counts(self) -> tuple[int, int]:
        """(running, waiting)."""
        with self._cond:
            return len(self._running), len(self._waiting)

    @contextmanager
    def place_for(self, session: str, address: str | None = None):
        """Hold the place of ``session`` (within its client ``address``, :func:`visitor_of`; None: unknown)
        while the body runs (the body joins the line); InputError at once when the session already holds one,
        or when its address holds ``training_per_address`` (a class shares one address; fresh sessions from
        one client get no more)."""
        per_address = int(caps.value("training_per_address"))
        with self._cond:
            if session in self._visitors:
                raise InputError("visitor_busy", what=self.what)
            shared = sum(held == address for held in self._visitors.values()) if address else 0
            if shared >= per_address:
                raise InputError(
                    "address_busy", count=shared, runs=_word(shared, self.what), per_address=per_address
                )
            self._visitors[session] = address
        try:
            yield
        finally:
            with self._cond:
                self._visitors.pop(session, None)

    def join(self, name: str = "") -> Ticket:
        """A place in line; InputError (with the numbers) when all slots are busy and the line is full."""
        with self._cond:
            ticket = Ticket(self, name)
            if len(self._running) < self.slots() and not self._waiting:
                ticket.admitted = True
                self._running.append(ticket)
            elif len(self._waiting) >= self.max_waiting():
                raise InputError(
                    "queue_full",
                    count=len(self._running),
                    runs=_word(len(self._running), self.what),
                    waiting=len(self._waiting),
                    max_waiting=self.max_waiting(),
                )
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
