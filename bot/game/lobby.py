"""The lobby half of the game service: a table's seats before the game, server settings, and
closing a table. Every operation that reads or writes a table runs under that table's lock and
re-reads it from the store, and every right (host, Manage Channels, Manage Server) is checked
there too, so two simultaneous clicks are serialised and the second sees the first's result.

Each lobby change bumps the lobby's revision; a click made on an older revision of the lobby (a
double click on Add AI seat, a Start pressed on a lobby that changed meanwhile) is refused as
stale instead of changing the lobby twice.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from bot.game.refusals import Damaged, NoTable, NotSeated, Refusal, Stale
from bot.storage.records import CorruptTable, SeatInfo, TableExists, TableRecord, with_seat
from bot.storage.sqlite import Store
from engine import GameConfig, GameState, Phase, SeatConfig, new_game
from engine import rng as engine_rng
from engine.agents import DEFAULT_LEVEL, LEVELS, Level
from engine.catalog import tables
from i18n import LOCALES, msg, normalise_locale

MIN_SEATS = 2
MAX_SEATS = 4
TIMERS = (0, 60, 120, 300, 600, 1800, 3600, 86400)
#: The language choice of /goblin settings that follows the server's language in Discord.
AUTO = "auto"


def level_of(text: str) -> Level:
    """The AI level ``text`` names, or a refusal (a forged option or menu value)."""
    for level in LEVELS:
        if level == text:
            return level
    raise Refusal(msg("bot.error.not_in_menu"))


def heroes() -> tuple[str, ...]:
    """The heroes a seat may pick, in catalogue order."""
    return tuple(tables().hero_cards)


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """A server's defaults for new tables and the language it forced (None: Discord's)."""

    abilities: bool
    timer: int
    forced_locale: str | None
    relocalised: tuple[int, ...] = ()  # tables whose language changed with this request
    ai_level: Level = DEFAULT_LEVEL  # the level of the AI seats of new tables


@dataclass
class LobbyService:
    """Lobby and table-closing operations over a :class:`Store` (``clock`` and ``seeds`` are
    injectable for tests); :class:`bot.game.play.GameService` adds the game itself."""

    store: Store
    default_timer: int = 0
    clock: Callable[[], float] = time.time
    seeds: Callable[[], int] = field(default=lambda: secrets.randbits(31))
    _locks: dict[int, asyncio.Lock] = field(default_factory=dict)
    _guild_locks: dict[int, asyncio.Lock] = field(default_factory=dict)

    def lock(self, table_id: int) -> asyncio.Lock:
        """The lock of table ``table_id``."""
        found = self._locks.get(table_id)
        if found is None:
            found = self._locks[table_id] = asyncio.Lock()
        return found

    def forget(self, table_id: int) -> None:
        """Drop the lock of a table that ended (nothing is done with it any more)."""
        found = self._locks.get(table_id)
        if found is not None and not found.locked():
            del self._locks[table_id]

    # ------------------------------------------------------------------ reading

    async def load(self, table_id: int) -> TableRecord:
        """The table, or a :class:`NoTable` / :class:`Damaged` refusal."""
        try:
            record = await self.store.get(table_id)
        except CorruptTable as exc:
            raise Damaged(msg("bot.error.damaged", table=exc.table_id)) from exc
        if record is None:
            raise NoTable(msg("bot.error.no_such_table", table=table_id))
        return record

    async def in_channel(self, channel_id: int) -> TableRecord:
        """The channel's active table, or a :class:`NoTable` refusal."""
        tid = await self.store.active_in_channel(channel_id)
        if tid is None:
            raise NoTable(msg("bot.error.no_table_here"))
        return await self.load(tid)

    # ------------------------------------------------------------------ lobby

    async def create(self, *, guild_id: int | None, channel_id: int, host_id: int,
                     host_name: str, abilities: bool | None = None, timer: int | None = None,
                     locale: str = "en", ai_level: str | None = None) -> TableRecord:
        """Open a lobby in the channel with the host in the first seat.

        ``locale`` is the server's language in Discord; the public messages of the table use it
        unless the server's admins forced another one (``/goblin settings language``).
        ``ai_level`` is the level of the AI seats the host adds (None: the server's default).
        """
        locale = await self.store.guild_locale(guild_id) or locale
        saved = await self.store.guild_settings(guild_id)
        if abilities is None:
            abilities = saved[0] if saved else False
        if timer is None:
            timer = saved[1] if saved else self.default_timer
        if timer not in TIMERS and not 30 <= timer <= 86400:
            raise Refusal(msg("bot.error.bad_timer"))
        level = level_of(ai_level) if ai_level is not None else (
            saved[2] if saved else DEFAULT_LEVEL)
        try:
            return await self.store.create_table(
                guild_id=guild_id, channel_id=channel_id, host_id=host_id,
                seats=(SeatInfo(user=host_id, name=host_name[:32]),), abilities=abilities,
                timer=timer, seed=self.seeds(), locale=locale, ai_level=level)
        except TableExists as exc:
            try:
                found: TableRecord | None = await self.load(exc.table_id)
            except Refusal:
                found = None
            raise Refusal(msg("bot.error.table_exists", table=exc.table_id), found) from exc

    async def _lobby(self, table_id: int) -> TableRecord:
        """The table, still a lobby (else a refusal saying the game started, or closed)."""
        record = await self.load(table_id)
        if record.status == "running":
            raise Refusal(msg("bot.error.already_started"), record)
        if record.status != "lobby":
            raise Refusal(msg("bot.error.not_lobby"), record)
        return record

    async def join(self, table_id: int, user_id: int, name: str) -> TableRecord:
        """Take a free seat in the lobby."""
        async with self.lock(table_id):
            record = await self._lobby(table_id)
            if record.seat_of(user_id) is not None:
                raise Refusal(msg("bot.error.already_seated"), record)
            if len(record.seats) >= MAX_SEATS:
                raise Refusal(msg("bot.error.table_full", max=MAX_SEATS), record)
            seats = (*record.seats, SeatInfo(user=user_id, name=name[:32]))
            await self.store.update_lobby(table_id, seats)
            return await self.load(table_id)

    async def add_ai(self, table_id: int, user_id: int, seen: int | None = None) -> TableRecord:
        """The host adds an AI seat (``seen``: the lobby revision the host was looking at; a
        second click of a double click then changes nothing)."""
        async with self.lock(table_id):
            record = await self._lobby(table_id)
            self._host_only(record, user_id)
            self._unchanged(record, seen)
            if len(record.seats) >= MAX_SEATS:
                raise Refusal(msg("bot.error.table_full", max=MAX_SEATS), record)
            seats = (*record.seats, SeatInfo(ai=True, level=record.ai_level))
            await self.store.update_lobby(table_id, seats)
            return await self.load(table_id)

    async def remove_ai(self, table_id: int, user_id: int,
                        seen: int | None = None) -> TableRecord:
        """The host removes the last AI seat (``seen`` as for :meth:`add_ai`)."""
        async with self.lock(table_id):
            record = await self._lobby(table_id)
            self._host_only(record, user_id)
            self._unchanged(record, seen)
            last = max((i for i, s in enumerate(record.seats) if s.ai), default=None)
            if last is None:
                raise Refusal(msg("bot.error.no_ai_seat"), record)
            seats = tuple(s for i, s in enumerate(record.seats) if i != last)
            await self.store.update_lobby(table_id, seats)
            return await self.load(table_id)

    async def set_level(self, table_id: int, user_id: int, seat: int, level: str,
                        seen: int | None = None) -> TableRecord:
        """The host sets the level an AI seat of the lobby plays at (``seen`` as for
        :meth:`add_ai`)."""
        async with self.lock(table_id):
            record = await self._lobby(table_id)
            if record.host_id != user_id:
                raise Refusal(msg("bot.error.level_host_only"), record)
            self._unchanged(record, seen)
            if not 0 <= seat < len(record.seats) or not record.seats[seat].ai:
                raise Refusal(msg("bot.error.not_ai_seat"), record)
            seats = with_seat(record.seats, seat, record.seats[seat].model_copy(
                update={"level": level_of(level)}))
            await self.store.update_lobby(table_id, seats)
            return await self.load(table_id)

    @staticmethod
    def _unchanged(record: TableRecord, seen: int | None) -> None:
        """Refuse a lobby click made on an older revision of the lobby (a double click, a
        message that missed an edit)."""
        if seen is not None and seen != record.revision:
            raise Stale(msg("bot.error.lobby_moved"), record)

    async def pick_hero(self, table_id: int, user_id: int, hero: str) -> TableRecord:
        """A seated player picks a hero no other seat holds."""
        async with self.lock(table_id):
            record = await self._lobby(table_id)
            index = record.seat_of(user_id)
            if index is None:
                raise NotSeated(msg("bot.error.join_first"), record)
            if hero not in heroes():
                raise Refusal(msg("bot.error.unknown_hero"), record)
            if any(s.hero == hero for i, s in enumerate(record.seats) if i != index):
                raise Refusal(msg("bot.error.hero_taken", hero=msg(f"hero.{hero}.name")), record)
            seats = with_seat(record.seats, index, record.seats[index].model_copy(
                update={"hero": hero}))
            await self.store.update_lobby(table_id, seats)
            return await self.load(table_id)

    async def leave(self, table_id: int, user_id: int) -> TableRecord:
        """Leave the lobby (the host's role passes on; an empty lobby closes) or hand a running
        seat to the AI for good."""
        async with self.lock(table_id):
            record = await self.load(table_id)
            index = record.seat_of(user_id)
            if index is None:
                raise NotSeated(msg("bot.error.not_seated"), record)
            if record.status == "running":
                seats = with_seat(record.seats, index, record.seats[index].model_copy(
                    update={"ai": True, "level": DEFAULT_LEVEL}))
                await self.store.update_seats(table_id, record.version, seats)
                return await self.load(table_id)
            if record.status != "lobby":
                raise Refusal(msg("bot.error.not_lobby"), record)
            seats = tuple(s for i, s in enumerate(record.seats) if i != index)
            humans = [s for s in seats if s.user is not None]
            if not humans:
                await self.store.set_status(table_id, "abandoned")
                return await self.load(table_id)
            host = record.host_id
            if host == user_id:
                assert humans[0].user is not None
                host = humans[0].user
            await self.store.update_lobby(table_id, seats, host_id=host)
            return await self.load(table_id)

    async def start(self, table_id: int, user_id: int, seen: int | None = None) -> TableRecord:
        """The host starts the game; seats without a hero get a free one at random (``seen``
        as for :meth:`add_ai`: the host starts the lobby they saw)."""
        async with self.lock(table_id):
            record = await self._lobby(table_id)
            self._host_only(record, user_id)
            self._unchanged(record, seen)
            if len(record.seats) < MIN_SEATS:
                raise Refusal(msg("bot.error.too_few", min=MIN_SEATS), record)
            free = [h for h in heroes() if h not in {s.hero for s in record.seats}]
            r = engine_rng.seed_state(record.seed ^ 0x4E50)
            seats: list[SeatInfo] = []
            for s in record.seats:
                if s.hero is None:
                    pick, r = engine_rng.below(r, len(free))
                    s = s.model_copy(update={"hero": free.pop(pick)})
                seats.append(s)
            config = GameConfig(
                seats=tuple(SeatConfig(s.hero or "", name=s.name, ai=s.ai) for s in seats),
                abilities=record.abilities, seed=record.seed)
            state = new_game(config)
            await self.store.start_game(table_id, seats, state,
                                        self._deadline(record.timer, seats, state, None, True))
            return await self.load(table_id)

    async def cancel(self, table_id: int, user_id: int, manager: bool = False) -> TableRecord:
        """The host (or a channel manager) closes a lobby. A game that started is closed with
        /goblin abandon only: a Cancel clicked as the lobby started lost the race to Start."""
        async with self.lock(table_id):
            record = await self.load(table_id)
            if record.status == "running":
                raise Refusal(msg("bot.error.already_started"), record)
            return await self._close(record, user_id, manager, "bot.error.host_only")

    async def abandon(self, channel_id: int, user_id: int, manager: bool) -> TableRecord | int:
        """/goblin abandon: the host or a channel manager (``manager``: the user may Manage
        Channels here) closes the channel's table, kept as history. A damaged table is closed
        the same way (its host is read from its row alone); its id is returned instead of a
        record."""
        tid = await self.store.active_in_channel(channel_id)
        if tid is None:
            raise NoTable(msg("bot.error.no_table_here"))
        async with self.lock(tid):
            try:
                record = await self.load(tid)
            except Damaged:
                if not manager and await self.store.host_of(tid) != user_id:
                    raise Refusal(msg("bot.error.manage_only")) from None
                await self.store.abandon_damaged(tid, channel_id)
                return tid
            return await self._close(record, user_id, manager, "bot.error.manage_only")

    async def _close(self, record: TableRecord, user_id: int, manager: bool,
                     refusal: str) -> TableRecord:
        """Abandon an active table (kept as history) for its host or a channel manager, under
        the caller's lock; anyone else is refused with the message ``refusal``."""
        if record.status not in ("lobby", "running"):
            raise Refusal(msg("bot.error.not_active"), record)
        if record.host_id != user_id and not manager:
            raise Refusal(msg(refusal), record)
        await self.store.set_status(record.id, "abandoned")
        return await self.load(record.id)

    def _guild_lock(self, guild_id: int) -> asyncio.Lock:
        """The lock of a server's settings."""
        found = self._guild_locks.get(guild_id)
        if found is None:
            found = self._guild_locks[guild_id] = asyncio.Lock()
        return found

    async def settings(self, guild_id: int | None) -> ServerSettings:
        """A server's defaults for new tables (read by anyone)."""
        saved = await self.store.guild_settings(guild_id)
        abilities, timer, level = saved if saved else (False, self.default_timer, DEFAULT_LEVEL)
        forced = await self.store.guild_locale(guild_id)
        return ServerSettings(abilities, timer, forced, ai_level=level)

    async def change_settings(self, guild_id: int | None, admin: bool, *,
                              abilities: bool | None = None, timer: int | None = None,
                              language: str | None = None, ai_level: str | None = None,
                              discord_locale: str = "en") -> ServerSettings:
        """/goblin settings: people who may Manage Server (``admin``) set the defaults of new
        tables and the language of the server's tables (``language``: a shipped locale or
        :data:`AUTO`; ``discord_locale``: the server's language in Discord, which AUTO
        follows). Lobbies and running tables change language at once; their ids are returned
        so their messages can be redrawn."""
        if guild_id is None or not admin:
            raise Refusal(msg("bot.error.admins_only"))
        if timer is not None and timer not in TIMERS:
            raise Refusal(msg("bot.error.bad_timer"))
        if language is not None and language != AUTO and language not in LOCALES:
            raise Refusal(msg("bot.error.bad_option"))
        level = level_of(ai_level) if ai_level is not None else None
        async with self._guild_lock(guild_id):
            now = await self.settings(guild_id)
            new = ServerSettings(now.abilities if abilities is None else abilities,
                                 now.timer if timer is None else timer, now.forced_locale,
                                 ai_level=now.ai_level if level is None else level)
            if abilities is not None or timer is not None or language is not None \
                    or level is not None:
                await self.store.set_guild_settings(guild_id, new.abilities, new.timer,
                                                    new.ai_level)
            if language is None:
                return new
            forced = None if language == AUTO else normalise_locale(language)
            await self.store.set_guild_locale(guild_id, forced)
            target = forced or normalise_locale(discord_locale)
            changed: list[int] = []
            for tid in await self.store.active_in_guild(guild_id):
                async with self.lock(tid):
                    if await self.store.relocalise(tid, target):
                        changed.append(tid)
            return ServerSettings(new.abilities, new.timer, forced, tuple(changed), new.ai_level)

    def _deadline(self, timer: int, seats: tuple[SeatInfo, ...] | list[SeatInfo],
                  state: GameState, previous: float | None, new_turn: bool) -> float | None:
        """The turn deadline after a move: a fresh one when a human's turn starts."""
        if timer <= 0 or state.phase is Phase.OVER or seats[state.current].ai:
            return None
        if new_turn or previous is None:
            return self.clock() + timer
        return previous

    @staticmethod
    def _host_only(record: TableRecord, user_id: int) -> None:
        if record.host_id != user_id:
            raise Refusal(msg("bot.error.host_only"), record)


__all__ = ["AUTO", "LobbyService", "MAX_SEATS", "MIN_SEATS", "ServerSettings", "TIMERS",
           "heroes", "level_of"]
