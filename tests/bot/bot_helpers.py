"""Shared helpers of the bot tests (a unique module name: tests/bot is on sys.path)."""
from __future__ import annotations


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now
