"""Drawing pictures away from the bot's event loop, the urgent ones first.

Pillow holds Python's global lock for much of its work, so pictures drawn in threads of the bot's
process slow down everything else it does (answering interactions within Discord's 3 seconds
above all). :class:`DrawingPool` draws in separate worker processes instead (at a lower CPU
priority than the bot itself, each fed through its standard input and output by the event loop
alone), and serves pictures a person is waiting for (their hand after a
click, a new turn's table) before the background refresh of a table message, which is coalesced
anyway, without starving it. With ``KARAK_DRAWING_WORKERS=0`` one thread of the bot's process
draws instead, in the same order (:func:`drawing_thread`): it saves the workers' memory, but
that thread competes with the event loop for the interpreter.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import ctypes
import itertools
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
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
#: Seconds a drawing worker has to end once its input closed.
STOP_GRACE = 5.0
#: Pictures handed to a worker process at once: it starts the next while the bot's event loop
#: takes in the last, and an urgent picture asked for meanwhile waits behind one at most.
IN_FLIGHT = 2


def draw(kind: str, obs: Observation, locale: str) -> bytes:
    """Draw one picture (``table``, ``battle`` or ``hand``); runs in a worker process."""
    from render import battle_image, hand_image, table_image

    painters = {"table": table_image, "battle": battle_image, "hand": hand_image}
    return painters[kind](obs, locale)


def serve(parent: int) -> None:
    """A drawing worker's life (``python -c``, see :class:`_Worker`): read jobs from standard
    input, write each picture (or the error that stopped it) to standard output, until the
    input ends (the bot closed it, or died)."""
    start_worker(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the bot, which stops this
    import render  # noqa: F401 - loaded before the first picture is asked for
    from engine.observe import unpacked

    jobs, out = sys.stdin.buffer, os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # a stray print goes to the log, never into the pictures
    with contextlib.suppress(BrokenPipeError):  # the bot is gone: so is the work
        while head := jobs.read(4):
            kind, locale, obs = jobs.read(int.from_bytes(head, "big")).split(b" ", 2)
            try:
                status, data = 0, draw(kind.decode(), unpacked(obs), locale.decode())
            except Exception as exc:  # noqa: BLE001 - handed to the bot, which logs it
                status, data = 1, f"{type(exc).__name__}: {exc}".encode()
            out.write(bytes([status]) + len(data).to_bytes(4, "big") + data)
            out.flush()


def _settle(job: _Job, result: bytes | BaseException) -> None:
    """Give ``job``'s asker its picture or the error, unless it stopped waiting."""
    if job.done.done():
        return
    if isinstance(result, BaseException):
        job.done.set_exception(result)
    else:
        job.done.set_result(result)


def _hand_over(worker: _Worker, job: _Job, sent: collections.deque[_Job]) -> None:
    """Send ``job`` to ``worker`` and note it among those awaiting an answer; a picture whose
    observation cannot travel (a made-up one) fails alone."""
    try:
        packed = job.obs.packed()
    except Exception as exc:  # noqa: BLE001 - handed to whoever asked for the picture
        _settle(job, exc)
        return
    sent.append(job)
    worker.send(job.kind, job.locale, packed)


class WorkerGone(Exception):
    """A drawing worker ended before answering."""


