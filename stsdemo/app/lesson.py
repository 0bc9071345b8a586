"""The start-here path as the app shows it: the core's steps (:mod:`stsdemo.lesson`) as a numbered panel at the top
of the page (dismissable, reopened by the header's *Start here* link), in each language the app speaks; the README
lists the same links.
"""

from __future__ import annotations

import html

from .. import strings
from ..lesson import STEPS, Step
from ..story import plain


def step(tab: str) -> Step:
    """The start-here step on ``tab`` (the header's first-visit link opens the same state)."""
    return next(found for found in STEPS if found.tab == tab)


def start_markdown(language: str = "en") -> str:
    """The start-here panel in ``language``: its heading, then a numbered list, each step a link to its state, its
    tab and what to do there; the question to answer before trying it, with its choices; what to watch; then two
    closed folds, the answer with the story's reveal and, inside it, the one for the curious."""
    think, after = strings.text("app", "start_think", language), strings.text("app", "start_after", language)
    answer, curious = (
        strings.text("app", "start_answer", language),
        strings.text("app", "start_curious", language),
    )
    said = lambda words: html.escape(plain(getattr(words, language)), quote=False)  # noqa: E731 (inside HTML)
    items = []
    for i, step in enumerate(STEPS, 1):
        question, tab = step.story.question, strings.text("app", f"tab_{step.tab}", language)
        choices = " ".join(f"{'ABC'[j]}. {said(choice)}" for j, choice in enumerate(question.choices))
        items.append(
            f"{i}. **[{getattr(step.title, language)}]({step.query})** ({tab}). {getattr(step.do, language)}  \n"
            f"   *{think}* {said(question.ask)} {choices}  \n"
            f"   {said(step.story.watch)}\n"
            f"   <details><summary>{after}</summary><p><b>{answer}</b> {said(question.choices[question.answer])}."
            f" {said(step.story.reveal)}</p><details><summary>{curious}</summary><p>{said(step.story.curious)}</p>"
            "</details></details>"
        )
    heading, closing = (
        strings.text("app", "start_here", language),
        strings.text("app", "start_closing", language),
    )
    return f"### {heading}\n" + "\n".join(items) + f"\n\n{closing}"
