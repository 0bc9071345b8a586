"""The Playground's one random generator, specified here and implemented twice, bit for bit: this module and
``stsdemo/playground/web/draws.js``. Every random draw of a run (training and selection pairs, label noise,
initial weights, batch order) comes from it, so the page and the Python core train on the same numbers.

It is counter-based: draw ``i`` of a stream is a pure function of ``(seed, purpose, i)``, with no hidden state,
so both languages need only 32-bit integer arithmetic (``Math.imul`` and ``>>>`` in JavaScript):

* ``mix(x)``: Chris Wellons' *triple32* integer hash, a bijection of 32-bit words
  (``x ^= x >> 17; x *= 0xed5ad4bb; x ^= x >> 11; x *= 0xac4c1b51; x ^= x >> 15; x *= 0x31848bab; x ^= x >> 14``,
  every product modulo 2^32).
* A stream's keys: ``k1 = mix(seed + 0x9e3779b9 * (purpose + 1))`` and ``k2 = mix(k1 ^ 0x85ebca6b)``, ``purpose``
  the position of its name in :data:`PURPOSES` (sums and products modulo 2^32).
* Word ``i`` of the stream: ``mix((mix(i ^ k1) + k2) mod 2^32)``: a bijection of the counter, so no word repeats
  within a stream.
* Uniform ``i`` in ``[0, 1)`` from words ``2i`` and ``2i + 1``: ``((w0 >> 5) * 2^26 + (w1 >> 6)) / 2^53``, exact in
  float64.
* Normal ``i`` (Box-Muller) from uniforms ``2i`` and ``2i + 1``: ``sqrt(-2 ln(1 - u0)) * cos(2 pi u1)`` (``1 - u0`` is exact in float64).
* A permutation of ``n`` from uniforms ``c .. c + n - 1``: the positions sorted by their uniform, ties (never met
  in practice) by position; it vectorises in numpy and sorts in JavaScript.

A :class:`Stream` reads its draws in order (a counter, advanced by each call), so one stream serves a run's
successive permutations. ``ln`` and ``cos`` may differ by one unit in the last place between libraries: the
noise then differs by about 1e-16, far inside the 1e-6 that the page and the core are tested to agree within.
No torch here.
"""

from __future__ import annotations

import numpy as np

PURPOSES = ("init", "pairs", "noise", "batches")
GOLDEN, SALT = 0x9E3779B9, 0x85EBCA6B
MASK = 0xFFFFFFFF


def mix(x: np.ndarray) -> np.ndarray:
    """*triple32* of each 32-bit word of ``x`` (uint32, products wrapping modulo 2^32)."""
    x = np.asarray(x, dtype=np.uint32).copy()
    with np.errstate(over="ignore"):
        x ^= x >> np.uint32(17)
        x *= np.uint32(0xED5AD4BB)
        x ^= x >> np.uint32(11)
        x *= np.uint32(0xAC4C1B51)
        x ^= x >> np.uint32(15)
        x *= np.uint32(0x31848BAB)
        x ^= x >> np.uint32(14)
    return x


def stream_keys(seed: int, purpose: str) -> tuple[np.uint32, np.uint32]:
    """The two keys of the stream of ``seed`` for ``purpose`` (one of :data:`PURPOSES`)."""
    k1 = mix(np.uint32((int(seed) + GOLDEN * (PURPOSES.index(purpose) + 1)) & MASK))
    return k1, mix(k1 ^ np.uint32(SALT))


def words(seed: int, purpose: str, start: int, count: int) -> np.ndarray:
    """Words ``start .. start + count - 1`` of a stream, uint32."""
    k1, k2 = stream_keys(seed, purpose)
    counters = (np.arange(start, start + count, dtype=np.uint64) & MASK).astype(np.uint32)
    with np.errstate(over="ignore"):
        return mix(mix(counters ^ k1) + k2)


def uniforms(seed: int, purpose: str, start: int, count: int) -> np.ndarray:
    """Uniforms ``start .. start + count - 1`` of a stream in ``[0, 1)``, float64 with 53 random bits."""
    w = words(seed, purpose, 2 * start, 2 * count).astype(np.float64)
    return (np.floor(w[0::2] / 32) * 67108864.0 + np.floor(w[1::2] / 64)) / 9007199254740992.0


class Stream:
    """The draws of one seed for one purpose, read in order."""

    def __init__(self, seed: int, purpose: str):
        self.seed, self.purpose, self.used = int(seed), purpose, 0

    def uniform(self, count: int) -> np.ndarray:
        """The next ``count`` uniforms in ``[0, 1)``."""
        out = uniforms(self.seed, self.purpose, self.used, count)
        self.used += count
        return out

    def normal(self, count: int) -> np.ndarray:
        """The next ``count`` standard normals (each from two uniforms)."""
        u = self.uniform(2 * count)
        return np.sqrt(-2.0 * np.log(1.0 - u[0::2])) * np.cos(2.0 * np.pi * u[1::2])

    def permutation(self, count: int) -> np.ndarray:
        """A permutation of ``0 .. count - 1`` (int64) from the next ``count`` uniforms."""
        return np.argsort(self.uniform(count), kind="stable")
