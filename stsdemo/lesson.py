"""The start-here path: four steps through the app for someone who has just read the paper, each a link that
opens the state it talks about (``?tab=...``), with what to do there and what to notice. The app shows them at
the top of the page (:mod:`stsdemo.app.lesson`), the README lists the same links, and the static site's page
shows the steps it can play. No torch here.
"""

from __future__ import annotations

from dataclasses import dataclass

from .playground.presets import BY_NAME

MEMORISATION = BY_NAME["memorisation"]      # the Playground's step is this story preset, sentence and all


@dataclass(frozen=True)
class Step:
    tab: str          # the tab's key in :mod:`stsdemo.app.links`
    title: str
    query: str        # the link that opens the step's state (``?tab=...``)
    do: str
    notice: str


STEPS = (
    Step("loss", "See the buffer zone", "?tab=loss&k=2&x0=0.25&d=1&prediction=3.6&label=3",
         "Drag **buffer x0** up, past the dashed line at **d/2 = 0.5**.",
         "Inside the buffer both losses are flat and the pull (right chart) is zero: a prediction that close to its "
         "label is left alone. Past d/2 a red band opens: predictions there already round to the wrong label yet "
         "get no pull, which is why training keeps x0 ≤ d/2."),
    Step("playground", "Watch the buffer act", f"?tab=playground&preset={MEMORISATION.name}", MEMORISATION.do,
         MEMORISATION.notice),
    Step("score", "Read a prediction on the label line",
         "?tab=score&s1=A%20man%20is%20riding%20an%20electric%20bicycle.&s2=A%20man%20is%20riding%20a%20bicycle."
         "&scheme=sts&gold=3.5",
         "Look at where the pair lands, then switch the label scheme to **NLI**.",
         "The prediction is one point on the 0–5 line; its category is the nearest node, and the blue band around "
         "each node is the buffer where training stops pulling. NLI is another line, so the app switches to the "
         "NLI scorer: a number is read only on the line its model was trained on."),
    Step("train", "Train with and without the buffer", "?tab=train",
         "Press **Compare with and without the buffer**: the same short fine-tune twice, with x0 = 0.25 and with "
         "x0 = 0, one after the other (set **Compare seeds** to 2 or 3 for a paired mean ± se).",
         "Whether the two dev curves differ by more than the seed-to-seed spread stated beside them: the question "
         "the Benchmark tab's claim C2 answers over many runs."),
)
CLOSING = ("Then the [Benchmark](?tab=bench) tab sets what the paper reported beside what this project measured, "
           "claim by claim.")
