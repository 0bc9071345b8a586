"""The start-here path as the app shows it: the core's steps (:mod:`stsdemo.lesson`) as a numbered panel at the top
of the page (dismissable, reopened by the header's *Start here* link), in each language the app speaks; the README
lists the same links.
"""

from __future__ import annotations

from .. import strings
from ..lesson import STEPS, Step
from ..story import plain


def step(tab: str) -> Step:
    """The start-here step on ``tab`` (the header's first-visit link opens the same state)."""
    return next(found for found in STEPS if found.tab == tab)


def start_markdown(language: str = "en") -> str:
    """The start-here panel in ``language``: its heading, then a numbered list, each step a link to its state, its
    tab, what to do, to watch and what it shows (the story's reveal: the quiz is the Playground page's)."""
    heading = strings.text("app", "start_here", language)
    watch, shows = strings.text("app", "start_watch", language), strings.text("app", "start_shows", language)
    items = [
        f"{i}. **[{getattr(step.title, language)}]({step.query})** ({strings.text('app', f'tab_{step.tab}', language)})."
        f" {getattr(step.do, language)}  \n"
        f"   *{watch}* {plain(getattr(step.story.watch, language))} *{shows}* "
        f"{plain(getattr(step.story.reveal, language))}"
        for i, step in enumerate(STEPS, 1)
    ]
    closing = strings.text("app", "start_closing", language)
    return f"### {heading}\n" + "\n".join(items) + f"\n\n{closing}"
