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

An edit that does not go through because of Discord's own trouble (an HTTP 5xx, once discord.py
gave up retrying) or the connection's (:func:`undelivered`) is tried again later, so a slow
match's table message does not show an old state until the next move during an outage: it is
queued again :data:`RETRY_FIRST` seconds later, then after a doubling pause up to
:data:`RETRY_CAP`, at most :data:`RETRIES` times, on the bot's clock (:meth:`Feeds.retry_due`
is a pass of the bot's timers). Only an edit: it shows the newest state, and showing it twice is
harmless, whereas a failed post may have been made (the table message of a new turn falls back
to an edit, see :mod:`bot.discord_side.messages`), unless Discord makes it once however often
it is sent (:attr:`Job.again`: a post carrying its own :func:`nonce`, such as a game's first table
message, which nothing else would post before a restart). Such a post is not given up while
Discord's trouble or the connection's lasts, however long: it is tried again every
:data:`RETRY_CAP` seconds until Discord answers, the log warning of its first :data:`RETRIES`
tries and once more that it goes on, not of every try (past :data:`NONCE_KEPT` seconds after a try
whose answer never came, it looks for the message that try made before posting again, as
Discord no longer gives it back for its nonce). The retry is not needed once a newer
post or edit of the table is queued (it is forgotten then), and never made once the table ended,
another process took it or its channel was deleted. So is one Discord refused because a moderator
took a permission from the bot where the table is (:func:`withheld`: View Channel, Send Messages):
they may well grant it again, and the table then shows how it stands, not how it stood when the
permission went (a post refused so was not made). A game's start refused so is not given up
either, however long the permission stays away: at a person's turn no move would follow to
post it, and the match would stand unshown, with no button to play it, once the permission is
granted again.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any, Literal

import discord

from bot.discord_side.context import (
    DMS_CLOSED,
    MISSING_ACCESS,
    MISSING_PERMISSIONS,
    UNDELIVERED,
    UNKNOWN_CHANNEL,
    why,
)
from bot.discord_side.pace import ChannelPace
from bot.storage.records import TableRecord, TournamentRecord
from bot.supervision.tasks import Tasks

log = logging.getLogger("karak.bot")
#: Ended tables remembered, so a late edit of one is dropped (the oldest forgotten first).
ENDED = 4096
#: Seconds before a failed edit is tried again; each further failure doubles the pause...
RETRY_FIRST = 15.0
#: ... up to this many seconds ...
RETRY_CAP = 240.0
#: ... and after this many tries again, the edit is given up (the next move shows the table;
#: a game's start is never given up, see :attr:`Job.again`).
RETRIES = 8
#: Seconds after a try of a post whose answer never came during which its :func:`nonce` is
#: trusted to make it once: Discord remembers a nonce for a couple of minutes, so a post tried
#: again later first looks for the message that try may have made (half of that, for a margin).
NONCE_KEPT = 60.0
#: The latest messages of a channel looked through for the post a try whose answer never came
#: made (one request).
LOOKED = 50

Kind = Literal["post", "edit", "other", "last"]


@dataclass
class Job:
    """One request (or a few, in a row) for a table's messages: ``kind`` says how it
    coalesces, ``version`` the table version it shows (edits older than what was shown are
    dropped); ``paced`` the channel whose pace (and the bot's) it waits for first, still
    replaceable (None: it goes at once); ``dropped`` is called when it is dropped unsent
    (someone waits for it); ``tries``: how often a failed edit was tried again already;
    ``again``: a post tried again like an edit when it fails so (Discord makes it once however
    often it is sent: see :func:`nonce`)."""

    kind: Kind
    version: int
    work: Callable[[], Awaitable[None]]
    paced: int | None = None
    dropped: Callable[[], None] | None = None
    tries: int = 0
    again: bool = False


def undelivered(exc: BaseException) -> bool:
    """True for a request that failed because of Discord's own trouble (HTTP 5xx) or the
    connection's (dropped, timed out): it may well go through later."""
    if isinstance(exc, discord.HTTPException):
        return exc.status >= 500
    return isinstance(exc, UNDELIVERED)


