"""The Loss explorer's knobs, declared once: where its sliders start, their ranges, and the sample pair its charts
mark. The page (the static site's, and the app's Loss explorer tab, which frames it) reads these from
site.json's ``loss``; the API's ``loss_at`` checks against :data:`MAX_POINT`. No torch here."""

from __future__ import annotations

from .spec import PAPER_X0, paper_k

START = dict(k=paper_k("sk2", "bert"), x0=PAPER_X0, d=1.0)  # the paper's Smooth K2 on a gap of 1
SAMPLE = (3.6, 3.0)  # a prediction and its label, marked on the charts
SAMPLE_REACH = (
    100.0  # largest |prediction|, |label| the explorer's sample boxes and links take (labels live on 0..5)
)

# The sliders' ranges (name -> (low, high, step)); the API endpoint checks its numbers against the same.
# The explorer's ranges (low, high, step) are a chart's, inside the losses' hard bounds (spec.MAX_K, MAX_GAP): k
# to 5 covers the paper's 1 to 3.5, and x0 reaches past d/2 on purpose, to show the wrong-side band.
SLIDERS = {"k": (0.1, 5.0, 0.05), "x0": (0.0, 1.5, 0.01), "d": (0.2, 2.0, 0.05)}
MAX_POINT = 1e6  # largest |prediction|, |label| loss_at takes: every loss and pull then stays a finite number
