"""The game service: lobbies, moves, AI seats and turn timers, with no Discord in sight.

Every operation on a table runs under that table's asyncio lock and re-reads the table from the
store, so two simultaneous clicks are serialised and the second sees the first's result (a stale
version). Refusals are :class:`Refusal` exceptions carrying a translatable reason.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from bot.storage import (
    CorruptTable,
    LogRow,
    SeatInfo,
    StaleVersion,
    Store,
    TableExists,
    TableRecord,
    with_seat,
)
from engine import (
    Action,
    BadNotation,
    Event,
    GameConfig,
    GameState,
    IllegalAction,
    Phase,
    SeatConfig,
    apply,
    new_game,
    observe,
    parse,
)
from engine import rng as engine_rng
from engine.agents import Agent, make_agent
from engine.catalog import tables
from i18n import Msg, msg

MIN_SEATS = 2
MAX_SEATS = 4
#: After this many turns in a row played by the AI because the timer ran out, the seat is the AI's.
MAX_TIMEOUTS = 2
#: Safety bound on the moves the AI makes in one timed-out turn.
MAX_AI_MOVES_PER_TURN = 200
TIMERS = (0, 60, 120, 300, 600, 1800, 3600, 86400)


def heroes() -> tuple[str, ...]:
    """The heroes a seat may pick, in catalogue order."""
    return tuple(tables().hero_cards)


class Refusal(Exception):
    """A request the service turns down politely; ``reason`` is the message to show."""

    def __init__(self, reason: Msg, record: TableRecord | None = None) -> None:
        super().__init__(reason.key)
        self.reason = reason
        self.record = record


class NoTable(Refusal):
    """No such table, or no active table in the channel."""


class Damaged(Refusal):
    """The table's stored row is corrupt; nothing can be done with it but abandoning it."""


class Stale(Refusal):
    """The click was made on an older version of the table: already played."""


class NotSeated(Refusal):
    """The user holds no seat at this table."""


class OutOfTurn(Refusal):
    """The user holds a seat but another seat must decide."""


class Illegal(Refusal):
    """The engine refused the move (or the notation could not be read)."""


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
    def state(self) -> GameState:
        """The state after the action."""
        return self.record.game

    @property
    def turn_changed(self) -> bool:
        """True when the action ended a turn (another seat's turn starts, or the game ended)."""
        s = self.state
        return (s.round, s.turn) != (self.before.round, self.before.turn) or s.winner is not None


