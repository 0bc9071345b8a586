"""What a verdict is, as a type: :class:`Verdict`, the reading of one paired comparison, and :class:`Combined`, the
one verdict of a claim read from the verdicts of its comparisons.

:mod:`stsdemo.paired`'s t-test makes the verdicts; the claims, the Benchmark tab, the Playground's payoff map and
the docs read them. They are types, not words, so a reader asks a verdict what it says (``verdict.marked``,
``combined.shared``) instead of matching its text, and a reworded verdict cannot leave a reader silently
comparing against the old words (tests/test_typed_values.py checks that no verdict word is compared outside
this module). Records keep the words: a :class:`Verdict` is a ``str`` and is written as its value, and a combined
verdict is written as ``str(combined)``; a record's words become a :class:`Verdict` again where the record is read
(``Verdict(word)``). No torch, no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum


class Verdict(StrEnum):
    """What the rule reads of one comparison; a ``str``, so a verdict prints, and is recorded, as its words."""

    HOLDS = "holds"
    REVERSED = "reversed"
    NEGLIGIBLE = "negligible"
    NO_DIFFERENCE = "no measurable difference"
    ONE_SEED = "one seed"
    NOT_MEASURED = "not measured"

    @property
    def marked(self) -> bool:
        """Whether the verdict says one arm is better (holds or reversed)."""
        return self in (Verdict.HOLDS, Verdict.REVERSED)

    @property
    def decided(self) -> bool:
        """Whether the rule read the comparison (two seeds or more)."""
        return self not in (Verdict.ONE_SEED, Verdict.NOT_MEASURED)


ONE_SEED_ONLY = "one seed only"
WHERE_SEEDS = " (comparisons with 2+ seeds)"
MIXED = "mixed: "


@dataclass(frozen=True)
class Combined:
    """The verdicts of a claim's comparisons, read as one: the verdict its read comparisons share (:attr:`shared`),
    or how many of them gave each verdict when they differ (:attr:`counts`)."""

    verdicts: tuple[Verdict, ...]

    @property
    def decided(self) -> list[Verdict]:
        """The verdicts of the comparisons the rule read (two seeds or more)."""
        return [verdict for verdict in self.verdicts if verdict.decided]

    @property
    def partial(self) -> bool:
        """Whether some comparisons were not read (one seed, or none) while others were."""
        return bool(self.decided) and len(self.decided) < len(self.verdicts)

    @property
    def shared(self) -> Verdict | None:
        """The one verdict every read comparison gives; None when they differ or none was read."""
        return self.decided[0] if len(set(self.decided)) == 1 else None

    @property
    def counts(self) -> dict[Verdict, int]:
        """How many read comparisons gave each verdict, in :class:`Verdict`'s order, those none gave left out."""
        return {kind: self.decided.count(kind) for kind in Verdict if kind in self.decided}

    def __str__(self) -> str:
        """The claim's verdict as recorded: the shared verdict (naming it when some comparisons were not read),
        ``mixed: 1 reversed, 2 negligible`` when they differ, :data:`ONE_SEED_ONLY` or ``not measured`` when none
        was read."""
        if not self.decided:
            return ONE_SEED_ONLY if Verdict.ONE_SEED in self.verdicts else Verdict.NOT_MEASURED.value
        if self.shared is not None:
            return self.shared.value + (WHERE_SEEDS if self.partial else "")
        return MIXED + ", ".join(f"{count} {kind.value}" for kind, count in self.counts.items())

    @property
    def words(self) -> str:
        """The claim's verdict as shown. "mixed: 2 reversed, 1 no measurable difference" alone reads as "it
        sometimes helps" though nothing held: a mixed verdict says what it means (the comparisons disagree) and in
        how many of them the claim holds, none included; any other verdict is shown as recorded."""
        if self.shared is not None or not self.decided:
            return str(self)
        others = ", ".join(
            f"{count} {kind.value}" for kind, count in self.counts.items() if kind != Verdict.HOLDS
        )
        held = self.counts.get(Verdict.HOLDS, 0) or "none"
        return f"mixed (the comparisons disagree): holds in {held} of {len(self.decided)}; {others}"


def combine(verdicts: Iterable[Verdict | str]) -> Combined:
    """One verdict for a claim from the verdicts of its comparisons (a recorded word is read as its
    :class:`Verdict`)."""
    return Combined(tuple(Verdict(verdict) for verdict in verdicts))
