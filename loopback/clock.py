"""Clocks of the stand-in: real time, or real time plus a jump that tests control.

Discord's time rules (first response within 3 s, tokens valid for 15 minutes) are checked with
the stand-in's clock, so a test can make 16 minutes pass at once with :meth:`ManualClock.advance`.
"""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    """Something that tells the time in seconds (monotonic)."""

    def __call__(self) -> float:
        """The current time in seconds."""
        ...


class SystemClock:
    """The machine's monotonic clock."""

    def __call__(self) -> float:
        """``time.monotonic()``."""
        return time.monotonic()


class ManualClock:
    """Real monotonic time plus an offset that only grows: ``advance(900)`` skips 15 minutes."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        """Monotonic time plus every jump so far."""
        return time.monotonic() + self.offset

    def advance(self, seconds: float) -> None:
        """Jump ``seconds`` into the future (never back)."""
        if seconds < 0:
            raise ValueError("time only moves forward")
        self.offset += seconds
