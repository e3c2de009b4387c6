"""Each table's Discord requests, in order, one table at a time: the table's feed.

A move's outcome is shown by queueing what it changed on its table's feed (a fresh table
message for a new turn, an edit, a passing line, the end, the closing edit); one small worker
per table sends them in the order queued, so the table's messages keep their order without any
lock held while Discord answers. A rate-limited channel only holds up its own table's feed:
moves go on being written and queued, and the other tables' feeds go on.

Edits wait for their channel's pace and the bot's (:mod:`bot.discord_side.pace`) and coalesce:
an edit queued while another edit of the same table still waits replaces it (the newest state
is shown, once), and a fresh table message makes the edits queued before it pointless (it
shows a newer state, and goes at once instead of waiting for the edit's turn). A table whose
end or closing was queued takes no more posts or edits; a table another process took drops its
posts and edits still queued, and a table whose channel was deleted drops everything queued.
The worker ends when its table's feed is empty (a new one starts with the next job).
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

import discord

from bot.discord_side.context import UNKNOWN_CHANNEL
from bot.discord_side.pace import ChannelPace
from bot.supervision.tasks import Tasks

log = logging.getLogger("karak.bot")
#: Ended tables remembered, so a late edit of one is dropped (the oldest forgotten first).
ENDED = 4096

Kind = Literal["post", "edit", "other", "last"]


@dataclass
class Job:
    """One request (or a few, in a row) for a table's messages: ``kind`` says how it
    coalesces, ``version`` the table version it shows (edits older than what was shown are
    dropped); ``paced`` the channel whose pace (and the bot's) it waits for first, still
    replaceable (None: it goes at once); ``dropped`` is called when it is dropped unsent
    (someone waits for it)."""

    kind: Kind
    version: int
    work: Callable[[], Awaitable[None]]
    paced: int | None = None
    dropped: Callable[[], None] | None = None


class Feeds:
    """The feeds of every table: queue a table's jobs, each table's worker sends them (the
    paced ones when ``pace`` lets them)."""

    def __init__(self, tasks: Tasks, pace: ChannelPace) -> None:
        self.tasks = tasks
        self.pace = pace
        self._jobs: dict[int, deque[Job]] = {}
        self._pacing: set[int] = set()  # tables whose worker waits for an edit's pace
        self._workers: dict[int, asyncio.Task[Any]] = {}
        self._shown: dict[int, int] = {}  # table -> the newest version queued to show
        self._ended: OrderedDict[int, None] = OrderedDict()

    def put(self, table: int, job: Job) -> None:
        """Queue ``job`` on ``table``'s feed (coalesced as its kind says)."""
        if table in self._ended:
            return
        if job.kind in ("post", "edit"):
            if job.version < self._shown.get(table, -1):
                return  # an older state than one already on its way
            self._shown[table] = job.version
        jobs = self._jobs.setdefault(table, deque())
        if job.kind == "edit" and jobs and jobs[-1].kind == "edit":
            jobs[-1] = job  # the edit still waiting shows the newest state instead
        elif job.kind == "post":
            self._keep_only(table, ("post", "other", "last"))  # the edits are pointless
            jobs.append(job)
        else:
            jobs.append(job)
        if job.kind == "last":
            self._end(table)
        self._start(table)

    def drop(self, table: int) -> None:
        """Drop the posts and edits still queued for ``table`` (another process shows it now:
        they would show an older state after that process's); its lines and its end still
        go."""
        if self._jobs.get(table):
            self._keep_only(table, ("other", "last"))
            self._start(table)

    def end(self, table: int) -> None:
        """``table``'s channel was deleted: every job still queued for it is dropped (nothing
        can be sent there any more) and nothing more is taken."""
        if self._jobs.get(table):
            self._keep_only(table, ())
            self._start(table)
        self._end(table)

    def showing(self, table: int) -> int:
        """The newest version of ``table`` queued to show here (-1: none)."""
        return self._shown.get(table, -1)

    def _keep_only(self, table: int, kinds: tuple[Kind, ...]) -> None:
        """Keep only the jobs of ``kinds`` queued for ``table``; a worker waiting for the pace
        of an edit dropped stops waiting (the next one starts with what is kept)."""
        jobs = self._jobs[table]
        if table in self._pacing and jobs and jobs[0].kind not in kinds:
            self._pacing.discard(table)
            waiting = self._workers.pop(table, None)
            if waiting is not None:
                waiting.cancel()
        kept = [j for j in jobs if j.kind in kinds]
        for job in jobs:
            if job.kind not in kinds and job.dropped is not None:
                job.dropped()
        jobs.clear()
        jobs.extend(kept)

    def _start(self, table: int) -> None:
        """Start ``table``'s worker unless it runs (a running worker sends what is queued,
        and lets the feed go once it is empty)."""
        worker = self._workers.get(table)
        if worker is not None and not worker.done():
            return
        if self._jobs.get(table):
            self._workers[table] = self.tasks.spawn(self._work(table), f"feed-{table}")
        else:
            self._jobs.pop(table, None)

    def _end(self, table: int) -> None:
        self._ended[table] = None
        while len(self._ended) > ENDED:
            self._ended.popitem(last=False)

    async def _work(self, table: int) -> None:
        """Send ``table``'s jobs in order until its feed is empty."""
        jobs = self._jobs.get(table)
        while jobs:
            head = jobs[0]
            if head.paced is not None and not self.pace.claim(head.paced):
                self._pacing.add(table)  # a post queued meanwhile cancels this wait
                await self.pace.ready(head.paced)  # newer edits may replace it meanwhile
                self._pacing.discard(table)
            job = jobs.popleft()
            try:
                await job.work()
            except discord.HTTPException as exc:
                if exc.code == UNKNOWN_CHANNEL:  # deleted: the request told (threads.lost)
                    log.info("table %s: its channel is gone", table)
                else:
                    log.warning("table %s: a message request failed (%s)", table, exc.status)
            except Exception:
                log.exception("table %s: a message request failed", table)
        if self._jobs.get(table) is jobs:
            del self._jobs[table]
            self._workers.pop(table, None)

    def queued(self, table: int) -> int:
        """How many jobs wait on ``table``'s feed (tests)."""
        return len(self._jobs.get(table, ()))

    def busy(self, table: int) -> bool:
        """True while ``table``'s feed has work."""
        worker = self._workers.get(table)
        return bool(self._jobs.get(table)) or (worker is not None and not worker.done())

    def ended(self, table: int) -> bool:
        """True once ``table``'s end (or closing) was queued."""
        return table in self._ended

    def forget(self, table: int) -> None:
        """Drop what is kept for a table that ended (its end is remembered: nothing more is
        queued for it)."""
        self._shown.pop(table, None)


__all__ = ["ENDED", "Feeds", "Job", "Kind"]
