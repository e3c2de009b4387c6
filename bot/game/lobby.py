"""The lobby: a table's seats before the game, and closing a table. Every right (host, Manage
Channels) is checked under the table's lock (:meth:`bot.game.tables.Tables.hold`), so two
simultaneous clicks are serialised and the second sees the first's result.

Each lobby change bumps the lobby's revision; a click made on an older revision of the lobby (a
double click on Add AI seat, a Start pressed on a lobby that changed meanwhile) is refused as
stale instead of changing the lobby twice.

Several processes may share one database, and the lock serialises one process's clicks only:
every lobby change is written only while the table is still at the revision it was decided on
(:meth:`Lobby._again`), so a change another process made between the read and the write (a seat
taken or left, the lobby started or closed, by a click or the timer pass) is never written
over; the click is then made again on the table as it is now, and refused as any click on it
would be when it no longer fits.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Awaitable, Callable, Collection, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Literal

from bot.game.hints import hints_by_default
from bot.game.lessons import LESSON_AI_SEATS, LESSON_LEVEL, LESSON_SEED
from bot.game.limits import MatchLimit, TooMany
from bot.game.markup import typed
from bot.game.places import Place
from bot.game.refusals import Damaged, NotSeated, Refusal, Stale
from bot.game.results import abandoned_result, lost_alone, movers, waiting
from bot.game.seats import (
    MAX_SEATS,
    MAX_TIMER,
    MIN_SEATS,
    TIMERS,
    deadline,
    heroes,
    level_of,
    next_host,
    solo,
)
from bot.game.servers import Servers
from bot.game.standings import rate_result
from bot.game.tables import Tables, no_table_here
from bot.storage.interface import Storage
from bot.storage.records import (
    CannotSave,
    Limited,
    SeatInfo,
    StaleVersion,
    StorageError,
    TableExists,
    TableRecord,
    with_seat,
)
from engine import GameConfig, SeatConfig, new_game
from engine import rng as engine_rng
from engine.agents import DEFAULT_LEVEL
from i18n import Msg, msg

#: Seconds an open lobby may go without any change (a seat taken or left, an AI seat added,
#: removed or set, a hero picked) before the bot closes it: a lobby its host walked away from
#: would hold its channel, where no one else could open one, until a moderator abandoned it.
#: A slow match's lobby waits a turn's time when that is longer (:func:`idle_after`).
LOBBY_IDLE = 24 * 3600.0

#: Attempts at a lobby change while another process changes the table between its read and its
#: write (:meth:`Lobby._again`): the second is made on the table read again.
ATTEMPTS = 2

#: The bits of a new table's (or tournament's) seed. The seed decides every hidden card of a
#: match, and the first table picture pins it down among the seeds that could have been drawn:
#: 2**31 of them are tried in a minute; 2**63 (the most a signed 64-bit column keeps) are not.
SEED_BITS = 63

#: What is kept of a closed table for people to look back at (:meth:`Lobby.kept`): "listed",
#: its match in /goblin history (a stored result); "replay", its match opened by /goblin replay
#: alone (a game played, no result); "none", neither (a lobby closed before its match started).
Kept = Literal["listed", "replay", "none"]


def new_seed() -> int:
    """A new seed, from the operating system's secure generator."""
    return secrets.randbits(SEED_BITS)


def idle_after(record: TableRecord) -> float:
    """Seconds the lobby ``record`` may go without a change before the bot closes it:
    :data:`LOBBY_IDLE`, or a turn's time when its turns take longer (a slow match, whose
    people join at the pace they play, as they answer its rematch offer)."""
    return max(LOBBY_IDLE, float(record.timer))


def lapsed(record: TableRecord) -> bool:
    """True when ``record`` is a lobby the bot closed after :func:`idle_after` without a change
    (:meth:`Lobby.close_idle`: its last change, ``updated_at``, is that long before it closed)."""
    return (record.status == "abandoned" and record.state is None
            and record.finished_at is not None
            and record.finished_at - record.updated_at >= idle_after(record))