def withheld(exc: BaseException) -> bool:
    """True for a request Discord refused because the bot may not view the channel (Missing
    Access) or lacks a permission there (Missing Permissions): a moderator may grant it again,
    and the request then goes through (a post refused so was not made). So for a person's
    direct messages closed to the bot (or the bot blocked): they may open them again."""
    return (isinstance(exc, discord.HTTPException)
            and exc.code in (MISSING_ACCESS, MISSING_PERMISSIONS, DMS_CLOSED))


def nonce(record: TableRecord, what: str) -> str:
    """The nonce of the post ``what`` of ``record``'s table at its version, the same each time
    it is sent: Discord (sent with ``enforce_nonce``, as discord.py does with every nonce)
    answers a post of the bot whose nonce it used within the past few minutes, in any channel,
    with the message made then, so a post tried again after its answer was lost is not made
    twice. Named by the table's seed mixed with its id and the moment it was opened: not its
    id alone, since a database replaced meanwhile (a backup restored) numbers its tables
    again, and its table #1 is not another's; not its seed alone, since every guided match is
    dealt from the one lesson seed, and two people's begun within minutes are two posts."""
    return f"{what}{_named(record):x}v{record.version}"[:25]


def standings_nonce(record: TournamentRecord, seated: int, final: bool) -> str:
    """The nonce of the post of tournament ``record``'s standings with round ``seated`` seated
    (``final``: its champion), the same each time it is sent (see :func:`nonce`)."""
    return f"s{_named(record):x}{'f' if final else f'r{seated}'}"[:25]


def _named(record: TableRecord | TournamentRecord) -> int:
    """A number naming a table or tournament across databases (see :func:`nonce`)."""
    opened = hashlib.blake2b(f"{record.id}:{round(record.created_at * 1000)}".encode(),
                             digest_size=8).digest()
    return record.seed ^ (int.from_bytes(opened, "big") >> 1)


async def made_before(channel: discord.abc.Messageable, me: discord.abc.Snowflake | None,
                      after: int, marked: Callable[[discord.Message], bool], what: str
                      ) -> discord.Message | None:
    """The post a try whose answer never came made, once Discord may have forgotten its
    :func:`nonce`: among the latest :data:`LOOKED` messages of ``channel``, the bot's (``me``)
    newer than message ``after`` that ``marked`` recognises (``what``: the post, as the log
    names it). None when there is none, or when the bot may not read the channel's history
    (Discord then lists no messages, or refuses the read: the post is made again, a second
    message being the lesser harm than none); Discord's trouble or the connection's is raised
    (the post is tried again later)."""
    if me is None:
        return None
    try:
        async for message in channel.history(limit=LOOKED):
            if message.author.id == me.id and message.id > after and marked(message):
                return message
    except discord.Forbidden as exc:
        log.info("could not look for %s (%s)", what, why(exc))
    return None


def retry_pause(tries: int) -> float:
    """Seconds before a failed edit is tried again, once ``tries`` retries failed already."""
    return min(RETRY_CAP, RETRY_FIRST * 2.0 ** min(tries, 32))


