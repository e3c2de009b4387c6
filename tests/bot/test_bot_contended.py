"""Another writer moving a table while the bot runs, at a fixed point (by wrapping the store),
never by timing. An AI seat's turn whose table changed under every attempt at its move is an
ordinary race between two writers, not a fault: the AI's turn is tried again (its pace again,
the lease asked first) with no error logged and no failure streak counted, and the table goes
on to its person's move. A match a test plants through the store while the bot runs is held
by the bot meanwhile, so a pass of its leases takes no part in it."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from bot_helpers import Clock
from live_bot import LiveBot
from players import ANN, Players, TinyRenderer, finished_match, open_table
from storage.helpers import played
from test_bot_solo import SOLO

from bot.game.play import ATTEMPTS
from bot.storage.records import LogRow
from bot.storage.sqlite import Store
from bot.workers.thinking import Thinking
from engine import apply, observe
from engine.agents import make_agent
from loopback import Loopback


class Meddled:
    """A store whose next ``left`` writes of an AI seat's move each first let another process
    make that AI seat's move itself (as one that took the table over does)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.left = 0
        self.meddled = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    async def apply(self, table_id: int, before: int, *args: Any, **kwargs: Any) -> None:
        """The write, after the other process's move when one is due."""
        log: LogRow = args[1]
        if log.by_ai and self.left > 0:
            self.left -= 1
            await self._other_moves(table_id)
        await self.store.apply(table_id, before, *args, **kwargs)

    async def _other_moves(self, table_id: int) -> None:
        record = await self.store.get(table_id)
        assert record is not None and record.seats[record.game.current].ai
        state = record.game
        action = make_agent("easy", state.step).choose(observe(state, state.current))
        after, _ = apply(state, action, seat=state.current)
        await self.store.apply(table_id, record.version, after,
                               LogRow(after.step, state.current, None, True, str(action), 0.0))
        self.meddled += 1


async def test_an_ai_turn_another_writer_kept_moving_plays_on_without_an_error(
        lb: Loopback, tmp_path: Path, clock: Clock, caplog: pytest.LogCaptureFixture) -> None:
    """Another process makes the AI seat's move just before each of the AI's writes, as
    many times as the AI tries (it took the table over): the AI tries its turn again, and
    plays on to Ann's move once the other stops, with nothing logged as a failure."""
    caplog.set_level(logging.INFO)
    store = Meddled(await Store.open(tmp_path / "k.db", clock=clock))
    h = await LiveBot.start(lb, store, TinyRenderer(), clock=clock,
                            thinking=Thinking(workers=0))
    try:
        tid = await open_table(h, ANN, [], ai=2)
        store.left = ATTEMPTS  # the AI's next writes each find the table moved on
        players = Players(h, tid, [ANN])
        while store.meddled < ATTEMPTS:  # Ann plays until the AI seats' turns come
            assert await players.step()
        record = await h.bot.service.tables.load(tid)
        assert record.status == "running"
        assert not record.seats[record.game.current].ai  # played on to Ann's move
        assert h.bot.tasks.failures.streaks == {}  # no failure counted
        assert not [r for r in caplog.records if r.levelno >= logging.WARNING], [
            r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    finally:
        await h.stop()


class Passing:
    """A store after whose next write the bot's leases loop makes a pass (as it may, every
    third of a lease, while a test plants a match through the store)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.then: Callable[[], Awaitable[object]] | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    async def apply(self, *args: Any, **kwargs: Any) -> None:
        """The write, then the pass when one is due."""
        await self.store.apply(*args, **kwargs)
        then, self.then = self.then, None
        if then is not None:
            await then()


async def test_a_match_planted_while_the_leases_pass_is_left_alone(
        lb: Loopback, tmp_path: Path, clock: Clock) -> None:
    """A test plants a finished match move by move through the store while the bot runs: a
    pass of the leases in the middle takes no part in it (no AI move of the bot's wedged in
    between the planted ones, no table message, no end announced)."""
    store = Passing(await Store.open(tmp_path / "k.db", clock=clock))
    h = await LiveBot.start(lb, store, TinyRenderer(), clock=clock,
                            thinking=Thinking(workers=0))
    try:
        shown = len(h.public())
        store.then = h.bot.scheduler._lease_pass
        game = played(1)
        tid = await finished_match(h.store, game, seats=SOLO)
        await h.settle()
        assert store.then is None  # the pass was made
        assert [r.action for r in await h.store.action_log(tid)] == [m for _, m in game.moves]
        assert len(h.public()) == shown, [m.text()[:300] for m in h.public()]
    finally:
        await h.stop()
