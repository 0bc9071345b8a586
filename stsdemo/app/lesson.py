"""The start-here path as the app shows it: the core's steps (:mod:`stsdemo.lesson`) as a numbered panel at the top
of the page (dismissable, reopened by the header's *Start here* link); the README lists the same links.
"""

from __future__ import annotations

from ..lesson import CLOSING, STEPS, Step  # noqa: F401 (the app reads the steps here)
from ..story import plain
from . import links


def step(tab: str) -> Step:
    """The start-here step on ``tab`` (the header's first-visit link opens the same state)."""
    return next(found for found in STEPS if found.tab == tab)


def start_markdown() -> str:
    """The start-here steps (under the panel's heading): a numbered list, each step a link to its state, then what
    to do, to watch and what it shows (the story's reveal, in English: the app's quiz is the Playground page's)."""
    items = [
        f"{i}. **[{step.title.en}]({step.query})** ({links.TABS[step.tab]}). {step.do.en}  \n"
        f"   *Watch:* {plain(step.story.watch.en)} *What it shows:* {plain(step.story.reveal.en)}"
        for i, step in enumerate(STEPS, 1)
    ]
    return "\n".join(items) + f"\n\n{CLOSING}"
