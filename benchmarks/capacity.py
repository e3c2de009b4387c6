"""The capacity search of ``benchmarks/load.py``: the largest number of tables at which the
hand after a move stays under :data:`CAPACITY_GOAL` at p99, found with a few short runs."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

#: Seconds the hand after a move may take at p99 for a table count to count as held.
CAPACITY_GOAL = 1.0


@dataclass
class Figures:
    """What one load run measured (seconds)."""

    tables: int
    span: float
    hand: list[float]
    table: list[float]
    breaches: int
    cpu_per_move: float = float("nan")  # CPU seconds of the bot and its workers per move
    server_cpu: float = float("nan")  # of which the PostgreSQL server's, per move
    db: dict[str, float] = field(default_factory=dict)  # PostgreSQL's counters per move
    moves: int = 0  # moves applied in the window (people's and AI's)


def pct(values: list[float], q: float) -> float:
    """The q-quantile (0..1) of ``values`` (nearest rank), in milliseconds."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))] * 1000


def holds(figures: Figures) -> bool:
    """True when the hand message after a move came within :data:`CAPACITY_GOAL` at p99 (and
    no Discord rule was broken)."""
    return (bool(figures.hand) and pct(figures.hand, 0.99) < CAPACITY_GOAL * 1000
            and figures.breaches == 0)


async def capacity(first: Figures, rounds: int, most: int,
                   run: Callable[[int], Awaitable[Figures]]) -> int:
    """A bounded search (``rounds`` short runs of ``run(tables)``, at most ``most`` tables) for
    the largest number of tables at which the hand after a move stays under
    :data:`CAPACITY_GOAL` at p99: doubling from the main run while it holds, then halving the
    interval between the largest count that held and the smallest that did not. Returns that
    largest count (0: none held)."""
    good = first.tables if holds(first) else 0
    bad = None if holds(first) else first.tables
    tried = [first]
    for _ in range(rounds):
        count = min(good * 2, most) if bad is None else (good + bad) // 2
        if count <= good or (bad is not None and bad - good <= max(10, good // 10)):
            break
        figures = await run(count)
        tried.append(figures)
        print(f"  capacity round: {count} tables, hand p99 {pct(figures.hand, 0.99):.0f} ms "
              f"({len(figures.hand)} moves) -> {'holds' if holds(figures) else 'too slow'}",
              flush=True)
        if holds(figures):
            good = count
        else:
            bad = count
    print(f"capacity: {good} tables with the hand after a move under "
          f"{CAPACITY_GOAL * 1000:.0f} ms at p99 (goal >= 400; searched "
          + ", ".join(f"{f.tables}" for f in tried)
          + (f"; {bad} tables did not hold)" if bad is not None else
             f"; the search stopped at {good})"))
    return good
