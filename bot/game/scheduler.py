"""When game work happens on its own: AI seats play at a visible pace, turn timers run out, the
heartbeat file is touched while connected, leases are kept, a lobby left a day without a change
is closed, and on start every table this process holds goes on. Nothing here speaks to Discord:
what a move changed is handed to what posts it (:class:`Posts`, given at construction).

Several processes may share one database: each does this work only for the tables whose lease
it holds (:class:`~bot.game.leases.Leases`, renewed and the lapsed ones claimed every third of
the lease by the ``leases`` loop), and wakes a table it holds at once when another process
changed it (a person's move handled by the process of that guild's shard), or lets it go at
once when that change was the table going home to the process of its server's shard.

Once the bot begins to stop (``docker stop``), no AI move, timed-out turn or resumption starts;
a move being written finishes, and is shown, within the shutdown grace.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from functools import partial
from pathlib import Path
from typing import Any, Protocol

from bot.game.leases import Leases, Pass
from bot.game.markup import plain
from bot.game.play import Contended, Outcome
from bot.game.refusals import Refusal
from bot.game.service import GameService
from bot.storage.records import TableRecord
from bot.supervision.health import write_heartbeat
from bot.supervision.log_context import about
from bot.supervision.tasks import Tasks
from i18n import Msg, msg

log = logging.getLogger("karak.bot")
#: On start, results not yet posted are posted for games that ended this recently (seconds);
#: an older one is shown on its last table message instead, with nothing posted so late...
ANNOUNCE_WINDOW = 3600.0
#: ... among this many most recent finished or abandoned tables.
RECENT_ENDS = 50
#: The name of the loop enforcing turn timers (in the log and the health check).
TIMER_LOOP = "turn-timers"
HEARTBEAT = "heartbeat"
#: The name of the loop renewing this process's leases and claiming the lapsed ones.
LEASE_LOOP = "leases"
#: What the health check names while another process runs this process's shards too.
SHARDS = "shards"


class TimersFailed(Exception):
    """The turn timers of some tables could not be enforced (the others' were)."""


class Posts(Protocol):
    """What shows the game's work to people (:class:`bot.discord_side.poster.Poster`)."""

    def show(self, outcomes: Sequence[Outcome], notice: Msg | None) -> None:
        """Queue what the moves changed on their table's feed (the end of a finished game)."""
        ...

    def end(self, record: TableRecord, resumed: bool = False, late: bool = False) -> None:
        """Queue the end of a finished game (its result, once; ``resumed``: on start, a post
        a stopped process's try may have made looked for first; ``late``: shown on its last
        table message, nothing posted)."""
        ...

    def begin(self, record: TableRecord) -> None:
        """Queue a started game's table message (pinging the first player)."""
        ...

    async def refresh(self, record: TableRecord) -> None:
        """Queue the table message of a running table brought up to date (on start), pinging
        the person to play when their turn's was never posted."""
        ...

    async def take_up(self, record: TableRecord) -> None:
        """Queue the table message of a running table this process took up brought up to
        date, unless it shows that state already."""
        ...

    def let_go(self, table: int) -> None:
        """Another process took the table: drop its posts and edits still queued here."""
        ...

    def changed_elsewhere(self, table: int) -> None:
        """Another process wrote the table, which this process holds, and may have edited its
        table message since: the pictures that message is known to carry are not sent back
        (they are drawn)."""
        ...

    async def redraw_lobby(self, record: TableRecord) -> None:
        """Redraw an open lobby's message (on start)."""
        ...

    async def closed(self, record: TableRecord) -> None:
        """Queue the message of a lobby the bot closed losing its buttons and saying why."""
        ...


class Scheduler:
    """Leases, turn timers, AI seats' pacing, heartbeat and resuming for one bot.

    ``posts`` shows what happened; ``sweeps`` is more work for each pass of the timers (rematch
    offers lapsing); ``forgetters`` drop what other parts keep for a table that ended;
    ``made_for`` is told (table, user, version now) when the AI made a person's decision for
    them (the turn timer ran out, or they left the seat to the AI); ``began`` is told each game
    that started here; ``resumes`` is more work for the start, once the tables are resumed
    (tournaments' sign-up messages drawn closed); ``connected`` says whether the bot is
    connected (the heartbeat is written only then)."""

    def __init__(self, service: GameService, tasks: Tasks, leases: Leases, posts: Posts, *,
                 ai_pace: float = 1.5, timer_poll: float = 5.0, heartbeat: Path | None = None,
                 connected: Callable[[], bool] = lambda: True,
                 sweeps: Sequence[Callable[[], Awaitable[None]]] = (),
                 forgetters: Sequence[Callable[[int], None]] = (),
                 made_for: Sequence[Callable[[int, int, int], Awaitable[None]]] = (),
                 began: Sequence[Callable[[TableRecord], None]] = (),
                 resumes: Sequence[Callable[[], Coroutine[Any, Any, None]]] = ()) -> None:
        self.service = service
        self.tasks = tasks
        self.leases = leases
        self.posts = posts
        self.ai_pace = ai_pace
        self.timer_poll = timer_poll
        self.heartbeat = heartbeat
        self.connected = connected
        self.sweeps = tuple(sweeps)
        self.forgetters = tuple(forgetters)
        self.made_for = tuple(made_for)
        self.began = tuple(began)
        self.resumes = tuple(resumes)
        self._ai: dict[int, asyncio.Task[Any]] = {}
        #: The table as its last move left it, for its AI seat's next decision.
        self._known: dict[int, TableRecord] = {}
        self._timers: asyncio.Task[Any] | None = None
        #: The tables whose result, left unposted by a stopped process, was taken up here and
        #: is not known posted yet (forgotten by the pass of the leases that finds it posted).
        self._resumed_ends: set[int] = set()

    # ------------------------------------------------------------------ after moves

    async def after(self, outcomes: Sequence[Outcome], notice: Msg | None = None) -> None:
        """Show what the moves changed (:meth:`Posts.show`), then let AI seats play
        (``notice``: a line for the table). The table is the one the last move wrote: nothing
        is read again. A finished table is forgotten."""
        if not outcomes:
            return
        for o in outcomes:
            user = o.record.seats[o.seat].user
            if user is not None and o.by_ai:  # timed out, or the seat left to the AI
                for told in self.made_for:
                    await told(o.record.id, user, o.record.version)
        record = outcomes[-1].record
        self.posts.show(outcomes, notice)
        if record.status == "finished" and record.game.winner is not None:
            self.forget(record.id)
            return
        if record.status != "running":
            return
        self.kick_ai(record)

    async def begin(self, record: TableRecord) -> None:
        """The game started: its table message goes out (pinging the first player) and its AI
        seats play."""
        for told in self.began:
            told(record)
        self.posts.begin(record)
        self.kick_ai(record)

    def forget(self, table: int) -> None:
        """Drop what is kept in memory for a table that ended (finished or abandoned)."""
        self._ai.pop(table, None)
        self._known.pop(table, None)
        self.service.play.forget(table)
        self.service.tables.forget(table)
        self.leases.forget(table)
        for forget in self.forgetters:
            forget(table)

    def going(self) -> bool:
        """False once the bot began to stop: no AI move, timed-out turn or resumption starts."""
        return not self.tasks.stopping

    def busy(self, table: int) -> bool:
        """True while an AI loop is kept for the table (tests)."""
        return table in self._ai

    # ------------------------------------------------------------------ AI seats

    def kick_ai(self, record: TableRecord) -> None:
        """Start the AI loop of a table if an AI seat must decide (not once a stop began);
        ``record`` is the table as the caller's last change left it, kept for the loop's next
        decision unless a newer one is kept already."""
        if not self.going() or record.status != "running" or record.state is None:
            return
        known = self._known.get(record.id)
        if known is None or known.version <= record.version:  # a leave keeps the version
            self._known[record.id] = record
        if not record.seats[record.game.current].ai:
            return
        task = self._ai.get(record.id)
        if task is None or task.done():
            tid = record.id
            with about(table=tid, guild=record.guild_id):  # what the AI loop logs
                self._ai[tid] = self.tasks.repeat(partial(self._ai_move, tid), f"ai-{tid}", 0.0)

    async def _ai_move(self, table: int) -> bool:
        """One move of the AI seat that must decide, shown once the AI's pace is over (the pace
        runs while the AI thinks); False when no AI seat must, or when another process holds
        the table's lease (it plays there). A table other writers kept changing under every
        attempt (:class:`~bot.game.play.Contended`) is an ordinary race, not a failure: the
        AI's turn is tried again after its pace, the lease asked first, until it is made or
        the table no longer needs it."""
        if not await self.leases.holding(table):
            return False
        known = self._known.pop(table, None)
        if known is not None and not known.seats[known.game.current].ai:
            return False  # a person decides next; a change handing their seat over kicks again
        pace = asyncio.ensure_future(self.tasks.sleep(self.ai_pace))
        try:
            outcome = await self.service.play.ai_step(table, pace, self.going, known)
        except Refusal as exc:
            log.error("AI cannot play table %s: %s", table, exc.reason.key)
            return False
        except Contended as exc:  # others kept writing it: a race, no fault; its pace again
            log.info("%s; the AI tries again", exc)
            return True
        finally:
            pace.cancel()
        if outcome is None:
            await self.catch_up(table)
            return False
        await self.after([outcome])
        return outcome.record.status == "running"

    async def catch_up(self, table: int) -> None:
        """Post the result of a game that ended while showing its end failed (a full disk)."""
        try:
            record = await self.service.tables.load(table)
        except Refusal:
            return
        if record.status == "finished" and not await self.service.meta.was_announced(table):
            self.posts.end(record)
            self.forget(table)

    # ------------------------------------------------------------------ timers and heartbeat

    def start_timers(self) -> None:
        """Start the loop that enforces turn timers and touches the heartbeat, and the loop
        that keeps this process's leases."""
        if self._timers is None:
            self._timers = self.tasks.repeat(self._timer_pass, TIMER_LOOP, self.timer_poll,
                                             endless=True)
            self.tasks.repeat(self._lease_pass, LEASE_LOOP, self.leases.ttl / 3, endless=True)

    async def _lease_pass(self) -> bool:
        await self._kept(await self.leases.keep())
        await self._forget_posted_ends()
        for tid in await self.service.store.left_ends():
            await self._left_end(tid)
        if self.leases.shared is not None:  # told on every pass: the health check says it
            self.tasks.failures.failed(SHARDS, self.leases.shared)
        return True

    async def _forget_posted_ends(self) -> None:
        """Forget the ends taken up here whose result is posted now: a second try at one finds
        it posted, so nothing guards against posting it twice any more."""
        for tid in sorted(self._resumed_ends):
            if await self.service.meta.was_announced(tid):
                self._resumed_ends.discard(tid)

    async def _kept(self, changes: Pass, timer: bool = True) -> None:
        """After a pass of the leases: what another process took is let go (its messages are
        that process's now), and what this process took is shown afresh and goes on."""
        for tid in changes.lost:
            self._known.pop(tid, None)
            self.posts.let_go(tid)
        for tid in changes.taken:
            await self.take_over(tid, timer, show=True)

    async def take_over(self, table: int, timer: bool = True, show: bool = False) -> None:
        """Go on with a running table this process holds now, or that another process changed:
        its AI plays, its timer fires when due (unless ``timer`` is false: the caller checks
        the timers next); a table that ended is forgotten. ``show``: its table message is
        refreshed first (the process that held it may have stopped before showing its last
        move). Nothing starts once a stop began."""
        if not self.going():
            return
        try:
            record = await self.service.tables.load(table)
        except Refusal:
            return
        if record.status in ("finished", "abandoned"):
            self.forget(table)
        if record.status != "running":
            return
        if show:
            await self.posts.take_up(record)
        self.kick_ai(record)
        if timer and record.deadline is not None and record.deadline <= self.service.clock():
            await self._expire(table, record.version)

    def wake(self, table: int) -> None:
        """Another process changed ``table``, which this process holds: go on with it now,
        or let it go now when that change was the table going home to its server's process."""
        if self.going():
            self.tasks.spawn(self._woken(table), f"wake-{table}")

    async def _woken(self, table: int) -> None:
        """Go on with a table another process changed, or let it go if that process took it.
        Either way that process may have edited its table message (a change of the server's
        language, or a person's move or leave there, redraws it): the pictures known here to
        be on it are forgotten."""
        self.posts.changed_elsewhere(table)
        if await self.leases.confirm(table):
            await self.take_over(table)
        else:
            await self._kept(Pass([], [table]))

    async def _timer_pass(self) -> bool:
        self.beat()
        await self.check_timers()
        await self.close_idle_lobbies()
        for sweep in self.sweeps:
            await sweep()
        return True

    async def close_idle_lobbies(self) -> None:
        """Close the open lobbies this process holds that went a day without a change
        (:meth:`~bot.game.lobby.Lobby.close_idle`; another process's are its own to close):
        each lobby message loses its buttons and says why, and the table is forgotten. The
        leases are kept first when their last pass is out of date."""
        if not self.going():
            return
        await self._kept(await self.leases.keep_up(), timer=False)
        for record in await self.service.lobby.close_idle(self.leases.held()):
            await self.posts.closed(record)
            self.forget(record.id)

    def beat(self) -> None:
        """Write the heartbeat file while connected to Discord (container health check): it
        names the background work that keeps failing, if any."""
        path = self.heartbeat
        if path is None or not self.connected():
            return
        try:
            write_heartbeat(path, self.tasks.failures.unhealthy())
        except OSError as exc:  # a full disk: at least say the bot is alive
            self.tasks.failures.failed(HEARTBEAT, exc)
            with contextlib.suppress(OSError):
                path.touch()
        else:
            self.tasks.failures.worked(HEARTBEAT)

    async def check_timers(self) -> None:
        """Let the AI play every turn whose timer ran out; one table's trouble never stops the
        others' timers (it is raised once all were tried). Only the tables this process holds:
        the leases are kept first when their last pass is out of date."""
        await self._kept(await self.leases.keep_up(), timer=False)
        now = self.service.clock()
        failed: list[int] = []
        first: Exception | None = None
        for table, version, deadline in await self.service.play.due(self.leases.held()):
            if deadline > now:
                continue
            try:
                await self._expire(table, version)
            except Refusal:
                continue
            except Exception as exc:
                failed.append(table)
                first = first or exc
        if first is not None:
            raise TimersFailed(f"tables {failed}: {type(first).__name__}: {first}") from first

    async def _expire(self, table: int, version: int) -> None:
        """The AI plays a timed-out turn; the table is told, and goes on whatever that did. At
        a tournament's match, a turn whose deadline came with or after its round's end is left
        as it stands: the round's end decides the match (the tournaments' sweep of the same
        pass of the timers closes it)."""
        outcomes = await self.service.play.expire(table, version, self.going)
        if not outcomes:
            return
        record = outcomes[-1].record
        seat = outcomes[0].seat
        name = record.seats[seat].name
        who = plain(name) if name else msg(f"hero.{record.game.seats[seat].hero}.name")
        key = "bot.table.timeout_final" if outcomes[0].handed_to_ai else "bot.table.timeout"
        await self.after(outcomes, msg(key, who=who))

    # ------------------------------------------------------------------ resuming

    async def resume(self) -> None:
        """On start, of the tables this process holds (its own leases taken back, the lapsed
        ones claimed): every open lobby gets its message redrawn, every running table gets its
        message refreshed and its AI seats going, a game that ended just before a crash gets
        its result posted (one that ended longer ago than :data:`ANNOUNCE_WINDOW` shown on
        its last table message, nothing posted so late), and the start's other work
        (:attr:`resumes`) runs. From then on, other processes' changes of its tables wake
        them."""
        if not self.going():
            return
        held = await self.leases.start()
        await self.leases.listen(self.wake)
        lobbies = set(await self.service.tables.ids_with_status("lobby"))
        for tid in [t for t in held if t in lobbies]:
            self.tasks.supervise(partial(self._resume_lobby, tid), f"lobby-{tid}")
        running = set(await self.service.tables.ids_with_status("running"))
        for tid in [t for t in held if t in running]:
            try:
                record = await self.service.tables.load(tid)
                await self.posts.refresh(record)
            except Refusal as exc:
                log.error("table %s cannot be resumed: %s", tid, exc.__cause__ or exc.reason.key)
                continue
            except Exception:  # one table's trouble never stops the bot from starting
                log.exception("table %s cannot be resumed", tid)
                continue
            self.kick_ai(record)
        for number, work in enumerate(self.resumes):
            self.tasks.supervise(work, f"resume-{number}")
        now = self.service.clock()
        for record in await self.service.meta.unannounced(RECENT_ENDS):
            late = now - record.updated_at > ANNOUNCE_WINDOW
            self.tasks.supervise(partial(self._resume_end, record, late),
                                 f"announce-{record.id}")

    async def _resume_end(self, record: TableRecord, late: bool = False) -> None:
        """Post the result of a game that ended just before a crash (``late``: longer ago
        than :data:`ANNOUNCE_WINDOW`, shown on its last table message), unless another process
        does (it holds the table) or did. Taken up once, by the start or a pass of the leases:
        checked and recorded in one step after the lease is held, as the other may have taken
        it up while this one waited for it (the lease then given up again)."""
        if not self.going() or record.id in self._resumed_ends:
            return
        if not await self.leases.holding(record.id):
            return
        if record.id in self._resumed_ends:  # taken up meanwhile: only the lease to give up
            self.leases.forget(record.id)  # (the other try may not have queued its post yet)
            return
        self._resumed_ends.add(record.id)  # nothing awaited since the check
        if not await self.service.meta.was_announced(record.id):
            self.posts.end(record, resumed=True, late=late)
        self.forget(record.id)

    async def _left_end(self, tid: int) -> None:
        """A table that ended whose holder stopped before giving its lease up (killed, or
        stopped, maybe before it posted the result): its lease is claimed (by one process
        only), a finished game's result posted unless it was, and the lease given up."""
        if not self.going() or not await self.leases.holding(tid):
            return
        if tid in self._resumed_ends:  # taken up here already: only the lease to give up
            self.forget(tid)
            return
        try:
            record = await self.service.tables.load(tid)
        except Refusal:
            self.forget(tid)
            return
        if (record.status == "finished" and record.state is not None
                and record.game.winner is not None):
            late = self.service.clock() - record.updated_at > ANNOUNCE_WINDOW
            await self._resume_end(record, late)
        else:
            self.forget(tid)

    async def _resume_lobby(self, tid: int) -> None:
        """Redraw one open lobby's message after a restart (its last edit, or its first post,
        may have been lost in a crash)."""
        if not self.going():
            return
        try:
            record = await self.service.tables.load(tid)
        except Refusal as exc:
            log.error("table %s cannot be resumed: %s", tid, exc.__cause__ or exc.reason.key)
            return
        if record.status == "lobby":
            await self.posts.redraw_lobby(record)


__all__ = ["ANNOUNCE_WINDOW", "LEASE_LOOP", "Posts", "RECENT_ENDS", "SHARDS", "Scheduler",
           "TIMER_LOOP", "TimersFailed"]