def game_config(lobby: Sequence[SeatInfo], abilities: bool,
                seed: int) -> tuple[tuple[SeatInfo, ...], GameConfig]:
    """The seats of a starting game (each seat without a hero given a free one, drawn from
    ``seed``) and the game's configuration."""
    free = [h for h in heroes() if h not in {s.hero for s in lobby}]
    r = engine_rng.seed_state(seed ^ 0x4E50)
    seats: list[SeatInfo] = []
    for s in lobby:
        if s.hero is None:
            pick, r = engine_rng.below(r, len(free))
            s = s.model_copy(update={"hero": free.pop(pick)})
        seats.append(s)
    config = GameConfig(seats=tuple(SeatConfig(s.hero or "", name=s.name, ai=s.ai)
                                    for s in seats), abilities=abilities, seed=seed)
    return tuple(seats), config


@dataclass
class Lobby:
    """Lobby and table-closing operations (``clock`` and ``seeds`` are injectable for tests;
    ``limit``: how many matches one person may start at once, None: no limit)."""

    store: Storage
    tables: Tables
    servers: Servers
    clock: Callable[[], float] = time.time
    seeds: Callable[[], int] = field(default=new_seed)
    limit: MatchLimit | None = None

    # ------------------------------------------------------------------ lobby

    async def create(self, *, guild_id: int | None, channel_id: int, host_id: int,
                     host_name: str, abilities: bool | None = None, timer: int | None = None,
                     locale: str = "en", ai_level: str | None = None,
                     lessons: bool = False, undo: bool | None = None,
                     hints: bool | None = None, threaded: bool = False,
                     thread_chosen: bool = True) -> TableRecord:
        """Open a lobby in the channel with the host in the first seat (``threaded``: its match
        moves to a thread of its own when it starts; ``thread_chosen`` false: that is only the
        server's choice now, and the server's choice when it starts decides; ``lessons``: the
        lobby of a guided first match, the host and easy AI seats on the lesson seed, with no
        turn timer; :meth:`learn` starts it).

        ``locale`` is the server's language in Discord; the public messages of the table use it
        unless the server's admins forced another one (``/goblin settings language``).
        ``ai_level`` is the level of the AI seats the host adds, ``undo`` whether players may
        take back a move (None: the server's default for each). ``hints``: whether people may
        ask for hints (None: decided when the game starts, by
        :func:`~bot.game.hints.hints_by_default`).
        """
        # the server's defaults; its forced language, if any, is read by the table's own write
        defaults = await self.servers.defaults(guild_id)
        if abilities is None:
            abilities = defaults.abilities
        if timer is None:
            timer = defaults.timer
        if timer not in TIMERS and not 30 <= timer <= MAX_TIMER:
            raise Refusal(msg("bot.error.bad_timer"))
        level = level_of(ai_level) if ai_level is not None else defaults.ai_level
        seats: tuple[SeatInfo, ...] = (SeatInfo(user=host_id, name=typed(host_name)[:32]),)
        seed = self.seeds()
        if lessons:
            level, seed, abilities, timer = LESSON_LEVEL, LESSON_SEED, False, 0
            seats += tuple(SeatInfo(ai=True, level=level) for _ in range(LESSON_AI_SEATS))
        try:
            record = await self.store.create_table(
                guild_id=guild_id, place_key=Place.of(guild_id, host_id).key,
                channel_id=channel_id, host_id=host_id, seats=seats,
                abilities=abilities, timer=timer, seed=seed, locale=locale, ai_level=level,
                lessons=lessons, undo=defaults.undo if undo is None else undo,
                threaded=threaded and guild_id is not None, hints=hints,
                thread_chosen=thread_chosen or guild_id is None or lessons)
        except TableExists as exc:
            try:
                found: TableRecord | None = await self.tables.load(exc.table_id)
            except Refusal:
                found = None
            # a guided match in a server is one person's: they learn elsewhere, not by
            # finishing or abandoning a table that may well be someone else's
            # in direct messages, the table is in the person's own messages with the bot
            key = ("learn.error.table_here" if lessons and guild_id is not None
                   else "bot.error.table_exists" if guild_id is not None
                   else "bot.error.table_exists_dm")
            raise Refusal(msg(key, table=exc.table_id), found) from exc
        return record

    async def learn(self, *, guild_id: int | None, channel_id: int, host_id: int,
                    host_name: str, locale: str = "en", threaded: bool = False) -> TableRecord:
        """``/goblin learn``: open and start a guided first match for the host alone
        (``threaded``: in a thread of its own, as :meth:`create` says, so a server channel is
        not held by one person's lesson)."""
        if self.limit is not None:  # refused before a lobby is opened for it
            await self.limit.check(host_id, 0)
        record = await self.create(guild_id=guild_id, channel_id=channel_id, host_id=host_id,
                                   host_name=host_name, locale=locale, lessons=True,
                                   threaded=threaded)
        return await self.start_opened(record.id, host_id)

    async def start_opened(self, table_id: int, host_id: int) -> TableRecord:
        """Start lobby ``table_id`` its host just opened to start at once (a guided match, a
        rematch); when the host started another match meanwhile and is now at the limit of
        matches at once, the lobby is closed again and the refusal raised without it. A start
        the database could not save closes it again too, when it still can: nobody sees that
        lobby, which would hold its channel (the click is told nothing was saved, and may be
        made again)."""
        try:
            return await self.start(table_id, host_id)
        except TooMany as exc:
            await self._close_opened(table_id)
            raise TooMany(exc.count, exc.limit) from None
        except CannotSave:
            with suppress(StorageError, Refusal):  # what the click is told is the start's
                await self._close_opened(table_id)
            raise

    async def _close_opened(self, table_id: int) -> None:
        """Close lobby ``table_id``, opened to start at once, that did not start."""
        async with self.tables.hold(table_id) as record:
            if record.status == "lobby":
                await self.store.set_status(table_id, "abandoned", record.revision)

    @staticmethod
    def _in_lobby(record: TableRecord) -> None:
        """Refuse unless the table is still a lobby (saying the game started, or closed)."""
        if record.status == "running":
            raise Refusal(msg("bot.error.already_started"), record)
        if record.status != "lobby":
            raise Refusal(msg("bot.error.not_lobby"), record)

    async def join(self, table_id: int, user_id: int, name: str) -> TableRecord:
        """Take a free seat in the lobby."""
        async def seat(record: TableRecord) -> TableRecord:
            self._in_lobby(record)
            if record.seat_of(user_id) is not None:
                raise Refusal(msg("bot.error.already_seated"), record)
            if record.guild_id is None or record.lessons:
                raise Refusal(msg("learn.error.solo_table"), record)
            if len(record.seats) >= MAX_SEATS:
                raise Refusal(msg("bot.error.table_full", max=MAX_SEATS), record)
            seats = (*record.seats, SeatInfo(user=user_id, name=typed(name)[:32]))
            await self.store.update_lobby(table_id, seats, revision=record.revision)
            return await self.tables.load(table_id)
        return await self._change(table_id, seat)

    async def add_ai(self, table_id: int, user_id: int, seen: int | None = None) -> TableRecord:
        """The host adds an AI seat (``seen``: the lobby revision the host was looking at; a
        second click of a double click then changes nothing)."""
        async def add(record: TableRecord) -> TableRecord:
            self._in_lobby(record)
            self._host_only(record, user_id)
            self._unchanged(record, seen)
            if len(record.seats) >= MAX_SEATS:
                raise Refusal(msg("bot.error.table_full", max=MAX_SEATS), record)
            seats = (*record.seats, SeatInfo(ai=True, level=record.ai_level))
            await self.store.update_lobby(table_id, seats, revision=record.revision)
            return await self.tables.load(table_id)
        return await self._change(table_id, add)

    async def remove_ai(self, table_id: int, user_id: int,
                        seen: int | None = None) -> TableRecord:
        """The host removes the last AI seat (``seen`` as for :meth:`add_ai`)."""
        async def remove(record: TableRecord) -> TableRecord:
            self._in_lobby(record)
            self._host_only(record, user_id)
            self._unchanged(record, seen)
            last = max((i for i, s in enumerate(record.seats) if s.ai), default=None)
            if last is None:
                raise Refusal(msg("bot.error.no_ai_seat"), record)
            seats = tuple(s for i, s in enumerate(record.seats) if i != last)
            await self.store.update_lobby(table_id, seats, revision=record.revision)
            return await self.tables.load(table_id)
        return await self._change(table_id, remove)

    async def set_level(self, table_id: int, user_id: int, seat: int, level: str,
                        seen: int | None = None) -> TableRecord:
        """The host sets the level an AI seat of the lobby plays at (``seen`` as for
        :meth:`add_ai`)."""
        async def set_to(record: TableRecord) -> TableRecord:
            self._in_lobby(record)
            if record.host_id != user_id:
                raise Refusal(msg("bot.error.level_host_only"), record)
            self._unchanged(record, seen)
            if not 0 <= seat < len(record.seats) or not record.seats[seat].ai:
                raise Refusal(msg("bot.error.not_ai_seat"), record)
            seats = with_seat(record.seats, seat, record.seats[seat].model_copy(
                update={"level": level_of(level)}))
            await self.store.update_lobby(table_id, seats, revision=record.revision)
            return await self.tables.load(table_id)
        return await self._change(table_id, set_to)

    @staticmethod
    def _unchanged(record: TableRecord, seen: int | None) -> None:
        """Refuse a lobby click made on an older revision of the lobby (a double click, a
        message that missed an edit); a revision still to come was never shown: a damaged button."""
        if seen is not None and seen > record.revision:
            raise Refusal(msg("bot.error.bad_button"), record)
        if seen is not None and seen != record.revision:
            raise Stale(msg("bot.error.lobby_moved"), record)

    async def pick_hero(self, table_id: int, user_id: int, hero: str) -> TableRecord:
        """A seated player picks a hero no other seat holds."""
        async def pick(record: TableRecord) -> TableRecord:
            self._in_lobby(record)
            index = record.seat_of(user_id)
            if index is None:
                raise NotSeated(msg("bot.error.join_first"), record)
            if hero not in heroes():
                raise Refusal(msg("bot.error.unknown_hero"), record)
            if any(s.hero == hero for i, s in enumerate(record.seats) if i != index):
                raise Refusal(msg("bot.error.hero_taken", hero=msg(f"hero.{hero}.name")), record)
            seats = with_seat(record.seats, index, record.seats[index].model_copy(
                update={"hero": hero}))
            await self.store.update_lobby(table_id, seats, revision=record.revision)
            return await self.tables.load(table_id)
        return await self._change(table_id, pick)

    async def leave(self, table_id: int, user_id: int, lobby_only: bool = False) -> TableRecord:
        """Leave the lobby (the host's role passes on; an empty lobby closes) or hand a running
        seat to the AI for good (a solo table, whose only person leaves, closes instead; the
        host's role passes to the next person still playing, so the one who left can no longer
        close the match for the others; a tournament's match stays its tournament's host's, as
        every match of its later rounds does: none of its players may close it for the others).
        ``lobby_only``: a lobby's Leave button, which asked to leave the lobby: a match that
        started meanwhile is not left (``/goblin leave`` does)."""
        async def vacate(record: TableRecord) -> TableRecord:
            index = record.seat_of(user_id)
            if index is None:
                raise NotSeated(msg("bot.error.not_seated"), record)
            if lobby_only and record.status == "running":  # /goblin leave works where it plays
                raise Refusal(msg("bot.error.leave_started_thread" if record.threaded
                                  or record.thread_id is not None
                                  else "bot.error.leave_started"), record)
            if record.status == "running" and (record.guild_id is None or record.lessons):
                return await self._close(record, user_id, False, "learn.error.host_only")
            if record.status == "running":
                seats = with_seat(record.seats, index, record.seats[index].model_copy(
                    update={"ai": True, "level": DEFAULT_LEVEL}))
                heir = (next_host(seats, user_id) if record.host_id == user_id
                        and record.tournament_id is None else None)  # as when forgotten
                await self.store.update_seats(table_id, record.version, seats, host_id=heir,
                                              revision=record.revision)
                return await self.tables.load(table_id)
            if record.status != "lobby":
                raise Refusal(msg("bot.error.not_lobby"), record)
            seats = tuple(s for i, s in enumerate(record.seats) if i != index)
            humans = [s for s in seats if s.user is not None]
            if not humans:
                await self.store.set_status(table_id, "abandoned", record.revision)
                return await self.tables.load(table_id)
            host = record.host_id
            if host == user_id:
                assert humans[0].user is not None
                host = humans[0].user
            await self.store.update_lobby(table_id, seats, host_id=host,
                                          revision=record.revision)
            return await self.tables.load(table_id)
        return await self._change(table_id, vacate)

    async def start(self, table_id: int, user_id: int, seen: int | None = None) -> TableRecord:
        """The host starts the game; seats without a hero get a free one at random (``seen``
        as for :meth:`add_ai`: the host starts the lobby they saw). Refused while the host
        plays as many matches at once as the bot allows (:attr:`limit`)."""
        async def begin(record: TableRecord) -> TableRecord:
            self._in_lobby(record)
            self._host_only(record, user_id)
            self._unchanged(record, seen)
            if len(record.seats) < MIN_SEATS:
                raise Refusal(msg("bot.error.too_few", min=MIN_SEATS), record)
            started, config = game_config(record.seats, record.abilities, record.seed)
            state = new_game(config)
            # the host did not choose hints: decided now the seats are known, in the start's
            # own write (a start half saved would be a match without its table message)
            hints = hints_by_default(started) if record.hints is None else None
            # nor where it is played: the server's choice now (it may have changed since the
            # lobby opened)
            threaded = (await self.servers.threads(record.guild_id)
                        if record.thread_choice is None else None)
            await self.store.start_game(table_id, started, state,
                                        deadline(self.clock(), record.timer, started, state,
                                                 None, True), record.revision,
                                        hints=hints, threaded=threaded,
                                        limited=self._limited(user_id, record))
            return await self.tables.load(table_id)
        return await self._change(table_id, begin)

    async def cancel(self, table_id: int, user_id: int, manager: bool = False) -> TableRecord:
        """The host (or a channel manager) closes a lobby. A game that started is closed with
        /goblin abandon only: a Cancel clicked as the lobby started lost the race to Start."""
        async def close(record: TableRecord) -> TableRecord:
            if record.status == "running":
                raise Refusal(msg("bot.error.already_started"), record)
            return await self._close(record, user_id, manager, "bot.error.host_only")
        return await self._change(table_id, close)

    async def abandon(self, channel_id: int, user_id: int, manager: bool,
                      dms: bool = False) -> TableRecord | int:
        """/goblin abandon: the host or a channel manager (``manager``: the user may Manage
        Channels here) closes the channel's table, kept as history. A damaged table is closed
        the same way (its host is read from its row alone); its id is returned instead of a
        record (``dms``: the channel is the person's direct messages with the bot, as a
        refusal for no table there says)."""
        tid = await self.store.active_in_channel(channel_id, user_id)
        if tid is None:
            raise no_table_here(dms)
        async with self.tables.locked(tid):
            try:
                return await self._again(tid, lambda record: self._close(
                    record, user_id, manager, "bot.error.manage_only"))
            except Damaged:  # the table's row cannot be read
                if not manager and await self.store.host_of(tid) != user_id:
                    raise Refusal(msg("bot.error.manage_only")) from None
                await self.store.abandon_damaged(tid, channel_id)
                return tid

    async def to_confirm(self, channel_id: int, user_id: int, manager: bool,
                         dms: bool = False) -> TableRecord | None:
        """Before /goblin abandon closes a running match: the table, when the user may close
        it and it is running (the user confirms first); None when it closes at once (a lobby,
        a damaged table). Refusals as :meth:`abandon`: one who sits at a tournament's match
        whose round is over is told so at once, not asked first; ``dms`` as there."""
        tid = await self.store.active_in_channel(channel_id, user_id)
        if tid is None:
            raise no_table_here(dms)
        try:
            record = await self.tables.load(tid)
        except Damaged:
            return None
        if record.status == "running" and (record.host_id == user_id or manager):
            await self._refuse_after_round(record, user_id)
            return record
        return None

    async def _refuse_after_round(self, record: TableRecord, user_id: int) -> None:
        """Refuse ``user_id``'s abandon of ``record`` when they sit at it and it is a
        tournament's match whose round is over (the match is decided as it stood then)."""
        if record.seat_of(user_id) is None:
            return
        ends = await self.tables.round_end(record)
        if ends is not None and self.clock() >= ends:
            raise Refusal(msg("bot.tournament.round_over"), record)

    async def abandon_table(self, table_id: int, user_id: int, manager: bool,
                            listed: bool | None = None) -> TableRecord:
        """The confirmed /goblin abandon of table ``table_id`` (rights checked again).
        ``listed``: what its question said abandoning would do (keep the match in the
        history: rated as it stands, or a game lost against the AI; or not; None: nothing
        said): refused when the match moved on since so that it would do otherwise (someone's
        first move made, or taken back)."""
        return await self._change(table_id, lambda record: self._close(
            record, user_id, manager, "bot.error.manage_only", listed))

    async def close_idle(self, held: Collection[int]) -> list[TableRecord]:
        """Close every open lobby among ``held`` (the tables this process holds) that went
        :func:`idle_after` without a change, as abandoned (kept as history; no one forfeits:
        nothing was played), so its channel is free for a new one. Each is closed under its
        lock and only while unchanged, so a change another process made meanwhile keeps it
        open. Returns the lobbies closed now (one that cannot be read is left alone)."""
        now = self.clock()
        before = now - LOBBY_IDLE
        closed: list[TableRecord] = []
        mine = set(held)
        for table, revision in await self.store.idle_lobbies(before):
            if table not in mine:
                continue
            try:
                read = await self.tables.load(table)
                if read.updated_at > now - idle_after(read):
                    continue  # a slow match's lobby waits a turn's time (no lock taken)
                async with self.tables.hold(table) as record:
                    if record.status != "lobby" or record.revision != revision:
                        continue
                    since = now - idle_after(record)
                    if not await self.store.close_idle_lobby(table, revision, since, now):
                        continue
                    closed.append(await self.tables.load(table))
            except Refusal:
                continue
        return closed

    async def close_within(self, channel_id: int, by: int) -> list[TableRecord]:
        """Channel (or thread) ``channel_id`` was deleted: every lobby and running table it
        takes with it (opened in it, played in threads of it, or, for a thread, played in it)
        is closed as abandoned by ``by`` (the bot, who sits at no table: no person forfeits;
        a match's log and result are kept as for any abandoned match). Returns the tables
        closed now (one closed meanwhile, or that cannot be read, is left out)."""
        closed: list[TableRecord] = []
        for table in await self.store.active_within(channel_id):
            try:
                closed.append(await self.abandon_table(table, by, True))
            except Refusal:
                continue
        return closed

    async def _close(self, record: TableRecord, user_id: int, manager: bool,
                     refusal: str, listed: bool | None = None) -> TableRecord:
        """Abandon an active table (kept as history) for its host or a channel manager, under
        the caller's lock and within its :meth:`_again`; anyone else is refused with the
        message ``refusal``. One who sits at the running match forfeits it: last when it is
        rated, and last at a tournament's table whether it is rated or not, but not once its
        round is over (the match is decided as it stood then: they are told so)."""
        if record.status not in ("lobby", "running"):
            raise Refusal(msg("bot.error.not_active"), record)
        if record.host_id != user_id and not manager:
            raise Refusal(msg(refusal), record)
        await self._refuse_after_round(record, user_id)
        if record.status == "lobby":
            await self.store.set_status(record.id, "abandoned", record.revision)
            return await self.tables.load(record.id)
        result = abandoned_result(record, await self.store.action_log(record.id), user_id,
                                  self.clock())
        if listed is not None and (result is not None) != listed:  # not what they were told
            raise Refusal(msg("ratings.note.changed"), record)
        # at the version and revision read: a move another process wrote meanwhile, or a
        # change of its seats (one handed to the AI, a person forgotten, whose result must
        # not keep their id), is a StaleVersion, and the caller's :meth:`_again` closes the
        # match as it stands after it
        await self.store.abandon(record.id, record.version, result, rate_result,
                                 record.seat_of(user_id), record.revision)
        return await self.tables.load(record.id)

    async def may_quit(self, table_id: int, user_id: int) -> TableRecord:
        """Before the Leave button of a solo table closes it: the running table, when the user
        is its host (who confirms first); otherwise the refusal of :meth:`quit`."""
        record = await self.tables.load(table_id)
        self._solo_only(record)
        if record.status != "running":
            raise Refusal(msg("bot.error.not_active"), record)
        if record.host_id != user_id:
            raise Refusal(msg("learn.error.host_only"), record)
        return record

    @staticmethod
    def _solo_only(record: TableRecord) -> None:
        """Refuse a Leave button of a table that shows none (:func:`~bot.game.seats.solo`)."""
        if not solo(record):
            raise Refusal(msg("bot.error.bad_button"), record)

    async def abandon_note(self, record: TableRecord, user_id: int) -> Msg | None:
        """What abandoning the running match of ``record`` now would do to the ratings, said
        to ``user_id`` before they confirm: rated as it stands (them last when they made a move
        at their seat), or not rated while someone still seated has not moved, though one seated
        at a tournament's match takes its last place there all the same; for a match of one
        person (or one whose others all left before moving), never rated, a game lost against
        the AI once they moved, told beside that last place at a tournament's match (None:
        nothing)."""
        log = await self.store.action_log(record.id)
        moved = movers(log)
        people = sum(s.user is not None for s in record.seats)
        if people >= 2 and not waiting(record, moved) and len(moved) >= 2:
            if (record.seat_of(user_id), user_id) in moved:
                return msg("ratings.note.ask_rated_last")
            return msg("ratings.note.ask_rated")
        lost = lost_alone(record, log, user_id)  # alone, or the others left before moving
        if (record.seat_of(user_id) is not None
                and await self.store.tournament_of_table(record.id) is not None):
            return msg("ratings.note.ask_forfeit_lost_alone" if lost
                       else "ratings.note.ask_forfeit")
        if lost:
            return msg("ratings.note.ask_lost_alone")
        if people < 2:
            return None
        return msg("ratings.note.ask_waiting" if waiting(record, moved)
                   else "ratings.note.ask_too_few")

    async def kept(self, record: TableRecord, by: int | None = None) -> Kept:
        """What is kept of the table of ``record`` for people to look back at (:data:`Kept`):
        its match is listed in /goblin history only with a stored result, which a match
        abandoned before everyone still seated moved, a guided match left and a match its one
        mover did not close never have; /goblin replay opens any match that began. ``by``: the
        running match, not closed yet, as user ``by`` abandoning it now would leave it."""
        if record.state is None:
            return "none"
        if by is not None and record.status == "running":
            result = abandoned_result(record, await self.store.action_log(record.id), by,
                                      self.clock())
            return "replay" if result is None else "listed"
        try:
            found = await self.store.result_of(record.id)
        except StorageError:  # told after the table closed: nothing is claimed of it
            return "none"
        return "replay" if found is None else "listed"

    async def quit(self, table_id: int, user_id: int) -> TableRecord:
        """The confirmed Leave button of a solo table: its host closes it (kept as history).
        A table with other people at it has no Leave button: one forged for it is refused, and
        its host abandons it with /goblin abandon, which asks first and says what it does to
        the ratings."""
        async def close(record: TableRecord) -> TableRecord:
            self._solo_only(record)
            return await self._close(record, user_id, False, "learn.error.host_only")
        return await self._change(table_id, close)

    async def follow_locale(self, channel_id: int, user_id: int,
                            locale: str) -> TableRecord | None:
        """In direct messages a table speaks its person's language: the active table of
        ``channel_id``, a direct message, takes ``locale`` when its host (the one person there)
        uses the bot in another language. The table when its language changed, else None."""
        tid = await self.store.active_in_channel(channel_id)
        if tid is None:
            return None
        try:
            seen = await self.tables.load(tid)  # read first: the lock only for a change
            if seen.guild_id is not None or seen.host_id != user_id or seen.locale == locale:
                return None
            async with self.tables.hold(tid) as record:
                if record.status not in ("lobby", "running"):
                    return None
                changed = await self.store.relocalise(tid, locale)
            return await self.tables.load(tid) if changed else None
        except Refusal:  # a damaged table
            return None

    def _limited(self, user_id: int, record: TableRecord) -> Limited | None:
        """What the start's write checks, under ``user_id``'s lock, before the match of
        ``record`` starts: refused when they play as many matches at once as the bot allows
        (:class:`~bot.game.limits.MatchLimit`)."""
        if self.limit is None:
            return None
        return self.limit.limited(user_id, record.timer, record)

    @staticmethod
    def _host_only(record: TableRecord, user_id: int) -> None:
        if record.host_id != user_id:
            raise Refusal(msg("bot.error.host_only"), record)

    async def _change(self, table_id: int,
                      change: Callable[[TableRecord], Awaitable[TableRecord]]) -> TableRecord:
        """Hold table ``table_id`` and make ``change`` on it (see :meth:`_again`)."""
        async with self.tables.locked(table_id):
            return await self._again(table_id, change)

    async def _again(self, table_id: int,
                     change: Callable[[TableRecord], Awaitable[TableRecord]]) -> TableRecord:
        """Make ``change`` on table ``table_id`` read now (its lock held by the caller):
        ``change`` checks the record, writes at its revision (or version) and returns the
        table written. When another process changed the table between the read and the write
        (the store refuses the write: :class:`StaleVersion`), the change is made again on the
        table read again, whose checks refuse it when it no longer fits (the lobby closed or
        started, a host's click on a lobby that changed); refused as made on an older lobby
        after :data:`ATTEMPTS`."""
        for attempt in range(1, ATTEMPTS + 1):
            record = await self.tables.load(table_id)
            try:
                return await change(record)
            except StaleVersion as exc:
                if attempt == ATTEMPTS:
                    raise Stale(msg("bot.error.lobby_moved"),
                                await self.tables.load(table_id)) from exc
        raise AssertionError("unreachable")  # pragma: no cover


__all__ = ["ATTEMPTS", "LOBBY_IDLE", "SEED_BITS", "Kept", "Lobby", "game_config", "idle_after",
           "lapsed", "new_seed"]
