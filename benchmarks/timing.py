"""Timing a benchmark's steps: wall and CPU milliseconds of one awaited step, percentiles, and
the line printed for a series of steps against a p99 goal."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable


def pct(values: list[float], q: float) -> float:
    """The ``q`` quantile of ``values`` (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def p99_line(label: str, times: list[tuple[float, float]], goal_ms: float) -> str:
    """One line for ``times`` (wall, CPU milliseconds): p50, p99 and worst wall time, the CPU
    p99, and whether the wall p99 is within ``goal_ms``."""
    walls, cpus = [w for w, _ in times], [c for _, c in times]
    p99 = pct(walls, 0.99)
    verdict = "ok" if p99 <= goal_ms else f"> {goal_ms:.0f} ms"
    return (f"{label} ({len(times)}): p50 {pct(walls, 0.5):.1f} ms, p99 {p99:.1f} ms, "
            f"worst {max(walls):.1f} ms (cpu p99 {pct(cpus, 0.99):.1f} ms)"
            f"  goal p99 <= {goal_ms:.0f} ms: {verdict}")


async def timed(work: Callable[[], Awaitable[None]]) -> tuple[float, float]:
    """Run ``work``; its wall and CPU milliseconds."""
    wall, cpu = time.perf_counter(), time.process_time()
    await work()
    return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000
