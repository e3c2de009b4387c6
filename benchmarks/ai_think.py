"""How long the bot's event loop is held up while hard AI seats decide: the same hard decisions
made in the event loop itself, in a thread of the bot's process, and in a worker process
(:class:`bot.workers.thinking.Thinking`, what the bot does).

    .venv/bin/python benchmarks/ai_think.py --decisions 6 --seconds 1.0

A ticker asks to wake every 10 ms while the decisions run; its lag (how late it woke) is what a
click waits before the bot even starts answering it. Figures are wall-clock times on a shared
machine: compare the three modes of one run, not runs of different days.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot.workers.thinking import Thinking, decide  # noqa: E402
from engine import GameConfig, Observation, Phase, SeatConfig, apply, new_game, observe  # noqa: E402
from engine.agents import make_agent  # noqa: E402

TICK = 0.01


def turn_decisions(count: int, seed: int) -> list[Observation]:
    """Observations of ``count`` searched decisions (a turn's choice among several moves),
    from a normal self-play game of three seats."""
    state = new_game(GameConfig(seats=tuple(SeatConfig(h) for h in ("horan", "taia", "xanros")),
                                abilities=True, seed=seed))
    out: list[Observation] = []
    while len(out) < count and state.winner is None:
        obs = observe(state, state.current)
        if obs.phase is Phase.TURN and len(obs.legal) > 2:
            out.append(obs)
        state, _ = apply(state, make_agent("normal", state.step).choose(obs), seat=state.current)
    return out


async def measure(name: str, choose: Callable[[int, Observation], Awaitable[object]],
                  decisions: list[Observation]) -> None:
    """Run the decisions one after the other under a ticker; print the ticker's lags."""
    lags: list[float] = []
    done = asyncio.Event()

    async def ticker() -> None:
        loop = asyncio.get_running_loop()
        while not done.is_set():
            asked = loop.time()
            await asyncio.sleep(TICK)
            lags.append(loop.time() - asked - TICK)

    ticking = asyncio.create_task(ticker())
    await asyncio.sleep(TICK * 3)
    start = time.perf_counter()
    for i, obs in enumerate(decisions):
        await choose(i, obs)
        await asyncio.sleep(0)  # the bot's AI loop lets other work run between two moves
    took = (time.perf_counter() - start) / len(decisions)
    done.set()
    await ticking
    lags.sort()
    p99 = lags[min(len(lags) - 1, int(len(lags) * 0.99))]
    print(f"{name:>8}: {took * 1000:7.0f} ms per decision; event loop late by "
          f"{statistics.median(lags) * 1000:6.1f} ms median, {p99 * 1000:6.1f} ms p99, "
          f"{lags[-1] * 1000:6.1f} ms at worst")


async def run(decisions: list[Observation], seconds: float) -> None:
    """The three modes, one after the other."""

    async def in_loop(i: int, obs: Observation) -> object:
        return decide("hard", i, obs, seconds)

    async def in_thread(i: int, obs: Observation) -> object:
        return await asyncio.to_thread(decide, "hard", i, obs, seconds)

    thinking = Thinking(workers=1, seconds=seconds)
    try:
        await thinking.choose("hard", 0, decisions[0])  # the worker starts (not measured)

        async def in_worker(i: int, obs: Observation) -> object:
            return await thinking.choose("hard", i, obs)

        await measure("loop", in_loop, decisions)
        await measure("thread", in_thread, decisions)
        await measure("worker", in_worker, decisions)
    finally:
        await thinking.close()


def main(argv: list[str] | None = None) -> int:
    """Print the figures; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--decisions", type=int, default=6, help="hard decisions per mode")
    parser.add_argument("--seconds", type=float, default=1.0, help="budget of one decision")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    decisions = turn_decisions(args.decisions, args.seed)
    print(f"{len(decisions)} hard decisions per mode, {args.seconds:g} s budget each")
    asyncio.run(run(decisions, args.seconds))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
