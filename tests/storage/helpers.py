"""What the storage tests share: a clock moved by hand, games played by the engine's agents
(real states and real moves), and tables stored through the interface alone."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, TypeVar

import pytest

from bot.game.places import Place
from bot.storage.interface import Storage
from bot.storage.records import LogRow, Rater, SeatInfo, TableRecord, TournamentRecord
from engine import (
    Action,
    GameConfig,
    GameState,
    Phase,
    SeatConfig,
    Undo,
    apply,
    legal_actions,
    new_game,
    observe,
    parse,
)
from engine.agents import make_agent

T = TypeVar("T")

GUILD = 9
#: The server's place (as storage keeps it).
PLACE = Place.server(GUILD).key
#: Ann and Bob play; the AI holds the third seat.
ANN, BOB = 101, 202
SEATS = (SeatInfo(user=ANN, name="Ann", hero="horan"), SeatInfo(user=BOB, name="Bob", hero="taia"),
         SeatInfo(ai=True, hero="argentus", level="easy"))


class Clock:
    """A clock moved by hand."""

    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


@dataclass(frozen=True)
class Game:
    """A game played to its end by the engine's agents: every position, and each move as
    ``(seat, notation)`` (move ``i`` leads from ``states[i]`` to ``states[i + 1]``)."""

    states: tuple[GameState, ...]
    moves: tuple[tuple[int, str], ...]

    @property
    def final(self) -> GameState:
        """The finished game."""
        return self.states[-1]

    def log_row(self, index: int, at: float = 0.0) -> LogRow:
        """Move ``index`` as the action log holds it (its step: the step of the state it led
        to, which a take-back brings back down)."""
        seat, action = self.moves[index]
        return LogRow(step=self.states[index + 1].step, seat=seat, user_id=None, by_ai=True,
                      action=action, at=at)

    @property
    def standing(self) -> list[str]:
        """The moves that stand: every move but the take-backs and the moves they took back."""
        kept: list[str] = []
        for _, action in self.moves:
            if action == str(Undo()):
                kept.pop()
            else:
                kept.append(action)
        return kept


@cache
def played(seed: int, heroes: tuple[str, ...] = ("horan", "taia", "argentus")) -> Game:
    """The game of ``heroes`` with ``seed`` played to its end by the normal AI."""
    state = new_game(GameConfig(seats=tuple(SeatConfig(h) for h in heroes), seed=seed))
    agents = [make_agent("normal", seed * 8 + i) for i in range(len(heroes))]
    states, moves = [state], []
    while state.phase is not Phase.OVER:
        action = agents[state.current].choose(observe(state, state.current))
        moves.append((state.current, str(action)))
        state, _ = apply(state, action)
        states.append(state)
    return Game(tuple(states), tuple(moves))


@cache
def taking_back(seed: int, heroes: tuple[str, ...] = ("horan", "taia", "argentus"),
                every: int = 3) -> Game:
    """The game of ``heroes`` with ``seed`` played to its end by the easy AI, whose seats take
    back moves in a turn at most once (two moves in a row when they may), when they may at every
    ``every``-th move, then play on: another move than the one taken back when there is one."""
    state = new_game(GameConfig(seats=tuple(SeatConfig(h) for h in heroes), seed=seed))
    agents = [make_agent("easy", seed * 8 + i) for i in range(len(heroes))]
    states, moves = [state], []
    backs: dict[tuple[int, int], int] = {}  # (round, turn) -> the moves taken back in it
    taken: Action | None = None
    while state.phase is not Phase.OVER:
        legal = legal_actions(state)
        turn = (state.round, state.turn)
        if Undo() in legal and state.undo is not None and (
                turn not in backs and len(moves) % every == 0
                or taken is not None and backs.get(turn) == 1):
            action: Action = Undo()
            taken = parse(state.undo.moves[-1])
            backs[turn] = backs.get(turn, 0) + 1
        else:
            action = agents[state.current].choose(observe(state, state.current))
            others = [a for a in legal if a not in (Undo(), taken)]
            if action == taken and others:
                action = others[0]
            taken = None
        moves.append((state.current, str(action)))
        state, _ = apply(state, action)
        states.append(state)
    return Game(tuple(states), tuple(moves))


async def started(store: Storage, state: GameState, channel: int = 1,
                  seats: Sequence[SeatInfo] = SEATS, guild: int | None = GUILD,
                  host: int = ANN, hints: bool | None = None) -> TableRecord:
    """A table in ``channel`` hosted by ``host`` whose game is ``state`` (a lobby started at
    that position; ``hints``: whether its start allowed hints, None: left undecided)."""
    rec = await store.create_table(guild_id=guild, place_key=Place.of(guild, host).key,
                                   channel_id=channel, host_id=host, seats=seats,
                                   abilities=False, timer=0, seed=state.config.seed)
    await store.start_game(rec.id, seats, state, None, hints=hints)
    found = await store.get(rec.id)
    assert found is not None
    return found


async def play_on(store: Storage, table_id: int, game: Game, upto: int | None = None,
                  seats: Sequence[SeatInfo] | None = None, rater: Rater | None = None) -> None:
    """Apply the moves of ``game`` from the table's version up to step ``upto`` (None: the
    end); ``seats`` stored with the last move; ``rater`` rates the match when it ends."""
    rec = await store.get(table_id)
    assert rec is not None
    last = len(game.moves) if upto is None else upto
    for index in range(rec.version, last):
        await store.apply(table_id, index, game.states[index + 1], game.log_row(index),
                          seats=seats if index == last - 1 else None, rater=rater)


async def finished(store: Storage, seed: int, channel: int, guild: int | None = GUILD,
                   seats: tuple[SeatInfo, ...] = SEATS, rater: Rater | None = None,
                   host: int = ANN) -> int:
    """A table hosted by ``host`` whose game ``seed`` is played to its end (started one move
    before it), ``seats`` stored with the last move; ``rater`` rates the match."""
    game = played(seed)
    rec = await started(store, game.states[-2], channel=channel, guild=guild, host=host)
    await play_on(store, rec.id, game, seats=seats, rater=rater)
    return rec.id


async def new_tournament(store: Storage, **changes: object) -> TournamentRecord:
    """A tournament opened for sign-ups in :data:`PLACE` by Ann (``changes``: its other
    settings)."""
    settings: dict[str, object] = dict(
        guild_id=9, place_key=PLACE, channel_id=77, host_id=ANN, name="Autumn Cup",
        rounds=None, table_size=4, timer=0, abilities=False, ai_level=None, round_span=3600,
        closes_at=None, seed=5, locale="en")
    settings.update(changes)
    created = await store.create_tournament(**settings)  # type: ignore[arg-type]
    assert created is not None, "its channel holds a tournament taking sign-ups or under way"
    return created


async def waits_for_lock(store: Storage) -> bool:
    """Whether a PostgreSQL session waits for an advisory lock (asked through ``store``)."""
    row = await store._read.fetchrow(  # type: ignore[attr-defined]
        "SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")
    return row is not None and int(str(row[0])) > 0


def before_commit(monkeypatch: pytest.MonkeyPatch, theirs: Storage, here: Storage, shared: bool,
                  act: Callable[[], Awaitable[T]]) -> list[asyncio.Task[T]]:
    """Make ``theirs``'s next transaction (another process's, on a ``shared`` database; else
    the same store), once written and before it commits, start ``act`` and wait until it waits
    for an advisory lock or got through (only on a shared database: SQLite's write
    transactions run one at a time). The list receives ``act``'s task when it starts."""
    started: list[asyncio.Task[T]] = []
    wrote = theirs._wrote  # type: ignore[attr-defined]

    async def paused(*args: Any) -> bool:
        if not started:
            started.append(asyncio.ensure_future(act()))
            while shared and not started[0].done() and not await waits_for_lock(here):
                await asyncio.sleep(0)
        return bool(await wrote(*args))
    monkeypatch.setattr(theirs, "_wrote", paused)
    return started
