"""The "Log" button of the table message: the whole narration of the current and the previous
turn, privately, rebuilt from the action log; a seat sees its own private events, nobody
sees another seat's."""

from __future__ import annotations

from live_bot import LiveBot
from players import ANN, BOB, EVE, Players, open_table

from bot.discord_side.ui.custom_ids import LogButton
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


async def test_a_log_of_a_table_not_started_is_refused(bot: LiveBot) -> None:
    await bot.command(ANN, "new")
    lobby = bot.public()[-1]
    from live_bot import table_id
    tid = table_id(lobby)
    planted = bot.lb.plant_message(bot.channel, [{"type": 1, "components": [
        {"type": 2, "style": 2, "label": "Log", "custom_id": LogButton.id_for(tid)}]}])
    ix = await bot.click(EVE, planted, LogButton.id_for(tid), forge=True)
    assert any("not started" in t or "has not" in t for t in bot.said(ix)), bot.said(ix)
