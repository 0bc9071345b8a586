"""Label schemes: ordered categories placed on evenly spaced nodes of a line (paper §3.1).

The regressor predicts one float; the category is the node nearest to it. Node ``i`` sits at
``i * gap``, so NLI is contradiction 0, neutral 1, entailment 2 and STS is 0, 1, ..., 5.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import InputError, check_range

MAX_CATEGORIES = 1000


@dataclass(frozen=True)
class LabelScheme:
    """Ordered category names on nodes ``0, gap, 2*gap, ...``."""

    name: str
    categories: tuple[str, ...]
    gap: float = 1.0

    def __post_init__(self):
        if len(self.categories) < 2:
            raise InputError(
                "scheme_too_few",
                n_categories=len(self.categories),
                value=", ".join(map(repr, self.categories)) or "none",
            )
        if len(self.categories) > MAX_CATEGORIES:
            raise InputError(
                "scheme_too_many", max_categories=MAX_CATEGORIES, n_categories=len(self.categories)
            )
        if len(set(self.categories)) != len(self.categories):
            raise InputError("scheme_not_distinct", categories=list(self.categories))
        check_range("gap d", self.gap, 0, low_open=True)

    @property
    def nodes(self) -> np.ndarray:
        return np.arange(len(self.categories), dtype=np.float64) * self.gap

    @property
    def low(self) -> float:
        return 0.0

    @property
    def high(self) -> float:
        return (len(self.categories) - 1) * self.gap

    def to_dict(self) -> dict:
        return {"name": self.name, "categories": list(self.categories), "gap": self.gap}

    @classmethod
    def from_dict(cls, values: dict) -> LabelScheme:
        """The scheme a saved config describes (``to_dict``'s output); KeyError/TypeError/ValueError if malformed."""
        return cls(values["name"], tuple(values["categories"]), float(values["gap"]))

    def node_of(self, category: str) -> float:
        """The node of a category name (case- and space-insensitive)."""
        wanted = str(category).strip().lower()
        for i, name in enumerate(self.categories):
            if name.lower() == wanted:
                return i * self.gap
        raise InputError("unknown_category", category=repr(category), categories=", ".join(self.categories))

    def nearest_index(self, values) -> np.ndarray:
        """Index of the nearest node for each value; values past the ends go to the outermost nodes.

        A value halfway between two nodes goes to the upper one (2.5 -> 3), not to the even one.
        """
        index = np.floor(np.asarray(values, dtype=np.float64) / self.gap + 0.5)
        return np.clip(index, 0, len(self.categories) - 1).astype(np.int64)

    def node_accuracy(self, predictions, gold):
        """Node accuracy, in percent: the share of pairs whose prediction rounds to the gold label's node, along the
        last axis (a float for one row, an array for rows of ``(..., pairs)``; ``gold`` broadcastable to them).
        Every reader (the final evaluation, scoring, the Playground) takes it from here, already in percent."""
        return 100.0 * (self.nearest_index(predictions) == self.nearest_index(gold)).mean(-1)

    def snap(self, values) -> np.ndarray:
        """Move each value to its nearest node (the paper's rounded tune labels)."""
        return self.nearest_index(values) * self.gap

    def category(self, value: float) -> str:
        return self.categories[int(self.nearest_index([value])[0])]

    @classmethod
    def custom(cls, categories, gap: float = 1.0, name: str = "custom") -> LabelScheme:
        """A scheme from ordered names, either a list or one comma-separated string."""
        if isinstance(categories, str):
            categories = [c.strip() for c in categories.split(",")]
        names = tuple(str(c).strip() for c in categories if str(c).strip())
        return cls(name, names, gap)


NLI = LabelScheme("nli", ("contradiction", "neutral", "entailment"))
STS = LabelScheme("sts", tuple(str(i) for i in range(6)))
SCHEMES = {"sts": STS, "nli": NLI}


def sick_to_sts(relatedness):
    """SICK relatedness 1..5 onto the STS 0..5 line: ``5 * (l - 1) / 4`` (paper Appendix A)."""
    return 5.0 * (np.asarray(relatedness, dtype=np.float64) - 1.0) / 4.0


def get_scheme(name_or_categories: str, gap: float = 1.0) -> LabelScheme:
    """``"sts"``, ``"nli"``, or a comma-separated ordered list such as ``"bad, fair, good, perfect"``."""
    key = str(name_or_categories).strip().lower()
    if key in SCHEMES:
        return SCHEMES[key]
    if "," not in key:
        raise InputError("unknown_label_scheme", name_or_categories=repr(name_or_categories))
    return LabelScheme.custom(name_or_categories, gap)
