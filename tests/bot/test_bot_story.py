"""The "Log" button of the table message: the whole narration of the current and the previous
turn, privately, rebuilt from the action log (the moves that stand: a move taken back is not
told); a seat sees its own private events, nobody sees another seat's."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from live_bot import LiveBot
from players import ANN, BOB, EVE, Players, finished_match, open_table
from storage.helpers import Game, taking_back

from bot.discord_side.ui.custom_ids import LogButton
from bot.game.away import since_last_move
from bot.game.service import GameService
from engine.replay import Replay


async def _two_turns(bot: LiveBot) -> int:
    tid = await open_table(bot, ANN, [BOB])
    players = Players(bot, tid, [ANN, BOB])
    turns = 0
    for _ in range(400):
        before = (await bot.bot.service.tables.load(tid)).game
        assert await players.step()
        after = (await bot.bot.service.tables.load(tid)).game
        turns += (after.round, after.turn) != (before.round, before.turn)
        if turns == 3:
            return tid
    raise AssertionError("three turns did not pass")


async def test_the_log_tells_the_last_two_turns_to_each_viewer(bot: LiveBot) -> None:
    tid = await _two_turns(bot)
    record = await bot.bot.service.tables.load(tid)
    table = bot.last_table_message()
    log_button = LogButton.id_for(tid)
    assert log_button in table.custom_ids()
    told: dict[str, list[str]] = {}
    for user in (ANN, BOB, EVE):
        ix = await bot.click(user, table, log_button)
        [text] = bot.said(ix)
        told[user.name] = [line[2:] for line in text.splitlines() if line.startswith("> ")]
        assert "the last two turns" in text
    rows = await bot.bot.service.store.action_log(tid)
    replay = Replay(record.game.config, [r.action for r in rows])
    first = replay.turn_starts()[-2]
    for user, seat in ((ANN, record.seat_of(ANN.id)), (BOB, record.seat_of(BOB.id)),
                       (EVE, None)):
        lines = told[user.name]
        said = [line for step in range(first, replay.last + 1)
                for line in replay.narration(step, "en", seat)]
        assert lines == said[said.index(lines[0]):], (lines, said)
        turns = [line for line in lines if line.startswith("Round ")]
        assert len(turns) == 2 and lines[0] == turns[0], lines  # the previous turn's start
        assert len(lines) > 4, lines  # more than the table message shows
    drew = {name: any(line.startswith("You drew ") for line in lines)
            for name, lines in told.items()}
    assert drew["Ann"] or drew["Bob"], told  # the cards a seat drew, which only it sees
    assert not drew["Eve"], told


async def test_a_log_of_a_table_not_started_is_refused(bot: LiveBot) -> None:
    await bot.command(ANN, "new")
    lobby = bot.public()[-1]
    from live_bot import table_id
    tid = table_id(lobby)
    planted = bot.lb.plant_message(bot.channel, [{"type": 1, "components": [
        {"type": 2, "style": 2, "label": "Log", "custom_id": LogButton.id_for(tid)}]}])
    ix = await bot.click(EVE, planted, LogButton.id_for(tid), forge=True)
    assert any("not started" in t or "has not" in t for t in bot.said(ix)), bot.said(ix)


async def test_the_log_tells_the_moves_that_stand_after_take_backs(service: GameService) -> None:
    game = taking_back(2)
    undos = [i for i, (_, move) in enumerate(game.moves) if move == "undo"]
    upto = undos[len(undos) // 2] + 2  # a move taken back, then one played, mid-match
    tid = await finished_match(service.store, game, upto=upto)
    config = game.final.config
    replay = Replay(config, Game(game.states[:upto + 1], game.moves[:upto]).standing)
    assert replay.final == game.states[upto]
    first = replay.turn_starts()[-2]
    for user, seat in ((ANN, 0), (BOB, 1), (EVE, None)):
        told = await service.story.last_turns(tid, user.id)
        assert told.whole  # the log replays: the whole story is told, not the last move's
        said = [e for step in range(first, replay.last + 1) for e in replay.events(step, seat)]
        assert told.events[0].text.key == "event.turn"
        assert told.events == tuple(said[said.index(told.events[0]):])
        assert all(e.to in (None, seat) for e in told.events)  # nobody else's private ones


@pytest.mark.parametrize("damage", ["action = 'no-such-move'", "step = 'seven'"])
async def test_a_damaged_row_of_the_log_tells_the_last_move_only(
        service: GameService, tmp_path: Path, damage: str) -> None:
    """A row of a running match's action log damaged in the database (an action in no
    notation, a column holding what it cannot): the Log tells what the table itself holds
    (the last move's events) and the hand's "while you were away" tells nothing, as for a log
    that no longer replays; neither fails."""
    game = taking_back(2)
    tid = await finished_match(service.store, game, upto=len(game.moves) // 2)
    with closing(sqlite3.connect(tmp_path / "karak.sqlite3")) as con, con:
        con.execute(f"UPDATE actions SET {damage} WHERE table_id = ?", (tid,))
    told = await service.story.last_turns(tid, ANN.id)
    assert not told.whole
    record = await service.tables.load(tid)
    assert await since_last_move(service.store, record, 0) == ()
