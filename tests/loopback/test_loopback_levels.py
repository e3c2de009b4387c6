"""AI levels with the real bot process against the stand-in: the host sets each AI seat's level
in the lobby (a stranger is told no), the table says each AI seat's level, and a match against a
hard seat (thinking in the bot's worker process) and an easy one goes on while the person's clicks
are answered; the bot and its workers stop cleanly."""
from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from e2e.botlog import bot_errors
from e2e.lobby import until
from e2e.messages import hand_button, lobby_button, lobby_table
from e2e.oracle import Oracle
from e2e.player import Player

from bot.discord_side.ui.custom_ids import HandButton, LevelPick, parse
from engine import observe
from engine.replay import replay
from loopback import Loopback, Message
from loopback.botproc import BotProcess


@pytest.fixture
async def bot(lb: Loopback, tmp_path: Path) -> AsyncIterator[BotProcess]:
    proc = BotProcess(lb, tmp_path / "karak.sqlite3", extra_env={"KARAK_AI_THINK": "0.1"})
    await proc.start()
    yield proc
    await proc.stop()


def level_menu(message: Message, seat: int) -> str:
    """The custom_id of the level menu of seat ``seat`` (from 0) in a lobby message."""
    targets = [(c, parse(c)) for c in message.custom_ids()]
    return next(c for c, t in targets if isinstance(t, LevelPick) and t.seat == seat)


async def test_a_table_with_hard_and_easy_seats(lb: Loopback, bot: BotProcess) -> None:
    guild = lb.create_guild("Karak Club", locale="en-US")
    channel = lb.create_channel(guild, "goblin-hall")
    ann, eve = lb.create_user("Ann", "en-US"), lb.create_user("Eve", "en-US")
    oracle = Oracle(bot.db)
    ix = await lb.command(ann, channel, "goblin new", ai_level="hard")
    await ix.done()
    lobby = lb.message(ix.original_id or 0)
    tid = lobby_table(lobby)
    for _ in range(2):
        ix = await lb.click(ann, lb.message(lobby.id), lobby_button(lb.message(lobby.id), tid,
                                                                    "ai"))
        await ix.done()
    lobby = lb.message(lobby.id)
    assert "2. AI (hard)" in lobby.text() and "3. AI (hard)" in lobby.text()
    ix = await lb.select(eve, lobby, level_menu(lobby, 2), ["easy"])  # a stranger
    await until(lb, lambda: bool(ix.followups))  # after the lobby is drawn again
    told = [lb.message(m) for m in ix.followups]
    assert [m.text() for m in told] == ["Only the host can choose the level of an AI seat."]
    assert all(m.visible_to(eve.id) and not m.visible_to(ann.id) for m in told)
    ix = await lb.select(ann, lobby, level_menu(lobby, 2), ["easy"])
    await ix.done()
    lobby = lb.message(lobby.id)
    assert "3. AI (easy)" in lobby.text()
    assert [s.level for s in oracle.table(tid).seats] == ["normal", "hard", "easy"]
    ix = await lb.click(ann, lobby, lobby_button(lobby, tid, "start"))
    await ix.done()
    await until(lb, lambda: any(hand_button(m) == HandButton.id_for(tid)
                                for m in lb.messages_for(channel, ann)))
    names = [s.name for s in observe(oracle.table(tid).game, 0).seats]
    table = next(m for m in lb.messages_for(channel, ann) if hand_button(m))
    assert f"AI: {names[1]} (hard), {names[2]} (easy)" in table.text()

    player = Player(lb, ann, channel, oracle, random.Random(3))
    idle = 0
    while oracle.table(tid).status == "running" and not (
            len(player.acknowledged) >= 3 and {r.seat for r in oracle.log(tid) if r.by_ai}
            == {1, 2}):  # Ann's clicks answered while both AI seats took turns
        assert idle < 300, "the table stopped moving"  # about 90 s without a move to make
        sent = await player.send_move()
        if sent is not None:
            await player.finish_move(*sent)
            idle = 0
        elif not await player.open_hand():
            idle += 1
            await lb.changed(lb.version, 0.3)
            if idle % 3 == 0:
                await player.open_hand(force=True)
    rec, log = oracle.table_and_log(tid)  # the AI seats may still be playing
    assert replay(rec.game.config, [r.action for r in log]) == rec.game
    assert lb.breaches == [] and bot_errors(bot) == []
