"""Worker processes that run jobs away from the bot's event loop: the one way the bot runs them,
for drawing pictures and for the hard AI's thinking.

A :class:`WorkerPool` keeps ``workers`` processes (``python -m bot.workers.pool``), each fed
through its standard input and output by the event loop alone: a job is its length and its
bytes, an answer a status byte, a length and the result (or the error that stopped the job). Jobs
wait in one priority queue, the earliest due first, so urgent work goes before background work
that was asked for a little earlier, which is never starved. A worker is handed up to
``in_flight`` jobs at once, so it starts the next while the event loop takes in the last.

The guarantees: the workers die with the bot, even when it is killed with SIGKILL (the kernel
ends them on Linux; elsewhere they watch their parent); they run at a lower CPU priority than the
bot, which must answer within Discord's 3 seconds; a worker that dies, or passes a job's time
limit, costs the jobs it held (they fail with :class:`WorkerGone`, for their askers to do
without) and is replaced for the next job. With ``workers=0`` one thread of the bot's process
runs the jobs instead, in the same order.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import ctypes
import importlib
import itertools
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

log = logging.getLogger("karak.bot")
#: What a job is before it is packed for a worker.
J = TypeVar("J")
#: Niceness of the workers: the bot's own process (answering within 3 s) goes first.
WORKER_NICE = 5
#: Seconds between two checks of a worker that the bot's process still lives (not on Linux).
PARENT_CHECK = 0.5
#: prctl(2) option: the signal a process gets when its parent ends.
PR_SET_PDEATHSIG = 1
#: Seconds a worker has to end once its input closed.
STOP_GRACE = 5.0
#: The start of the names of the tasks that feed the workers (they last as long as the pool).
FEEDER = "feeding-"
#: Seconds before a worker that could not start is tried again.
RESTART_PAUSE = 1.0


class WorkerGone(Exception):
    """A worker ended (or was ended for passing the time limit) before answering."""


class JobFailed(RuntimeError):
    """The job raised in the worker; the message is the worker's ``Type: text``."""


def handler(name: str) -> Callable[[bytes], bytes]:
    """The job function named ``module:function``, as a worker runs it."""
    module, _, function = name.partition(":")
    found: Callable[[bytes], bytes] = getattr(importlib.import_module(module), function)
    return found


def serve(parent: int, name: str) -> None:
    """A worker's life: run the job function ``name`` on each job read from standard input and
    write its answer to standard output, until the input ends (the bot closed it, or died)."""
    _die_with(parent)
    with contextlib.suppress(OSError):  # not allowed here: work at normal priority
        os.nice(WORKER_NICE)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the bot, which stops this
    run = handler(name)  # imported before the first job: its module loads what it needs
    jobs, out = sys.stdin.buffer, os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # a stray print goes to the log, never into the answers
    with contextlib.suppress(BrokenPipeError):  # the bot is gone: so is the work
        while head := jobs.read(4):
            job = jobs.read(int.from_bytes(head, "big"))
            try:
                status, data = 0, run(job)
            except Exception as exc:  # noqa: BLE001 - handed to the bot, which logs it
                status, data = 1, f"{type(exc).__name__}: {exc}".encode()
            out.write(bytes([status]) + len(data).to_bytes(4, "big") + data)
            out.flush()


