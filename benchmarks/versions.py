"""Comparing two versions of the project under the same load: each benchmark run of this
version and of another (``git archive <commit>`` unpacked in a folder), one after the other, so
both meet the same machine load."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

ROOT = Path(__file__).resolve().parent.parent
#: The figures of one run of a benchmark compared between versions (:func:`in_turn`).
T = TypeVar("T")


async def in_turn(rounds: int, base: Path, run: Callable[[Path], Awaitable[T]],
                  line: Callable[[T], str]) -> dict[str, list[T]]:
    """Run ``run`` (given the project to run the bot of) on this version and on the one at
    ``base`` in turn, ``rounds`` times each, printing each run's ``line`` with the machine's
    load average; the figures of each version's runs, under "this" and "base"."""
    runs: dict[str, list[T]] = {"this": [], "base": []}
    for n in range(rounds):
        for name, root in (("this", ROOT), ("base", base)):
            figures = await run(root)
            runs[name].append(figures)
            load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
            print(f"round {n + 1} {name}: {line(figures)} (load average {load})", flush=True)
    return runs


__all__ = ["in_turn"]
