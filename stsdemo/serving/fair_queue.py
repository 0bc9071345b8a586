"""A fair queue: every queued or running event counts against its visitor, so that no visitor can take the
queue from the others.

A visitor is a browser session within its client address (:func:`stsdemo.serving.slots.client_address`: the
connection's public address, an IPv6 one by its /64, or behind ``STSDEMO_PROXY_HOPS`` trusted proxies the one
the outermost wrote to X-Forwarded-For). Three caps of :mod:`stsdemo.serving.caps` hold it:

* ``events_per_session``: one session's events, every endpoint together (the page, REST and MCP calls);
* ``events_per_address``: every session at one address together, sized for a class on one Wi-Fi, so that fresh
  session hashes (or fresh addresses in one /64) cannot take more than one address's places;
* its share of a busy address: once the address holds half its places, a session may hold no more than the
  address's places divided among the sessions holding events there (at least one), so that one session firing
  many calls does not squeeze out the class beside it: a session waiting on its one call always gets its
  place.

An event over a cap is refused at once (:func:`refusal`), the others' places untouched. The hook into Gradio's
queue is :func:`stsdemo.serving.gradio_seam.fair_queue`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from . import caps


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
        return (
            f"you already have {mine} requests queued or running (at most {per_session} per visitor, so that "
            "every visitor gets a turn): wait for one to finish, then try again"
        )
    if new.address is None:
        return None
    neighbours = [holder for holder in holders if holder.address == new.address]
    shared = len(neighbours)
    if shared >= per_address:
        return (
            f"your address already has {shared} requests queued or running (at most {per_address} "
            "per address, so that every visitor gets a turn): wait for one to finish, then try again"
        )
    sessions = len({holder.session for holder in neighbours} | {new.session})
    share = max(1, per_address // sessions)
    if 2 * shared >= per_address and mine >= share:
        return (
            f"your address is busy ({shared} requests of {sessions} sessions, at most {per_address}): "
            f"each session's share is {share} while it is, and yours has {mine}; wait for one to finish, "
            "then try again"
        )
    return None
