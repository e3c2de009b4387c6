"""Drawing pictures away from the bot's event loop, the urgent ones first.

Pillow holds Python's global lock for much of its work, so pictures drawn in threads of the bot's
process slow down everything else it does (answering interactions within Discord's 3 seconds
above all). :class:`DrawingPool` draws in separate worker processes instead (at a lower CPU
priority than the bot itself), and serves pictures a person is waiting for (their hand after a
click, a new turn's table) before the background refresh of a table message, which is coalesced
anyway, without starving it. With ``KARAK_DRAWING_WORKERS=0`` one thread of the bot's process
draws instead, in the same order (:func:`drawing_thread`): it saves the workers' memory, but
that thread competes with the event loop for the interpreter.
"""

from __future__ import annotations

import asyncio
import ctypes
import itertools
import logging
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

from engine import Observation

log = logging.getLogger("karak.bot")
URGENT, BACKGROUND = 0, 1
#: A background picture waits behind urgent ones for at most about this many seconds.
BACKGROUND_SLACK = 8.0
#: Niceness of the drawing workers: the bot's own process (answering within 3 s) goes first.
WORKER_NICE = 5
#: Seconds between two checks of a worker that the bot's process still lives (not on Linux).
PARENT_CHECK = 0.5
#: prctl(2) option: the signal a process gets when its parent ends.
PR_SET_PDEATHSIG = 1


def draw(kind: str, obs: Observation, locale: str) -> bytes:
    """Draw one picture (``table``, ``battle`` or ``hand``); runs in a worker process."""
    from render import battle_image, hand_image, table_image

    painters = {"table": table_image, "battle": battle_image, "hand": hand_image}
    return painters[kind](obs, locale)


def draw_packed(kind: str, packed_obs: bytes, locale: str) -> bytes:
    """:func:`draw` of an observation :meth:`~engine.Observation.packed` (handed over in
    microseconds where pickling the observation takes hundreds)."""
    from engine.observe import unpacked

    return draw(kind, unpacked(packed_obs), locale)


def _die_with(parent: int) -> None:
    """End this worker as soon as the bot's process ``parent`` is gone, even killed with SIGKILL
    (no chance then to shut the pool down; the worker would wait for work forever).

    On Linux the kernel does it: ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` kills the worker when the
    thread that started it ends (the pool starts its workers from the bot's event loop thread,
    which lives as long as the process). The bot may already have died before that call, so
    the parent is checked once after it. Elsewhere a thread checks the parent every
    :data:`PARENT_CHECK` seconds."""
    if sys.platform == "linux":
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0:
            if os.getppid() != parent:
                os._exit(0)
            return
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True,
                     name="parent-watch").start()


def _watch_parent(parent: int) -> None:
    """Exit once this process's parent is no longer ``parent``."""
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK)
    os._exit(0)


def start_worker(parent: int) -> None:
    """In a new worker process: die with the bot's process ``parent`` and give the bot's own
    process (answering within 3 s) the CPU first."""
    _die_with(parent)
    try:
        os.nice(WORKER_NICE)
    except OSError:  # pragma: no cover - not allowed here: work at normal priority
        pass


def _warm_up(parent: int) -> None:
    """Start a drawing worker (:func:`start_worker`) and load the renderer."""
    start_worker(parent)
    import render  # noqa: F401


def drawing_thread() -> Executor:
    """One thread of the bot's own process that draws every picture, one at a time (the
    renderer's caches are shared, and pictures after a move cost a few milliseconds)."""
    return ThreadPoolExecutor(1, thread_name_prefix="drawing")


@dataclass(order=True)
class _Job:
    due: float
    seq: int
    kind: str = field(compare=False)
    obs: Observation = field(compare=False)
    locale: str = field(compare=False)
    done: asyncio.Future[bytes] = field(compare=False)


class DrawingPool:
    """Worker processes drawing pictures, fed from a priority queue (urgent first)."""

    def __init__(self, workers: int, executor: Callable[[], Executor] | None = None,
                 clock: Callable[[], float] | None = None) -> None:
        self.workers = workers
        self.clock = clock  # seconds, for the order of the queue (default: the event loop's)
        self._make_executor = executor or self._processes
        self._packs = executor is None  # worker processes get packed observations
        self._executor: Executor | None = None
        self._queue: asyncio.PriorityQueue[_Job] | None = None
        self._feeders: list[asyncio.Task[None]] = []
        self._seq = itertools.count()
        self._broken = False

    def _processes(self) -> Executor:
        return ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_warm_up, initargs=(os.getpid(),))

    def _start(self) -> asyncio.PriorityQueue[_Job]:
        if self._queue is None:
            self._queue = asyncio.PriorityQueue()
            self._executor = self._make_executor()
            loop = asyncio.get_running_loop()
            self._feeders = [loop.create_task(self._feed(), name=f"drawing-{i}")
                             for i in range(self.workers)]
        return self._queue

    async def _feed(self) -> None:
        """Hand the most urgent waiting picture to a free worker, one at a time."""
        assert self._queue is not None
        loop = asyncio.get_running_loop()
        while True:
            job = await self._queue.get()
            if job.done.done():
                continue
            try:
                if self._broken or self._executor is None:
                    data = await asyncio.to_thread(draw, job.kind, job.obs, job.locale)
                elif self._packs:
                    data = await loop.run_in_executor(self._executor, draw_packed, job.kind,
                                                      job.obs.packed(), job.locale)
                else:
                    data = await loop.run_in_executor(self._executor, draw, job.kind, job.obs,
                                                      job.locale)
            except BrokenProcessPool:
                log.warning("the drawing processes died; drawing in threads from now on")
                self._broken = True
                self._queue.put_nowait(job)
                continue
            except Exception as exc:
                if not job.done.done():
                    job.done.set_exception(exc)
                continue
            if not job.done.done():
                job.done.set_result(data)

    async def draw(self, kind: str, obs: Observation, locale: str,
                   priority: int = URGENT) -> bytes:
        """The picture, drawn by a worker as soon as one is free for its priority."""
        if self.workers <= 0:
            return await asyncio.to_thread(draw, kind, obs, locale)
        queue = self._start()
        loop = asyncio.get_running_loop()
        done: asyncio.Future[bytes] = loop.create_future()
        # earliest due first: urgent pictures now, background ones a little later, so they
        # give way to urgent ones but are never starved
        now = self.clock() if self.clock is not None else loop.time()
        due = now + (BACKGROUND_SLACK if priority == BACKGROUND else 0.0)
        queue.put_nowait(_Job(due, next(self._seq), kind, obs, locale, done))
        return await done

    async def close(self) -> None:
        """Stop the feeders and the worker processes."""
        for task in self._feeders:
            task.cancel()
        await asyncio.gather(*self._feeders, return_exceptions=True)
        self._feeders = []
        if self._executor is not None:
            executor, self._executor = self._executor, None
            await asyncio.to_thread(executor.shutdown, True, cancel_futures=True)
        self._queue = None

    def stats(self) -> dict[str, Any]:
        """Queue length and mode (for logs and benchmarks)."""
        return {"workers": self.workers, "waiting": self._queue.qsize() if self._queue else 0,
                "threads": self._broken or self.workers <= 0}