class _Worker:
    """One drawing process fed through its standard input and output: a job is its length,
    then the picture's kind, its language and the observation packed
    (:meth:`~engine.Observation.packed`), apart by spaces; the answer a status byte, a length
    and the PNG (or the error). No thread of the bot is involved."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process

    @classmethod
    async def start(cls) -> _Worker:
        """Start a worker process running :func:`serve` with this bot's code."""
        root = str(Path(__file__).resolve().parent.parent)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            [root, *filter(None, [os.environ.get("PYTHONPATH")])])}
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-c", f"from bot.workers.drawing import serve; serve({os.getpid()})",
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, env=env)
        return cls(process)

    def send(self, kind: str, locale: str, packed: bytes) -> None:
        """Hand a picture to this worker: its kind, language and packed observation
        (:meth:`flush` sends it on; a dead worker shows there or in :meth:`answer`)."""
        assert self.process.stdin is not None
        data = f"{kind} {locale} ".encode() + packed
        self.process.stdin.write(len(data).to_bytes(4, "big") + data)

    async def flush(self) -> None:
        """Wait until the jobs handed over fit in the worker's input pipe."""
        assert self.process.stdin is not None
        try:
            await self.process.stdin.drain()
        except OSError as exc:
            raise WorkerGone(str(exc)) from exc

    async def answer(self) -> bytes | RuntimeError:
        """The answer to the oldest job handed over: the PNG, or the error that stopped it;
        :class:`WorkerGone` when the worker died."""
        stdout = self.process.stdout
        assert stdout is not None
        try:
            head = await stdout.readexactly(5)
            data = await stdout.readexactly(int.from_bytes(head[1:], "big"))
        except (OSError, asyncio.IncompleteReadError) as exc:
            raise WorkerGone(str(exc)) from exc
        return RuntimeError(data.decode(errors="replace")) if head[0] else data

    async def stop(self) -> None:
        """End the worker: its input closes, it exits (killed if it does not at once)."""
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            await asyncio.wait_for(self.process.wait(), STOP_GRACE)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
            await self.process.wait()


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
    """Worker processes (:class:`_Worker`) drawing pictures, fed from a priority queue (urgent
    first); with ``executor``, that executor's threads draw instead."""

    def __init__(self, workers: int, executor: Callable[[], Executor] | None = None,
                 clock: Callable[[], float] | None = None) -> None:
        self.workers = workers
        self.clock = clock  # seconds, for the order of the queue (default: the event loop's)
        self._make_executor = executor
        self._executor: Executor | None = None
        self._processes: list[_Worker] = []
        self._queue: asyncio.PriorityQueue[_Job] | None = None
        self._feeders: list[asyncio.Task[None]] = []
        self._seq = itertools.count()
        self._broken = False

    def _start(self) -> asyncio.PriorityQueue[_Job]:
        if self._queue is None:
            self._queue = asyncio.PriorityQueue()
            if self._make_executor is not None:
                self._executor = self._make_executor()
            loop = asyncio.get_running_loop()
            self._feeders = [loop.create_task(self._feed(), name=f"drawing-{i}")
                             for i in range(self.workers)]
        return self._queue

    async def _feed(self) -> None:
        """This feeder's work: keep its worker process drawing; in threads once that worker
        died (or could not start), or in the executor's threads when there is one."""
        if self._executor is None:
            try:
                worker = await _Worker.start()
                self._processes.append(worker)
                await self._keep_busy(worker)
            except (OSError, WorkerGone) as exc:
                log.warning("a drawing process died (%s); drawing in threads from now on", exc)
                self._broken = True
        loop = asyncio.get_running_loop()
        while True:
            job = await self._next()
            try:
                if self._executor is not None:
                    data = await loop.run_in_executor(self._executor, draw, job.kind, job.obs,
                                                      job.locale)
                else:
                    data = await asyncio.to_thread(draw, job.kind, job.obs, job.locale)
            except Exception as exc:  # noqa: BLE001 - handed to whoever asked for the picture
                _settle(job, exc)
                continue
            _settle(job, data)

    async def _keep_busy(self, worker: _Worker) -> None:
        """Feed ``worker`` the most urgent pictures, up to :data:`IN_FLIGHT` at once so it
        starts the next while the event loop takes in the last; it answers them in order.
        Raises :class:`WorkerGone` when it died, its unanswered pictures queued again."""
        assert self._queue is not None
        sent: collections.deque[_Job] = collections.deque()
        try:
            while True:
                if not sent:
                    _hand_over(worker, await self._next(), sent)
                while sent and len(sent) < IN_FLIGHT and (job := self._waiting()) is not None:
                    _hand_over(worker, job, sent)
                if not sent:
                    continue
                await worker.flush()
                answer = await worker.answer()  # first: a dead worker's pictures stay in sent
                _settle(sent.popleft(), answer)
        except WorkerGone:
            for job in sent:
                self._queue.put_nowait(job)
            raise

    async def _next(self) -> _Job:
        """The most urgent picture still wanted, once there is one."""
        assert self._queue is not None
        while (job := await self._queue.get()).done.done():
            pass
        return job

    def _waiting(self) -> _Job | None:
        """The most urgent picture still wanted, if one is waiting now."""
        assert self._queue is not None
        while not self._queue.empty():
            job = self._queue.get_nowait()
            if not job.done.done():
                return job
        return None

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
        workers, self._processes = self._processes, []
        await asyncio.gather(*(w.stop() for w in workers))
        self._queue = None

    def stats(self) -> dict[str, Any]:
        """Queue length and mode (for logs and benchmarks)."""
        return {"workers": self.workers, "waiting": self._queue.qsize() if self._queue else 0,
                "threads": self._broken or self.workers <= 0}