def _die_with(parent: int) -> None:
    """End this worker as soon as the bot's process ``parent`` is gone, even killed with SIGKILL.

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


class Worker:
    """One worker process, fed through its standard input and output (no thread involved)."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process

    @classmethod
    async def start(cls, name: str) -> Worker:
        """Start a worker process running the job function ``name`` with this bot's code (and
        the same import path, so a test's job functions are found too)."""
        path = os.pathsep.join(p for p in sys.path if p)
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot.workers.pool", str(os.getpid()), name,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": path})
        return cls(process)

    def send(self, job: bytes) -> None:
        """Hand a job over (:meth:`flush` sends it on; a dead worker shows there or in
        :meth:`answer`)."""
        assert self.process.stdin is not None
        self.process.stdin.write(len(job).to_bytes(4, "big") + job)

    async def flush(self) -> None:
        """Wait until the jobs handed over fit in the worker's input pipe."""
        assert self.process.stdin is not None
        try:
            await self.process.stdin.drain()
        except OSError as exc:
            raise WorkerGone(str(exc)) from exc

    async def answer(self) -> bytes | JobFailed:
        """The answer to the oldest job handed over, or the error that stopped it;
        :class:`WorkerGone` when the worker died."""
        stdout = self.process.stdout
        assert stdout is not None
        try:
            head = await stdout.readexactly(5)
            data = await stdout.readexactly(int.from_bytes(head[1:], "big"))
        except (OSError, asyncio.IncompleteReadError) as exc:
            raise WorkerGone(str(exc)) from exc
        return JobFailed(data.decode(errors="replace")) if head[0] else data

    async def stop(self, grace: float = STOP_GRACE) -> None:
        """End the worker: its input closes, it exits (killed if it does not in ``grace``)."""
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            await asyncio.wait_for(self.process.wait(), grace)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
            await self.process.wait()


@dataclass(order=True)
class _Job(Generic[J]):
    due: float
    seq: int
    job: J = field(compare=False)
    limit: float | None = field(compare=False)
    done: asyncio.Future[bytes] = field(compare=False)


def _settle(job: _Job[Any], result: bytes | BaseException) -> None:
    """Give ``job``'s asker its answer or the error, unless it stopped waiting."""
    if job.done.done():
        return
    if isinstance(result, BaseException):
        job.done.set_exception(result)
    else:
        job.done.set_result(result)


