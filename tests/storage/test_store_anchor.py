"""A running game's take-back anchor in storage: kept in its own column, written when a take-back
window opens (NULL when it closes) and not with every move; a restarted bot still takes back; a
row without its anchor reads with no take-back open; a state stored with its anchor inside (by
the bots before the anchor's column) reads with its take-back, and the migration adding the
column moves that anchor out.
"""

from __future__ import annotations

import msgspec
from msgspec.structs import replace

from bot.storage.core.tables import moved_columns
from bot.storage.interface import Storage
from engine import GameState, Undo, anchor_to_json, apply, state_to_json
from engine.state import STATE_FORMAT
from storage.backends import Backend, plain
from storage.helpers import Clock, Game, started, taking_back
from storage.old_bots import old_rows


def old_json(state: GameState) -> str:
    """``state`` as the bots before the anchor's column stored it: the anchor inside the
    record."""
    return msgspec.json.encode({"format": STATE_FORMAT, "state": state}).decode()


def window(game: Game, moves: int = 2) -> int:
    """The index of the first state of ``game`` whose take-back record lists ``moves`` moves."""
    return next(i for i, s in enumerate(game.states)
                if s.undo is not None and len(s.undo.moves) == moves)


async def anchors(backend: Backend) -> dict[object, object]:
    """The ``anchor`` column of every stored table, by table id."""
    return {row[0]: plain(row[1]) for row in await backend.read_rows("tables", ["id", "anchor"])}


async def play_to(store: Storage, game: Game, upto: int) -> int:
    """A table playing ``game`` up to its state ``upto``; its id."""
    rec = await started(store, game.states[0])
    for index in range(upto):
        await store.apply(rec.id, index, game.states[index + 1], game.log_row(index))
    return rec.id


def test_a_move_writes_the_anchor_only_when_the_window_opens_or_closes() -> None:
    game = taking_back(5)
    for state in game.states[1:]:
        columns = moved_columns(state, state.step, state_to_json(state), 0.0, None, None)
        if state.undo is None:
            assert columns["anchor"] is None
        elif len(state.undo.moves) == 1:
            assert columns["anchor"] == anchor_to_json(state)
        else:
            assert "anchor" not in columns


async def test_the_anchor_column_holds_the_open_window_s_anchor(
        backend: Backend, store: Storage) -> None:
    game = taking_back(5)
    at = window(game)
    tid = await play_to(store, game, at)
    assert (await anchors(backend))[tid] == plain(anchor_to_json(game.states[at]))
    closed = next(i for i in range(at, len(game.states)) if game.states[i].undo is None)
    for index in range(at, closed):
        await store.apply(tid, index, game.states[index + 1], game.log_row(index))
    assert (await anchors(backend))[tid] is None


async def test_a_restarted_bot_takes_back_in_the_open_window(
        store: Storage, fresh: Storage) -> None:
    game = taking_back(5)
    at = window(game)
    tid = await play_to(store, game, at)
    rec = await fresh.get(tid)
    assert rec is not None and rec.game == game.states[at]
    assert apply(rec.game, Undo()) == apply(game.states[at], Undo())
    back, _ = apply(rec.game, Undo())
    assert back == game.states[at - 1]


async def test_a_row_without_its_anchor_reads_with_no_take_back(
        backend: Backend, store: Storage, fresh: Storage) -> None:
    game = taking_back(5)
    at = window(game)
    tid = await play_to(store, game, at)
    await backend.damage_table(store, tid, anchor=None)
    rec = await fresh.get(tid)
    assert rec is not None and rec.game == replace(game.states[at], undo=None)


async def test_a_state_stored_with_its_anchor_inside_reads_with_its_take_back(
        backend: Backend, store: Storage, fresh: Storage) -> None:
    game = taking_back(5)
    at = window(game)
    tid = await play_to(store, game, at)
    await backend.damage_table(store, tid, state=old_json(game.states[at]), anchor=None)
    rec = await fresh.get(tid)
    assert rec is not None and rec.game == game.states[at]
    assert apply(rec.game, Undo()) == apply(game.states[at], Undo())


#: The migration that gives the anchor its own column.
ANCHOR_MIGRATION = 16


async def test_the_migration_moves_the_anchor_out_of_a_running_game_s_state(
        backend: Backend, clock: Clock) -> None:
    game = taking_back(5)
    at = window(game)
    await backend.build(ANCHOR_MIGRATION - 1)  # the schema before the anchor's column
    rows = old_rows(ANCHOR_MIGRATION - 1, 3, "running", game, at)
    rows[0][1]["state"] = old_json(game.states[at])
    await backend.insert_rows(rows)
    await backend.build(ANCHOR_MIGRATION)
    stored = {r[0]: r[1:] for r in await backend.read_rows("tables", ["id", "state", "anchor"])}
    state, anchor = stored[3]
    assert isinstance(state, str) and '"base"' not in state
    assert anchor is not None
    store = await backend.open(clock)
    try:
        rec = await store.get(3)
        assert rec is not None and rec.game == game.states[at]
    finally:
        await store.close()
