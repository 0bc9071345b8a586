"""Only a page's newest redraw is drawn.

A link fills the Loss explorer's k, x0 and d one after the other, and each change fires its own redraw: the first
may carry x0 from before the link arrived. The server answers them concurrently and in any order, so that stale
redraw could land last and stay drawn. The page numbers its redraws as it sends them (a counter, see
:func:`stsdemo.app.loss_explorer.tab.clamp_js`); a redraw that a newer one from the same page overtook, before it
starts or while it draws, answers nothing, and a page's redraws draw one at a time.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Callable, TypeVar

T = TypeVar("T")


class NewestRedraw:
    """Per page (its Gradio session): the newest redraw number seen, and a lock that draws one at a time. At most
    ``pages`` pages are remembered; the longest unseen is forgotten first."""

    def __init__(self, pages: int = 4096):
        self._pages: OrderedDict[str, list] = OrderedDict()   # page -> [newest number, its drawing lock]
        self._lock = threading.Lock()
        self._limit = pages

    def note(self, page: str, number: float) -> list:
        """Record that ``page`` sent redraw ``number``; returns the page's entry."""
        with self._lock:
            entry = self._pages.setdefault(page, [number, threading.Lock()])
            entry[0] = max(entry[0], number)
            self._pages.move_to_end(page)
            while len(self._pages) > self._limit:
                self._pages.popitem(last=False)
            return entry

    def draw(self, page: str, number: float, redraw: Callable[[], T]) -> T | None:
        """``redraw()`` if redraw ``number`` is still the page's newest once its turn comes and after it drew;
        else None (a newer one draws)."""
        entry = self.note(page, number)
        with entry[1]:
            if number < entry[0]:
                return None
            result = redraw()
            return result if number >= entry[0] else None
