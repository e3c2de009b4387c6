"""The game's own seeded random generator (SplitMix64), kept as one integer inside the state.

It never touches Python's :mod:`random`, so a game replays identically on any Python version and
whatever else the process does with the global generator.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")
_MASK = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15
#: The rejection limits of :func:`below` for the small ranges games ask for.
_SMALL = 128
_LIMITS = [0] + [(1 << 64) - ((1 << 64) % n) for n in range(1, _SMALL)]


def seed_state(seed: int) -> int:
    """The generator state for a game seed (any integer, reduced to 64 bits)."""
    return (seed * 0x2545F4914F6CDD1D + 0x632BE59BD9B4E019) & _MASK


def next_u64(state: int) -> tuple[int, int]:
    """Return ``(value, new_state)``: one 64-bit output of SplitMix64."""
    state = (state + _GAMMA) & _MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31), state


def below(state: int, n: int) -> tuple[int, int]:
    """Return ``(k, new_state)`` with ``k`` uniform in ``0..n-1`` (rejection sampling, no bias).

    The steps of :func:`next_u64` are repeated inline: this is the engine's busiest function.
    """
    if n <= 0:
        raise ValueError("n must be positive")
    limit = _LIMITS[n] if n < _SMALL else (1 << 64) - ((1 << 64) % n)
    while True:
        state = (state + _GAMMA) & _MASK
        z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        z ^= z >> 31
        if z < limit:
            return z % n, state


def shuffled(state: int, items: Sequence[T]) -> tuple[tuple[T, ...], int]:
    """Return ``(shuffled_items, new_state)`` by Fisher-Yates."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j, state = below(state, i + 1)
        out[i], out[j] = out[j], out[i]
    return tuple(out), state