@dataclass
class GameService:
    """Table operations over a :class:`Store`. ``clock`` and ``seeds`` are injectable for tests."""

    store: Store
    agent_kind: str = "heuristic"
    default_timer: int = 0
    clock: Callable[[], float] = time.time
    seeds: Callable[[], int] = field(default=lambda: secrets.randbits(31))
    _locks: dict[int, asyncio.Lock] = field(default_factory=dict)

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
                     locale: str = "en") -> TableRecord:
        """Open a lobby in the channel with the host in the first seat.

        ``locale`` is the server's language in Discord; the public messages of the table use it
        unless the server's admins forced another one (``/goblin settings language``).
        """
        locale = await self.store.guild_locale(guild_id) or locale
        saved = await self.store.guild_settings(guild_id)
        if abilities is None:
            abilities = saved[0] if saved else False
        if timer is None:
            timer = saved[1] if saved else self.default_timer
        if timer not in TIMERS and not 30 <= timer <= 86400:
            raise Refusal(msg("bot.error.bad_timer"))
        try:
            return await self.store.create_table(
                guild_id=guild_id, channel_id=channel_id, host_id=host_id,
                seats=(SeatInfo(user=host_id, name=host_name[:32]),), abilities=abilities,
                timer=timer, seed=self.seeds(), locale=locale)
        except TableExists as exc:
            raise Refusal(msg("bot.error.table_exists", table=exc.table_id)) from exc

    async def _lobby(self, table_id: int) -> TableRecord:
        record = await self.load(table_id)
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
        """The host adds an AI seat (``seen``: the seat count the host was looking at; a
        second click of a double click then changes nothing)."""
        async with self.lock(table_id):
            record = await self._lobby(table_id)
            self._host_only(record, user_id)
            self._unchanged(record, seen)
            if len(record.seats) >= MAX_SEATS:
                raise Refusal(msg("bot.error.table_full", max=MAX_SEATS), record)
            seats = (*record.seats, SeatInfo(ai=True))
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

    @staticmethod
    def _unchanged(record: TableRecord, seen: int | None) -> None:
        """Refuse a lobby click made on a lobby that has changed since (a double click)."""
        if seen is not None and seen != len(record.seats):
            raise Refusal(msg("bot.error.lobby_moved"), record)

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
                    update={"ai": True}))
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

    async def start(self, table_id: int, user_id: int) -> TableRecord:
        """The host starts the game; seats without a hero get a free one at random."""
        async with self.lock(table_id):
            record = await self._lobby(table_id)
            self._host_only(record, user_id)
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
        """The host (or a channel manager) closes a lobby or abandons a running game."""
        async with self.lock(table_id):
            record = await self.load(table_id)
            if record.status not in ("lobby", "running"):
                raise Refusal(msg("bot.error.not_active"), record)
            if record.host_id != user_id and not manager:
                raise Refusal(msg("bot.error.host_only"), record)
            await self.store.set_status(table_id, "abandoned")
            return await self.load(table_id)

    async def abandon_damaged(self, channel_id: int, table_id: int) -> None:
        """Close a damaged table so the channel is free again (its row stays for inspection)."""
        async with self.lock(table_id):
            await self.store.raw_execute(
                "UPDATE tables SET status = 'abandoned' WHERE id = ? AND channel_id = ?",
                (table_id, channel_id))

    @staticmethod
    def _host_only(record: TableRecord, user_id: int) -> None:
        if record.host_id != user_id:
            raise Refusal(msg("bot.error.host_only"), record)

    # ------------------------------------------------------------------ playing

    def _deadline(self, timer: int, seats: tuple[SeatInfo, ...] | list[SeatInfo],
                  state: GameState, previous: float | None, new_turn: bool) -> float | None:
        """The turn deadline after a move: a fresh one when a human's turn starts."""
        if timer <= 0 or state.phase is Phase.OVER or seats[state.current].ai:
            return None
        if new_turn or previous is None:
            return self.clock() + timer
        return previous

    async def act(self, table_id: int, user_id: int, version: int, notation: str) -> Outcome:
        """Apply the move ``notation`` for ``user_id``, clicked on table version ``version``."""
        async with self.lock(table_id):
            record = await self.load(table_id)
            seat = record.seat_of(user_id)
            if seat is None:
                raise NotSeated(msg("bot.error.not_seated"), record)
            if record.status != "running":
                raise Stale(msg("bot.error.game_closed"), record)
            if version != record.version:
                raise Stale(msg("bot.error.already_played"), record)
            state = record.game
            if seat != state.current:
                raise OutOfTurn(msg("bot.error.not_your_turn",
                                    who=_seat_label(record, state.current)), record)
            try:
                action = parse(notation)
            except BadNotation as exc:
                raise Illegal(msg("bot.error.bad_move"), record) from exc
            seats = record.seats
            if seats[seat].ai:
                raise OutOfTurn(msg("bot.error.seat_is_ai"), record)
            if seats[seat].timeouts:
                seats = with_seat(seats, seat, seats[seat].model_copy(update={"timeouts": 0}))
            return await self._apply(record, action, seat, user_id, False, seats)

    async def _apply(self, record: TableRecord, action: Action, seat: int, user_id: int | None,
                     by_ai: bool, seats: tuple[SeatInfo, ...], timed_out: bool = False,
                     handed: bool = False) -> Outcome:
        state = record.game
        try:
            new, events = apply(state, action, seat=seat)
        except IllegalAction as exc:
            raise Illegal(exc.reason, record) from exc
        new_turn = (new.round, new.turn) != (state.round, state.turn)
        deadline = self._deadline(record.timer, seats, new, record.deadline, new_turn)
        try:
            await self.store.apply(
                record.id, record.version, new,
                LogRow(step=new.step, seat=seat, user_id=user_id, by_ai=by_ai,
                       action=str(action), at=self.clock()),
                seats=seats if seats != record.seats else None, deadline=deadline)
        except StaleVersion as exc:  # pragma: no cover - the lock makes this unreachable
            raise Stale(msg("bot.error.already_played"), record) from exc
        after = await self.load(record.id)
        return Outcome(record=after, before=state, action=action, seat=seat, by_ai=by_ai,
                       events=tuple(events), timed_out=timed_out, handed_to_ai=handed)

    def agent(self, record: TableRecord) -> Agent:
        """The agent that moves for an AI seat at this table and version (reproducible)."""
        seed = (record.seed * 1_000_003 + record.version) % (2**31)
        return make_agent(self.agent_kind, seed)

    def _ai_move(self, record: TableRecord) -> Action:
        state = record.game
        obs = observe(state, state.current)
        action = self.agent(record).choose(obs)
        if action not in obs.legal:  # an agent bug must not stall the table
            action = obs.legal[0]
        return action

    async def ai_step(self, table_id: int) -> Outcome | None:
        """If an AI seat must decide, make its one next move; else None."""
        async with self.lock(table_id):
            record = await self.load(table_id)
            if record.status != "running":
                return None
            state = record.game
            if state.phase is Phase.OVER or not record.seats[state.current].ai:
                return None
            return await self._apply(record, self._ai_move(record), state.current, None, True,
                                     record.seats)

    async def expire(self, table_id: int, version: int) -> list[Outcome]:
        """The turn timer ran out at ``version``: the AI plays the rest of this turn (D7).

        The seat's timeout count grows; at :data:`MAX_TIMEOUTS` the seat goes to the AI for good.
        Nothing happens when the table moved on or the deadline is not reached.
        """
        async with self.lock(table_id):
            record = await self.load(table_id)
            if (record.status != "running" or record.version != version
                    or record.deadline is None or self.clock() < record.deadline):
                return []
            state = record.game
            seat = state.current
            info = record.seats[seat]
            if info.ai:
                return []
            count = info.timeouts + 1
            handed = count >= MAX_TIMEOUTS
            seats = with_seat(record.seats, seat, info.model_copy(
                update={"timeouts": count, "ai": handed}))
            out: list[Outcome] = []
            turn = (state.round, state.turn)
            for _ in range(MAX_AI_MOVES_PER_TURN):
                outcome = await self._apply(record, self._ai_move(record), seat, None, True,
                                            seats, timed_out=True, handed=handed)
                out.append(outcome)
                record = outcome.record
                s = record.game
                if s.phase is Phase.OVER or (s.round, s.turn) != turn or handed:
                    break
            return out

    async def due(self) -> list[tuple[int, int, float]]:
        """(table id, version, deadline) of every running table with a turn timer set."""
        out: list[tuple[int, int, float]] = []
        for tid in await self.store.ids_with_status("running"):
            try:
                record = await self.load(tid)
            except Refusal:
                continue
            if record.deadline is not None:
                out.append((tid, record.version, record.deadline))
        return out


def _seat_label(record: TableRecord, seat: int) -> Msg | str:
    info = record.seats[seat]
    if info.name:
        return info.name
    return msg(f"hero.{record.game.seats[seat].hero}.name")


__all__ = [
    "Damaged", "GameService", "Illegal", "MAX_SEATS", "MAX_TIMEOUTS", "MIN_SEATS", "NoTable",
    "NotSeated", "OutOfTurn", "Outcome", "Refusal", "Stale", "TIMERS", "heroes",
]
