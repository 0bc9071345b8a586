"""A fair queue: every queued or running event counts against its visitor, so that no visitor can take the queue
from the others.

A visitor is held to two caps (:mod:`stsdemo.caps`): ``events_per_session`` for one browser session (every
endpoint together: the page, REST and MCP calls carrying its session), and ``events_per_address`` for one client
address, where it is known (:func:`stsdemo.app.slots.client_address`: the connection's public address, or behind
``STSDEMO_PROXY_HOPS`` trusted proxies the one the outermost wrote to X-Forwarded-For), so that fresh session
hashes from one address cannot fill it either; the address cap is larger, as a classroom on one Wi-Fi shares one
address. An event over either cap is refused at once (:func:`refusal`), the others' places untouched. The hook
into Gradio's queue is :func:`stsdemo.app.ui.gradio_seam.fair_queue`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from .. import caps


@dataclass(frozen=True)
class Holder:
    """Whose an event is: its session, and its client's address (None where unknown)."""

    session: str
    address: str | None


def refusal(holders: Iterable[Holder], new: Holder) -> str | None:
    """Why the event of ``new`` may not join a queue whose queued and running events are ``holders``; None when
    it may."""
    holders = list(holders)
    per_session, per_address = int(caps.value("events_per_session")), int(caps.value("events_per_address"))
    mine = sum(holder.session == new.session for holder in holders)
    if mine >= per_session:
        return (f"you already have {mine} requests queued or running (at most {per_session} per visitor, so that "
                "every visitor gets a turn): wait for one to finish, then try again")
    if new.address is not None:
        shared = sum(holder.address == new.address for holder in holders)
        if shared >= per_address:
            return (f"your address already has {shared} requests queued or running (at most {per_address} per "
                    "address, so that every visitor gets a turn): wait for one to finish, then try again")
    return None
