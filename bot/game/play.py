"""The game: people's moves, AI seats' moves and turn timers, with no Discord in sight.

Every move runs under the table's lock (:meth:`bot.game.tables.Tables.hold`) on the table re-read
from the store, so two simultaneous clicks are serialised and the second sees the first's result
(a stale version). Refusals are :class:`bot.game.refusals.Refusal` exceptions carrying a
translatable reason. A move's :class:`Outcome` carries the table as the move wrote it: nothing
reads back what was just written, and the lock covers reading, deciding and writing only.

Several processes may share one database: the lock serialises one process's work only, so a
write can still find the table changed by another process between its read and its write (the
store refuses it: a stale version). An AI seat's move and a timed-out turn then read the table
again and go on from where it is, a few times at most; once the table moved on so that the move
is no longer theirs to make, they stop without a word.

The bot stopping is told through ``going``: once it answers False, no AI move and no timed-out
turn starts (a write under way finishes).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass, field, replace

from bot.game.away import Said, since_last_move
from bot.game.guard import question
from bot.game.lessons import Lesson, Taught, lesson_now, lessons_met, taught_after
from bot.game.people import forgotten
from bot.game.refusals import Ask, Damaged, Illegal, NoTable, OutOfTurn, Refusal, Stale
from bot.game.results import finished_result
from bot.game.seats import deadline, next_host, playing_seat, seat_label
from bot.game.standings import rate_result
from bot.game.tables import Tables
from bot.game.texts import controls
from bot.storage.core.rows import keep
from bot.storage.interface import Storage
from bot.storage.records import (
    LogRow,
    NotHeld,
    SeatInfo,
    StaleVersion,
    TableRecord,
    standing,
    with_seat,
)
from bot.supervision.metrics import UNCOUNTED, Metrics
from bot.workers.thinking import Thinking
from engine import (
    Action,
    BadNotation,
    Event,
    GameState,
    IllegalAction,
    Phase,
    Undo,
    apply,
    observe,
    parse,
)
from engine.agents import DEFAULT_LEVEL, make_agent
from engine.agents.offered import without_undo
from i18n import Msg, msg

log = logging.getLogger(__name__)
#: After this many turns in a row played by the AI because the timer ran out, the seat is the AI's.
MAX_TIMEOUTS = 2
#: Safety bound on the moves the AI makes in one timed-out turn.
MAX_AI_MOVES_PER_TURN = 200
#: Taking back a move (only a person does, and only where the table allows it).
UNDO = Undo()
#: Attempts at an AI seat's move, a timed-out turn or a person's move, while other processes
#: keep changing the table between its read and its write.
ATTEMPTS = 5
#: Running tables whose moves made here are kept (the oldest forgotten first: a forgotten one
#: only costs a read of its log, or a drawing, the next time).
KEPT_TABLES = 4096


class Contended(Exception):
    """The table changed under every attempt at an AI seat's move or a timed-out turn (other
    processes kept writing it); the caller tries again later."""


def _always() -> bool:
    """The bot is not stopping."""
    return True


@dataclass(frozen=True, slots=True)
class Outcome:
    """One applied action: the table after it, the state before, and what happened."""

    record: TableRecord
    before: GameState
    action: Action
    seat: int
    by_ai: bool
    events: tuple[Event, ...]
    timed_out: bool = False
    handed_to_ai: bool = False

    @property
    def undone(self) -> bool:
        """True when the action took back a move."""
        return isinstance(self.action, Undo)

    @property
    def state(self) -> GameState:
        """The state after the action."""
        return self.record.game

    @property
    def turn_changed(self) -> bool:
        """True when the action ended a turn (another seat's turn starts, or the game ended)."""
        s = self.state
        return (s.round, s.turn) != (self.before.round, self.before.turn) or s.winner is not None


def refuse_elsewhere(record: TableRecord, channel_id: int | None,
                     place_key: str | None = None, viewed: bool = True) -> None:
    """Refuse a click on ``record`` made in another channel than the table's (or its
    thread's). A table played in the direct messages of a person forgotten since is over (it
    closed as they were forgotten) and its channel is their pseudonym's, which no channel is:
    a click on it, by them where it was played, is told the game is over. A click made at
    another place than the table's (``place_key``: the clicker's; another server, someone
    else's direct messages), or by someone who may not view the channel it was made in
    (``viewed`` false: a modified client's), is told the table does not exist, as an id naming
    none is: nothing of it is revealed, not even that the id names a table there."""
    if not viewed:
        raise NoTable(msg("bot.error.no_such_table", table=record.id))
    if channel_id is None or channel_id in (record.channel_id, record.where):
        return
    if forgotten(record.channel_id):
        raise Illegal(msg("bot.error.game_closed"))
    if place_key is not None and place_key != record.place_key:
        raise NoTable(msg("bot.error.no_such_table", table=record.id))
    raise Illegal(msg("bot.error.other_channel"))


def refuse_damaged_elsewhere(damaged: Damaged, table_id: int, channel_id: int | None,
                             place_key: str | None = None, viewed: bool = True) -> None:
    """Refuse as for no table (as :func:`refuse_elsewhere` does) a click on the damaged table
    ``table_id`` made where it is not played: at another place than its own, or at any place
    but its channel when its place cannot be read, or in a channel the clicker may not view.
    Where it is played, ``damaged`` itself is the answer."""
    if not viewed or (channel_id is not None and channel_id not in damaged.channels
                      and place_key is not None and place_key != damaged.place_key):
        raise NoTable(msg("bot.error.no_such_table", table=table_id))


@dataclass
class Play:
    """The moves of a running table (``thinking`` makes the AI seats' decisions, hard ones away
    from the event loop; ``clock`` is injectable for tests)."""

    store: Storage
    tables: Tables
    thinking: Thinking = field(default_factory=Thinking)
    clock: Callable[[], float] = time.time
    metrics: Metrics = UNCOUNTED  # the bot's, once it is built: counts the moves applied
    #: What the learner of each guided match was taught (:data:`~bot.game.lessons.Taught`), at
    #: which version, and their seat: what its lesson is worked out from, brought up to date by
    #: each move made here from the move's two states (no log read nor replay per hand).
    _taught: dict[int, tuple[int, int, Taught]] = field(default_factory=dict)
    #: The last moves made here at each running table, with their events (what a hand opened
    #: while away tells, with no log read).
    _said: dict[int, Said] = field(default_factory=dict)
    #: The versions of each table that followed one another through moves written here, first
    #: and last: what another process wrote between them is not among them.
    _written: dict[int, tuple[int, int]] = field(default_factory=dict)

    async def act(self, table_id: int, user_id: int, version: int, notation: str, *,
                  channel_id: int | None = None, menu: str | None = None,
                  hand_of: int | None = None, sure: bool = False,
                  place_key: str | None = None, viewed: bool = True) -> Outcome:
        """Apply the move ``notation`` for ``user_id``, clicked on table version ``version`` in
        channel ``channel_id`` of place ``place_key`` (a move clicked in another table's channel,
        or in one the clicker may not view, ``viewed`` false, is refused, see
        :func:`refuse_elsewhere`), picked
        in the hand message's menu ``menu`` (None: a button) that must offer it. ``hand_of``
        is the user the clicked hand message was shown to (None: unknown): anyone else's click
        on it is refused, whatever the table's state, so it never shows the clicker's hand.

        A move easy to regret (:func:`bot.game.guard.question`) raises :class:`Ask` unless the
        player answered that question (``sure``); a take-back is refused where the table does
        not allow it. A write refused because another process changed the table's seats or
        language meanwhile, but made no move (its version is the one clicked), is checked and
        made again from the table as it is: the click still stands."""
        async with self.tables.locked(table_id):
            for _ in range(ATTEMPTS):
                record = await self._here(table_id, channel_id, place_key, viewed)
                try:
                    return await self._act(record, user_id, version, notation, menu, hand_of,
                                           sure)
                except Stale:
                    if record.version != version or (
                            await self.tables.load(table_id)).version != version:
                        raise  # a move was made (or taken back) since the click
            raise Stale(msg("bot.error.already_played"), record)

    async def _act(self, record: TableRecord, user_id: int, version: int, notation: str,
                   menu: str | None, hand_of: int | None, sure: bool) -> Outcome:
        """:meth:`act` on ``record``, the table read under its lock."""
        seat = playing_seat(record, user_id, hand_of)
        if version > record.version:  # versions only grow: no bot ever drew this one
            raise Illegal(msg("bot.error.future_button"), record)
        if version < record.version:
            raise Stale(await self._stale_reason(record.id, version), record)
        if await self.round_over(record):
            raise Refusal(msg("bot.tournament.round_over"), record)
        state = record.game
        if seat != state.current:
            raise OutOfTurn(msg("bot.error.not_your_turn",
                                who=seat_label(record, state.current)), record)
        try:
            action = parse(notation)
        except BadNotation as exc:
            raise Illegal(msg("bot.error.bad_move"), record) from exc
        seats = record.seats
        if seats[seat].ai:
            raise OutOfTurn(msg("bot.error.seat_is_ai"), record)
        if action == UNDO and not record.undo:
            raise Illegal(msg("bot.undo.off"), record)
        obs = observe(state, seat)
        if menu is not None and not controls(obs).in_menu(menu, notation):
            raise Illegal(msg("bot.error.not_in_menu"), record)
        ask = None if sure or action not in obs.legal else question(obs, action)
        if ask is not None:
            raise Ask(ask, record, seat, notation, version)
        timeouts = await self._timeouts_after(record, action, seat)
        if seats[seat].timeouts != timeouts:
            seats = with_seat(seats, seat, seats[seat].model_copy(
                update={"timeouts": timeouts}))
        return await self._apply(record, action, seat, user_id, False, seats)

    async def _timeouts_after(self, record: TableRecord, action: Action, seat: int) -> int:
        """The count of timed-out turns in a row of ``seat`` once its person makes ``action``:
        none after a move of theirs; after a take-back, the turns the timer played since
        their last move that still stands (the move taken back is none, so it ends no row of
        timeouts: else making a move and taking it back each turn would keep a seat whose every
        turn the AI plays, its person counted as never seated until a move of theirs, made
        once the match goes well, claims it)."""
        if action != UNDO:
            return 0
        log = await self.store.action_log(record.id)
        standing = [row for row in log if not row.undone and row.action != str(UNDO)]
        taken = standing[-1] if standing else None  # the move this take-back takes back
        return timed_out_turns([row for row in log if row is not taken], seat,
                               record.seats[seat].user)

    async def round_over(self, record: TableRecord) -> bool:
        """True when the tournament's round that opened this table is over (its deadline
        passed): the match is decided as it stood then, so no move of anyone counts any more
        (the tournaments' next pass closes it). The round's end is read once a table, and
        only of a tournament's match (:meth:`Tables.round_end`)."""
        ends = await self.tables.round_end(record)
        return ends is not None and self.clock() >= ends

    async def _stale_reason(self, table_id: int, version: int) -> Msg:
        """Why a click on table version ``version``, older than the table's, is refused: a move
        was taken back since (the log's ``undo`` rows after it), or it was simply played."""
        since = (await self.store.action_log(table_id))[version:]
        undone = any(row.action == str(UNDO) for row in since)
        return msg("bot.undo.stale" if undone else "bot.error.already_played")

    async def check_channel(self, table_id: int, channel_id: int | None,
                            place_key: str | None = None, viewed: bool = True) -> None:
        """Refuse a click on table ``table_id`` made in another channel than the table's (or
        its thread's), of place ``place_key``, or in one the clicker may not view (``viewed``
        false; see :func:`refuse_elsewhere`). A table never
        changes channel, and moves to its thread before its first message there, so this need
        not wait for the table's lock (the click is answered within Discord's 3 seconds even
        while the AI holds it)."""
        await self._here(table_id, channel_id, place_key, viewed)

    async def _here(self, table_id: int, channel_id: int | None, place_key: str | None,
                    viewed: bool) -> TableRecord:
        """Table ``table_id`` for a click made in channel ``channel_id`` of place ``place_key``
        (``viewed``: by someone who may view it), refused as :func:`refuse_elsewhere` says; a
        damaged table is told damaged only where it is played
        (:func:`refuse_damaged_elsewhere`)."""
        try:
            record = await self.tables.load(table_id)
        except Damaged as exc:
            refuse_damaged_elsewhere(exc, table_id, channel_id, place_key, viewed)
            raise
        refuse_elsewhere(record, channel_id, place_key, viewed)
        return record

    async def _apply(self, record: TableRecord, action: Action, seat: int, user_id: int | None,
                     by_ai: bool, seats: tuple[SeatInfo, ...], timed_out: bool = False,
                     handed: bool = False, host: int | None = None) -> Outcome:
        state = record.game
        try:
            new, events = apply(state, action, seat=seat)
        except IllegalAction as exc:
            raise Illegal(exc.reason, record) from exc
        new_turn = (new.round, new.turn) != (state.round, state.turn)
        due = deadline(self.clock(), record.timer, seats, new, record.deadline, new_turn)
        row = LogRow(step=new.step, seat=seat, user_id=user_id, by_ai=by_ai,
                     action=str(action), at=self.clock())
        result = None
        if new.winner is not None:  # the result, with who made a move (this one included)
            log = [*await self.store.action_log(record.id), row]
            result = finished_result(record, seats, new, log, row.at)
        try:
            await self.store.apply(
                record.id, record.version, new, row,
                seats=seats if seats != record.seats else None, deadline=due,
                rater=rate_result, result=result, revision=record.revision, host_id=host)
        except StaleVersion as exc:  # another process changed the table since it was read
            raise Stale(await self._stale_reason(record.id, record.version), record) from exc
        self.metrics.moved("timer" if timed_out else "ai" if by_ai else "person")
        after = moved(record, new, seats, due, row.at, host)
        self._moved_on(record, after, action, seat, tuple(events), by_ai)
        return Outcome(record=after, before=state, action=action, seat=seat, by_ai=by_ai,
                       events=tuple(events), timed_out=timed_out, handed_to_ai=handed)

    async def lesson(self, record: TableRecord, seat: int) -> Lesson | None:
        """The lesson the hand of ``seat`` shows now at a guided match (None elsewhere), from
        what its learner was taught before. That is kept here and brought up to date by each
        move made here; only a table this process has not followed to its version (after a
        restart, or moved by another process) has it worked out once from the moves that
        stand in its log."""
        if not record.lessons or record.state is None or record.seats[seat].ai:
            return None
        kept = self._taught.get(record.id)
        if kept is None or kept[0] != record.version or kept[1] != seat:
            log_rows = await self.store.action_log(record.id)
            taught = lessons_met(record.game.config, [r.action for r in standing(log_rows)],
                                 seat)
            kept = (record.version, seat, taught)
            keep(self._taught, record.id, kept, KEPT_TABLES)
        return lesson_now(record.game, kept[2], seat)

    async def since_last_move(self, record: TableRecord, seat: int) -> tuple[Event, ...]:
        """What ``seat`` may see of the moves made at ``record`` since its last move (see
        :func:`bot.game.away.since_last_move`): from the moves kept here when they reach it."""
        return await since_last_move(self.store, record, seat, self._said.get(record.id))

    def _moved_on(self, before: TableRecord, after: TableRecord, action: Action, seat: int,
                  events: tuple[Event, ...], by_ai: bool = False) -> None:
        """Keep what is kept of the table up to date with the move just written (``by_ai``:
        the AI made it): the versions written here one after the other, the moves made here
        (a take-back or an ended game drops them; one the AI made in a person's place kept
        as no move of theirs), and what a guided match's learner was taught (brought up to date
        by this move from its two states); for the :data:`KEPT_TABLES` tables moved here last
        (a table whose end another process wrote is never forgotten here otherwise)."""
        run = self._written.get(before.id)
        start = run[0] if run is not None and run[1] == before.version else before.version
        keep(self._written, before.id, (start, after.version), KEPT_TABLES)
        said = self._said.pop(before.id, None)
        if action != UNDO and after.status == "running":  # a take-back or the end drops them
            mover = None if by_ai and after.seats[seat].user is not None else seat
            if said is not None and said.holds(before):
                said = said.then(after.version, mover, events)
            else:  # the first move made here, the table moved on elsewhere meanwhile, or
                # its names changed (a person forgotten: the moves kept name them)
                said = Said(before.version, after.version, ((mover, events),),
                            after.game.config)
            keep(self._said, before.id, said, KEPT_TABLES)
        kept = self._taught.pop(before.id, None)
        if kept is not None and kept[0] == before.version and after.status == "running":
            _, learner, taught = kept
            taught = taught_after(taught, before.game, action, after.game, learner)
            keep(self._taught, before.id, (after.version, learner, taught), KEPT_TABLES)

    def forget(self, table_id: int) -> None:
        """Drop what is kept for a table that ended."""
        self._taught.pop(table_id, None)
        self._said.pop(table_id, None)
        self._written.pop(table_id, None)

    def wrote_all(self, table_id: int, since: int, until: int) -> bool:
        """True when every change of the table from version ``since`` to ``until`` was a
        move written here (none when they are equal): no other process moved it in between,
        so none had a move of it to show on its messages."""
        if since == until:
            return True
        run = self._written.get(table_id)
        return run is not None and run[0] <= since <= until <= run[1]

    @staticmethod
    def seed_for(table_seed: int, version: int) -> int:
        """The seed of the AI's decision at a table of ``table_seed`` at ``version``."""
        return (table_seed * 1_000_003 + version) % (2**31)

    @classmethod
    def seed_of(cls, record: TableRecord) -> int:
        """The seed of the AI's decision at this table and version (reproducible)."""
        return cls.seed_for(record.seed, record.version)

    def _ai_move(self, record: TableRecord) -> Action:
        """A normal-level move for the seat to play (a person's turn the timer ended)."""
        state = record.game
        obs = without_undo(observe(state, state.current))
        action = make_agent(DEFAULT_LEVEL, self.seed_of(record)).choose(obs)
        if action in obs.legal:
            return action
        log.error("table %s: the %s agent chose %s, which is not legal; playing %s instead",
                  record.id, DEFAULT_LEVEL, action, obs.legal[0])
        return obs.legal[0]  # an agent bug stalls nothing

    @staticmethod
    def _ai_to_move(record: TableRecord) -> bool:
        """True when an AI seat must decide at this running table."""
        return (record.status == "running" and record.game.phase is not Phase.OVER
                and record.seats[record.game.current].ai)

    async def ai_step(self, table_id: int, ready: Awaitable[object] | None = None,
                      going: Callable[[], bool] = _always,
                      known: TableRecord | None = None) -> Outcome | None:
        """If an AI seat must decide, make its one next move at its level; else None.

        The decision is made without the table's lock (a hard one takes up to a second, in a
        worker process), then, once ``ready`` is done (the AI's pace; a future, awaited again
        on a second attempt), applied under the lock if the table is still where it was
        decided and the bot is ``going`` on (else None: a stop began, or another process took
        the table, whose AI turns are then that process's). If the table moved on
        meanwhile (in this process or another), the decision is made again; after
        :data:`ATTEMPTS` raises :class:`Contended`. ``known``: the table as the last move
        left it (decided on without reading it; read again under the lock all the same).
        None too once the tournament's round that opened the table is over: the match is
        decided as it stood then."""
        for _ in range(ATTEMPTS):
            record = known if known is not None else await self.tables.load(table_id)
            known = None
            if not self._ai_to_move(record) or await self.round_over(record):
                return None
            seat = record.game.current
            action = await self.thinking.choose(record.seats[seat].level, self.seed_of(record),
                                                observe(record.game, seat))
            if ready is not None:
                await ready
            async with self.tables.hold(table_id) as now:
                if not going() or not self._ai_to_move(now) or await self.round_over(now):
                    return None
                if now.version != record.version or now.seats != record.seats:
                    continue  # moved on while deciding
                try:
                    return await self._apply(now, action, seat, None, True, now.seats)
                except NotHeld:  # another process took the table: its AI plays there
                    return None
                except Stale:  # another process wrote the table between the read and the write
                    continue
        raise Contended(f"table {table_id} changed under {ATTEMPTS} AI moves")

    async def expire(self, table_id: int, version: int,
                     going: Callable[[], bool] = _always) -> list[Outcome]:
        """The turn timer ran out at ``version``: the AI plays the rest of this turn (D7). At
        a tournament's match, a turn whose deadline is not before its round's end never timed
        out (the round's end decides the match as it stood then, however late the timers
        pass: :meth:`Tables.round_end`).

        The seat's timeout count grows, once a turn (a turn cut short by a failure and played
        on at the next pass is counted once); at :data:`MAX_TIMEOUTS` the seat goes to the AI
        for good and, as when its person leaves it, a host's role passes to the next person who
        still plays (not at a tournament's match, which stays its tournament's host's), so one
        who no longer plays can no longer close it for the others (nor has it counted among
        their matches at once); with no other person left, they still host it.
        Nothing happens when the table moved on, the deadline is not reached or the bot is not
        ``going`` on (a stop began). When another process changes the table between its read and
        a write, the table is read again and the turn played on while it is still this turn and
        its time is up (:data:`ATTEMPTS` times at most: with no move made by then, raises
        :class:`Contended`); the moves made are returned.
        """
        out: list[Outcome] = []
        async with self.tables.hold(table_id) as record:
            ends = await self.tables.round_end(record)
            if record.version != version or not self._time_is_up(record, ends):
                return out
            turn = (record.game.round, record.game.turn, record.game.current)
            for _ in range(ATTEMPTS):
                if not going() or not self._time_is_up(record, ends) or (
                        record.game.round, record.game.turn, record.game.current) != turn:
                    return out
                try:
                    await self._time_out(record, out)
                    return out
                except NotHeld:  # another process took the table: its timer is that one's
                    return out
                except Stale:  # another process wrote the table between the read and a write
                    record = await self.tables.load(table_id)
        if out:  # shown; the next pass of the timers plays the rest of the turn
            return out
        raise Contended(f"table {table_id} changed under {ATTEMPTS} timed-out turns")

    def _time_is_up(self, record: TableRecord, ends: float | None = None) -> bool:
        """True when a person's turn at this running table is past its deadline, which came
        before ``ends`` (when its tournament's round ends, if it does)."""
        return (record.status == "running" and record.deadline is not None
                and self.clock() >= record.deadline
                and (ends is None or record.deadline < ends)
                and not record.seats[record.game.current].ai)

    async def _time_out(self, record: TableRecord, out: list[Outcome]) -> None:
        """The AI plays the rest of the timed-out turn of ``record``, appending each move to
        ``out`` (the moves already there were made for this turn: the timeout was counted)."""
        seat = record.game.current
        seats = record.seats
        host = None
        if out:
            handed = out[0].handed_to_ai
        elif await self._timed_out_already(record, seat):
            handed = False  # counted when the AI began it: a failure cut it short
        else:
            info = seats[seat]
            count = info.timeouts + 1
            handed = count >= MAX_TIMEOUTS
            seats = with_seat(seats, seat, info.model_copy(  # taken over at normal
                update={"timeouts": count, "ai": handed, "level": DEFAULT_LEVEL}))
            if handed and info.user is not None and record.host_id == info.user \
                    and record.tournament_id is None:  # as when they leave it
                host = next_host(seats, info.user)
        turn = (record.game.round, record.game.turn)
        for _ in range(MAX_AI_MOVES_PER_TURN):
            outcome = await self._apply(record, self._ai_move(record), seat, None, True,
                                        seats, timed_out=True, handed=handed, host=host)
            host = None  # written with the first move
            out.append(outcome)
            record = outcome.record
            seats = record.seats
            s = record.game
            if s.phase is Phase.OVER or (s.round, s.turn) != turn or handed:
                return

    async def _timed_out_already(self, record: TableRecord, seat: int) -> bool:
        """True when the AI already made moves of this timed-out turn of ``seat`` (a write
        failed, or the bot stopped, before it ended): its timeout was counted then. Its last
        move is then the table's last, the AI's for a person's seat, made once the turn's
        deadline had passed (its earlier turns' moves were all made before this turn began)."""
        rows = await self.store.action_log(record.id)
        last = rows[-1] if rows else None
        return (last is not None and last.seat == seat and last.by_ai
                and record.deadline is not None and last.at >= record.deadline)

    async def due(self, only: Collection[int] | None = None) -> list[tuple[int, int, float]]:
        """(table id, version, deadline) of every running table with a turn timer set (of the
        tables ``only`` when given), from those columns alone: no state is read."""
        return [t for t in await self.store.timers() if only is None or t[0] in only]


def timed_out_turns(log: Sequence[LogRow], seat: int, user: int | None) -> int:
    """How many turns of ``seat`` the timer played (runs of the AI's moves for its person
    ``user`` in the action ``log``) since ``user``'s last move of their own that stands (a
    move taken back, and a take-back, are none)."""
    turns = 0
    inside = False  # within a run of the timer's moves for the seat
    for row in reversed(log):
        if row.seat == seat and row.by_ai:
            turns += not inside
            inside = True
            continue
        inside = False
        if (row.seat == seat and row.user_id == user and not row.undone
                and row.action != str(UNDO)):
            break
    return turns


def moved(record: TableRecord, state: GameState, seats: tuple[SeatInfo, ...],
          deadline: float | None, at: float, host: int | None = None) -> TableRecord:
    """The table as a move's write left it (the columns :meth:`Storage.apply` writes, a new
    ``host`` too): the move's outcome carries it, so nothing reads back what was just
    written."""
    over = state.winner is not None
    return replace(record, state=state, version=record.version + 1, seats=seats,
                   host_id=record.host_id if host is None else host,
                   deadline=None if over else deadline, updated_at=at,
                   status="finished" if over else record.status,
                   winner=state.winner if over else record.winner,
                   finished_at=at if over else record.finished_at)


__all__ = ["ATTEMPTS", "MAX_AI_MOVES_PER_TURN", "MAX_TIMEOUTS", "Contended", "Outcome",
           "Play", "refuse_damaged_elsewhere", "refuse_elsewhere"]
