"""Choosing the moves of AI seats without holding the bot up.

An easy or normal decision takes a millisecond or two and is made at once. A hard decision
searches for up to a second, so it runs in a worker process (like the drawing workers: at a lower
CPU priority, and dying with the bot), with a time budget. A worker that dies or does not answer
in time costs one decision, which is made at normal level instead; the next hard decision starts
a fresh worker. With no worker processes (``workers=0``) hard decisions are made in a thread.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from bot.drawing import start_worker
from bot.records import DEFAULT_LEVEL
from engine import Action, Observation, parse
from engine.agents import make_agent

log = logging.getLogger("karak.bot")
#: Seconds a hard decision may search (``KARAK_AI_THINK``).
THINK_SECONDS = 1.0
#: Seconds a worker gets beyond the budget (starting, loading the engine) before the decision is
#: made at normal level instead.
SLACK = 15.0
#: What a worker runs: (level, seed, observation, seconds) -> the chosen move's notation.
Decide = Callable[[str, int, Observation, float | None], str]


def decide(level: str, seed: int, obs: Observation, seconds: float | None) -> str:
    """The notation of the move an agent of ``level`` picks (``seconds``: the budget of a hard
    search). Runs in a worker process for hard decisions."""
    return str(make_agent(level, seed, seconds=seconds).choose(obs))


def _warm_up(parent: int) -> None:
    """Start a thinking worker (:func:`bot.drawing.start_worker`) and load the search."""
    start_worker(parent)
    make_agent("hard")


def _end(executor: Executor) -> None:
    """Stop a pool whose worker died or is stuck, at once: its processes are killed (the
    standard library offers no public way before Python 3.14's ``terminate_workers``)."""
    processes = getattr(executor, "_processes", None) or {}
    for process in list(processes.values()):
        process.kill()
    executor.shutdown(wait=False, cancel_futures=True)


class Thinking:
    """Makes the decisions of AI seats: hard ones in worker processes, the others at once."""

    def __init__(self, workers: int = 1, seconds: float = THINK_SECONDS,
                 work: Decide = decide, slack: float = SLACK) -> None:
        self.workers = workers
        self.seconds = seconds
        self.slack = slack
        self.work = work  # what a worker runs (tests put a failing or waiting one here)
        self._executor: Executor | None = None
        # decisions wait here for a free worker, so a decision's clock starts when it does
        self._free = asyncio.Semaphore(max(1, workers))

    async def choose(self, level: str, seed: int, obs: Observation) -> Action:
        """A legal move for the observing seat at ``level``; never raises for a worker's
        trouble (the move is then normal's)."""
        if level == "hard":
            try:
                action = parse(await self._far(level, seed, obs))
            except Exception as exc:  # noqa: BLE001 - any failure: the move is normal's
                log.warning("a hard AI decision failed (%s); playing it at normal level",
                            type(exc).__name__)
                action = self._near(DEFAULT_LEVEL, seed, obs)
        else:
            action = self._near(level, seed, obs)
        return action if action in obs.legal else obs.legal[0]  # an agent bug stalls nothing

    @staticmethod
    def _near(level: str, seed: int, obs: Observation) -> Action:
        """A quick decision, made in the event loop."""
        return make_agent(level, seed).choose(obs)

    async def _far(self, level: str, seed: int, obs: Observation) -> str:
        """A decision made by a worker (a thread when there are none), within the budget."""
        if self.workers <= 0:
            return await asyncio.to_thread(self.work, level, seed, obs, self.seconds)
        async with self._free:
            if self._executor is None:
                self._executor = ProcessPoolExecutor(
                    self.workers, mp_context=multiprocessing.get_context("spawn"),
                    initializer=_warm_up, initargs=(os.getpid(),))
            executor = self._executor
            loop = asyncio.get_running_loop()
            try:
                return await asyncio.wait_for(
                    loop.run_in_executor(executor, self.work, level, seed, obs, self.seconds),
                    self.seconds + self.slack)
            except (BrokenProcessPool, TimeoutError):
                if self._executor is executor:  # a dead or stuck worker: the next decision
                    self._executor = None      # gets a fresh one
                    _end(executor)
                raise

    async def close(self) -> None:
        """Stop the worker processes at once: a decision in progress is dropped (its seat
        decides again when the bot runs next), so stopping never waits for a search."""
        if self._executor is not None:
            executor, self._executor = self._executor, None
            _end(executor)


__all__ = ["SLACK", "THINK_SECONDS", "Thinking", "decide"]
