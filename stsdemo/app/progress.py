"""What streamed views say of progress: the fraction done and the time left of a run (or of a file being
scored: :func:`time_left`), durations in words, the bar they show it in (:func:`progress_html`), and :data:`SKIP`
("leave this output as it is", which the UI sends as ``gr.skip()``)."""

from __future__ import annotations

import time

SKIP = object()  # in a streamed update: leave this output as it is


def duration(seconds: float) -> str:
    """``75`` -> '1 min 15 s'; ``9`` -> '9 s'."""
    seconds = max(0, int(round(seconds)))
    return f"{seconds // 60} min {seconds % 60:02d} s" if seconds >= 60 else f"{seconds} s"


def time_left(elapsed: float, done: float) -> str:
    """The time left of a phase ``done`` (a fraction) after ``elapsed`` seconds, at the pace so far, in words."""
    if done <= 0.02:
        return "estimating time left…"
    if done >= 0.995:
        return "finishing…"
    return f"about {duration(elapsed / done * (1 - done))} left"


class Progress:
    """Overall fraction and the time left of a run's current phase (training, then the 7-task evaluation)."""

    def __init__(self, stages: int, final_eval: bool):
        self.stages, self.final_eval = stages, final_eval
        self.started = time.perf_counter()
        self.eval_started: float | None = None
        self.train_fraction = 0.0
        self.eval_fraction = 0.0

    def fraction(self) -> float:
        if not self.final_eval:
            return self.train_fraction
        return 0.75 * self.train_fraction + 0.25 * self.eval_fraction

    def start_eval(self) -> None:
        if self.eval_started is None:
            self.eval_started = time.perf_counter()

    def eta(self) -> str:
        evaluating = self.eval_started is not None
        done = self.eval_fraction if evaluating else self.train_fraction
        since = self.eval_started if evaluating else self.started
        left = time_left(time.perf_counter() - since, done)
        if not left.endswith(" left"):
            return left
        return left + (" (then the 7-task evaluation)" if self.final_eval and not evaluating else "")


def progress_html(fraction: float, text: str, state: str = "running") -> str:
    """A small progress bar (state: running, done, stopped, failed, idle) with a line of text."""
    fraction = min(max(float(fraction), 0.0), 1.0)
    color = {"running": "#2563eb", "done": "#16a34a", "stopped": "#d97706", "failed": "#dc2626"}.get(
        state, "#9ca3af"
    )
    safe = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return (
        '<div class="sts-progress" data-state="' + state + '">'
        '<div style="background:#e5e7eb;border-radius:6px;height:12px;overflow:hidden">'
        f'<div style="width:{fraction * 100:.1f}%;background:{color};height:12px;transition:width .4s"></div></div>'
        f'<div style="margin-top:6px;font-size:0.92em;color:#374151">{safe}</div></div>'
    )