class Feeds:
    """The feeds of every table: queue a table's jobs, each table's worker sends them (the
    paced ones when ``pace`` lets them); a failed edit is queued again once due on ``clock``
    (:meth:`retry_due`)."""

    def __init__(self, tasks: Tasks, pace: ChannelPace,
                 clock: Callable[[], float] = time.time) -> None:
        self.tasks = tasks
        self.pace = pace
        self.clock = clock
        self._jobs: dict[int, deque[Job]] = {}
        self._pacing: set[int] = set()  # tables whose worker waits for an edit's pace
        self._workers: dict[int, asyncio.Task[Any]] = {}
        self._shown: dict[int, int] = {}  # table -> the newest version queued to show
        self._ended: OrderedDict[int, None] = OrderedDict()
        self._retries: dict[int, tuple[float, Job]] = {}  # table -> when its failed edit goes

    def put(self, table: int, job: Job) -> None:
        """Queue ``job`` on ``table``'s feed (coalesced as its kind says)."""
        if table in self._ended:
            return
        if job.kind in ("post", "edit"):
            if job.version < self._shown.get(table, -1):
                return  # an older state than one already on its way
            self._shown[table] = job.version
            self._retries.pop(table, None)  # it shows the newest state: no retry needed
        jobs = self._jobs.setdefault(table, deque())
        if job.kind == "edit" and jobs and jobs[-1].kind == "edit":
            jobs[-1] = job  # the edit still waiting shows the newest state instead
        elif job.again and jobs and jobs[-1].again:
            jobs[-1] = job  # a game's start still waiting shows the table as it then stands
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
        go, and a failed edit is not tried again."""
        self._retries.pop(table, None)
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
        self._retries.pop(table, None)
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
                if job.tries > RETRIES:  # its warnings stopped: the end of the story
                    log.info("table %s: its message went through after %d tries", table,
                             job.tries + 1)
            except Exception as exc:
                if (job.kind == "edit" or job.again) and (undelivered(exc) or withheld(exc)):
                    self._later(table, job, exc)
                elif not isinstance(exc, discord.HTTPException):
                    log.exception("table %s: a message request failed", table)
                elif exc.code == UNKNOWN_CHANNEL:  # deleted: the request told (threads.lost)
                    log.info("table %s: its channel is gone", table)
                else:
                    log.warning("table %s: a message request failed (%s)", table, exc.status)
        if self._jobs.get(table) is jobs:
            del self._jobs[table]
            self._workers.pop(table, None)

    def _later(self, table: int, job: Job, exc: BaseException) -> None:
        """The edit ``job`` of ``table`` (or a post made once however often it is sent) did not
        go through (:func:`undelivered`, :func:`withheld`): it is tried again later, unless a
        newer post or edit
        is queued already, the table ended or was let go meanwhile (what was kept for it is
        forgotten), or it was tried enough."""
        what = "an edit" if job.kind == "edit" else "a post"
        if (table in self._ended or self._shown.get(table) != job.version
                or any(j.kind in ("post", "edit") for j in self._jobs.get(table, ()))):
            log.warning("table %s: %s of its message failed (%s)", table, what, why(exc))
            return
        if job.tries >= RETRIES and not job.again:
            log.warning("table %s: %s of its message failed (%s), %d times; given up until "
                        "the next move", table, what, why(exc), job.tries + 1)
            return
        pause = retry_pause(job.tries)
        if job.tries < RETRIES:
            log.warning("table %s: %s of its message failed (%s); trying again in %.0f s",
                        table, what, why(exc), pause)
        else:  # tried on for as long as it takes, which may be forever: warned once more
            log.log(logging.WARNING if job.tries == RETRIES else logging.DEBUG,
                    "table %s: %s of its message failed (%s), %d times; trying again every "
                    "%.0f s until it goes through, without a further warning", table, what,
                    why(exc), job.tries + 1, pause)
        self._retries[table] = (self.clock() + pause, replace(job, tries=job.tries + 1))

    async def retry_due(self) -> None:
        """Queue again the failed edits whose pause is over (a pass of the bot's timers)."""
        now = self.clock()
        for table, (due, job) in list(self._retries.items()):
            if due <= now:
                del self._retries[table]
                self.put(table, job)

    def retrying(self, table: int) -> bool:
        """True while a failed edit of ``table`` waits to be tried again."""
        return table in self._retries

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
        self._retries.pop(table, None)


__all__ = ["ENDED", "LOOKED", "NONCE_KEPT", "RETRIES", "RETRY_CAP", "RETRY_FIRST", "Feeds", "Job",
           "Kind", "made_before", "nonce", "retry_pause", "standings_nonce", "undelivered",
           "withheld"]