class WorkerPool(Generic[J]):
    """Jobs run by ``workers`` worker processes running the job function ``name``
    (``module:function``, bytes to bytes), each job packed by ``pack``; with no workers,
    ``local`` runs them in one thread (``thread_name`` names it)."""

    def __init__(self, name: str, pack: Callable[[J], bytes], local: Callable[[J], bytes],
                 workers: int, in_flight: int = 1, thread_name: str = "worker",
                 clock: Callable[[], float] | None = None) -> None:
        self.name = name
        self.pack = pack
        self.local = local
        self.workers = workers
        self.in_flight = in_flight
        self.thread_name = thread_name
        self.clock = clock  # seconds, for the order of the queue (default: the event loop's)
        self.started = 0  # worker processes started so far (replacements included)
        self.restarts = 0  # worker processes that ended and were replaced
        self._queue: asyncio.PriorityQueue[_Job[J]] | None = None
        self._feeders: list[asyncio.Task[None]] = []
        self._running: list[Worker] = []
        self._thread: ThreadPoolExecutor | None = None
        self._seq = itertools.count()

    async def run(self, job: J, delay: float = 0.0, limit: float | None = None) -> bytes:
        """The answer to ``job``, run once a worker is free for it: jobs run in the order of
        their due time (now plus ``delay``). A job still running ``limit`` seconds after its
        worker took it costs that worker. Raises :class:`JobFailed` when the job raised, and
        :class:`WorkerGone` when its worker died or passed the limit."""
        queue = self._start()
        loop = asyncio.get_running_loop()
        done: asyncio.Future[bytes] = loop.create_future()
        now = self.clock() if self.clock is not None else loop.time()
        queue.put_nowait(_Job(now + delay, next(self._seq), job, limit, done))
        return await done

    def start(self) -> None:
        """Start the workers now, ahead of the first job (which otherwise starts them), so that
        job does not wait for them; nothing when they are started already."""
        self._start()

    @property
    def active(self) -> bool:
        """Whether the workers were started (and not closed since)."""
        return self._queue is not None

    def _start(self) -> asyncio.PriorityQueue[_Job[J]]:
        if self._queue is None:
            self._queue = asyncio.PriorityQueue()
            loop = asyncio.get_running_loop()
            if self.workers <= 0:
                self._thread = ThreadPoolExecutor(1, thread_name_prefix=self.thread_name)
                self._feeders = [loop.create_task(self._in_thread(self._thread),
                                                  name=f"{FEEDER}{self.thread_name}")]
            else:
                self._feeders = [loop.create_task(self._feed(),
                                                  name=f"{FEEDER}{self.thread_name}-{i}")
                                 for i in range(self.workers)]
        return self._queue

    async def _in_thread(self, thread: ThreadPoolExecutor) -> None:
        """Run the jobs one at a time in the pool's thread."""
        loop = asyncio.get_running_loop()
        while True:
            item = await self._next()
            try:
                _settle(item, await loop.run_in_executor(thread, self.local, item.job))
            except Exception as exc:  # noqa: BLE001 - handed to whoever asked
                _settle(item, exc)

    async def _feed(self) -> None:
        """This feeder's work: keep one worker process busy, and replace it when it dies. Every
        feeder starts its worker with the pool (its first job), so a job asked while the other
        workers are busy does not wait for a process to start; a replacement starts with the
        next job."""
        first: _Job[J] | None = None
        while True:
            try:
                worker = await Worker.start(self.name)
            except OSError as exc:
                log.warning("a worker process could not start (%s)", exc)
                _settle(first if first is not None else await self._next(),
                        WorkerGone(str(exc)))
                await asyncio.sleep(RESTART_PAUSE)
                first = await self._next()
                continue
            self.started += 1
            self._running.append(worker)
            try:
                await self._keep_busy(worker, first)
            except WorkerGone as exc:
                log.warning("a worker process ended (%s); starting another", exc)
                self.restarts += 1
            finally:
                self._running.remove(worker)
                await worker.stop(grace=0.0)
            first = await self._next()

    async def _keep_busy(self, worker: Worker, first: _Job[J] | None) -> None:
        """Feed ``worker`` the most urgent jobs (``first`` first, if given), up to ``in_flight``
        at once; it answers them in order. Raises :class:`WorkerGone` when it died or passed a
        job's limit, after failing the jobs it held."""
        sent: collections.deque[_Job[J]] = collections.deque()
        if first is not None:
            self._hand_over(worker, first, sent)
        try:
            while True:
                while len(sent) < self.in_flight and (item := self._waiting()) is not None:
                    self._hand_over(worker, item, sent)
                if not sent:
                    self._hand_over(worker, await self._next(), sent)
                    continue
                await worker.flush()
                try:  # awaited first: a dead worker's jobs stay in sent
                    async with asyncio.timeout(sent[0].limit):  # no task of its own
                        answer = await worker.answer()
                except TimeoutError as exc:
                    raise WorkerGone(f"no answer in {sent[0].limit} s") from exc
                _settle(sent.popleft(), answer)
        except WorkerGone as exc:
            for item in sent:
                _settle(item, WorkerGone(str(exc)))
            raise

    def _hand_over(self, worker: Worker, item: _Job[J], sent: collections.deque[_Job[J]]) -> None:
        """Send ``item`` to ``worker``; a job that cannot be packed (an observation holding a
        value MessagePack cannot carry) fails alone."""
        try:
            packed = self.pack(item.job)
        except Exception as exc:  # noqa: BLE001 - handed to whoever asked
            _settle(item, exc)
            return
        sent.append(item)
        worker.send(packed)

    async def _next(self) -> _Job[J]:
        """The most urgent job still wanted, once there is one."""
        assert self._queue is not None
        while (item := await self._queue.get()).done.done():
            pass
        return item

    def _waiting(self) -> _Job[J] | None:
        """The most urgent job still wanted, if one is waiting now."""
        assert self._queue is not None
        while not self._queue.empty():
            item = self._queue.get_nowait()
            if not item.done.done():
                return item
        return None

    def waiting(self) -> int:
        """How many jobs wait for a worker."""
        return self._queue.qsize() if self._queue is not None else 0

    def pids(self) -> list[int]:
        """The process ids of the running workers."""
        return [w.process.pid for w in self._running]

    async def close(self) -> None:
        """Stop the feeders and the worker processes (jobs not answered yet are dropped)."""
        for task in self._feeders:
            task.cancel()
        await asyncio.gather(*self._feeders, return_exceptions=True)  # each stops its worker
        self._feeders = []
        if self._thread is not None:
            thread, self._thread = self._thread, None
            await asyncio.to_thread(thread.shutdown, True, cancel_futures=True)
        self._queue = None


if __name__ == "__main__":
    serve(int(sys.argv[1]), sys.argv[2])
