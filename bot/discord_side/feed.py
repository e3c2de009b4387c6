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
end or closing was queued takes no more posts or edits. The worker ends when its table's feed is
empty (a new one starts with the next job).
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

import discord

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
    replaceable (None: it goes at once)."""

    kind: Kind
    version: int
    work: Callable[[], Awaitable[None]]
    paced: int | None = None


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
            kept = [j for j in jobs if j.kind != "edit"]
            if table in self._pacing and jobs and jobs[0].kind == "edit":
                self._pacing.discard(table)  # the edit waiting for its pace is pointless:
                waiting = self._workers.pop(table, None)  # its worker stops waiting, the
                if waiting is not None:  # next one starts with the post
                    waiting.cancel()
            jobs.clear()
            jobs.extend(kept)
            jobs.append(job)
        else:
            jobs.append(job)
        if job.kind == "last":
            self._end(table)
        worker = self._workers.get(table)
        if worker is None or worker.done():
            self._workers[table] = self.tasks.spawn(self._work(table), f"feed-{table}")

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


__all__ = ["ENDED", "Feeds", "Job"]
