"""Which picture each message carries: kept pictures are sent back, a message edited in another
language belongs to that language only, the oldest messages are forgotten first, and a table
message another process may have edited gets its pictures drawn again."""
from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace
from typing import cast

import discord
from live_bot import LiveBot
from players import ANN, BOB, Players, open_table

from bot.discord_side.messages import Payload
from bot.discord_side.shown import Shown
from bot.storage.records import LogRow, TableRecord
from engine import apply, legal_actions


def message(mid: int, *names: str) -> discord.Message:
    """What :meth:`Shown.remember` reads of a message: its id and attachments."""
    files = [SimpleNamespace(filename=n, id=mid * 10 + i) for i, n in enumerate(names)]
    return cast(discord.Message, SimpleNamespace(id=mid, attachments=files))


def test_a_picture_is_kept_only_for_its_message_and_key() -> None:
    shown = Shown()
    shown.remember((1, None, "en"), message(5, "table.png"), {"table.png": "k1"})
    kept = shown.kept((1, None, "en"), 5, "table.png", "k1")
    assert kept is not None and kept.id == 50
    assert shown.kept((1, None, "en"), 5, "table.png", "k2") is None  # it changed
    assert shown.kept((1, None, "en"), 6, "table.png", "k1") is None  # another message
    assert shown.kept((1, None, "en"), None, "table.png", "k1") is None  # a new message
    assert shown.kept((1, 0, "en"), 5, "table.png", "k1") is None  # another slot


def test_a_message_edited_in_another_language_is_that_language_only() -> None:
    shown = Shown()
    shown.remember((1, None, "en"), message(5, "table.png"), {"table.png": "k1"})
    shown.remember((1, None, "fr"), message(5, "table.png"), {"table.png": "k1"})
    assert shown.kept((1, None, "en"), 5, "table.png", "k1") is None
    assert shown.kept((1, None, "fr"), 5, "table.png", "k1") is not None
    assert len(shown) == 1
    shown.remember((1, None, "en"), message(5, "table.png"), {"table.png": "k1"})
    assert shown.kept((1, None, "fr"), 5, "table.png", "k1") is None
    assert len(shown) == 1


def test_the_oldest_messages_are_forgotten_first() -> None:
    shown = Shown(size=2)
    for table in (1, 2, 3):
        shown.remember((table, None, "en"), message(table, "hand.png"), {"hand.png": "k"})
    assert len(shown) == 2
    assert shown.kept((1, None, "en"), 1, "hand.png", "k") is None
    assert shown.kept((3, None, "en"), 3, "hand.png", "k") is not None
    # a slot that moved on to a new message no longer owns the old one
    shown.remember((3, None, "en"), message(4, "hand.png"), {"hand.png": "k"})
    shown.remember((2, None, "fr"), message(3, "hand.png"), {"hand.png": "k"})
    assert shown.kept((3, None, "en"), 4, "hand.png", "k") is not None
    shown.forget(3)
    shown.drop((2, None, "fr"))
    assert len(shown) == 0


def test_a_picture_missing_from_the_message_is_drawn_again() -> None:
    shown = Shown()
    shown.remember((1, 0, "en"), message(7, "hand.png"), {"hand.png": "h", "battle.png": "b"})
    assert shown.kept((1, 0, "en"), 7, "battle.png", "b") is None
    assert shown.kept((1, 0, "en"), 7, "hand.png", "h") is not None


async def test_a_table_message_another_process_may_have_edited_gets_its_picture_drawn(
        bot: LiveBot) -> None:
    """When the bot runs as several processes, another one may edit a table message after a
    move it wrote there, with attachments of its own: the picture the table message showed is
    sent back by id only while every move since was written by this process, else drawn."""
    tid = await open_table(bot, ANN, [BOB], ai=1)
    players = Players(bot, tid, [ANN, BOB])
    messages, play = bot.bot.messages, bot.bot.service.play
    for _ in range(4):
        assert await players.step()
    await bot.settle()
    rec = await bot.bot.service.tables.load(tid)
    assert rec.message_id is not None
    shown_at = messages.shown.version((tid, None, rec.locale))
    assert shown_at == rec.version, "the table message shows the table's last move"

    def kept(payload: Payload) -> bool:
        return any(isinstance(f, discord.Attachment) for f in payload.files)

    # the same picture again at the version shown: sent back by id
    assert kept(await messages.table_payload(rec, urgent=False, message=rec.message_id))
    # another process writes a move (and may edit the message, with attachments of its own);
    # even a picture that move left as it was is drawn again
    await move_elsewhere(bot, rec)
    later = replace(await bot.bot.service.tables.load(tid), state=rec.state)
    assert later.version == rec.version + 1 and not play.wrote_all(tid, rec.version,
                                                                    later.version)
    assert not kept(await messages.table_payload(later, urgent=False, message=rec.message_id))


async def move_elsewhere(bot: LiveBot, rec: TableRecord) -> None:
    """A move at ``rec`` written as another process would: straight into the store."""
    action = legal_actions(rec.game)[0]
    new, _ = apply(rec.game, action, seat=rec.game.current)
    await bot.store.apply(rec.id, rec.version, new, LogRow(
        step=new.step, seat=rec.game.current, user_id=None, by_ai=True, action=str(action),
        at=0.0))


async def test_the_versions_written_here_follow_one_another(bot: LiveBot) -> None:
    """The bot knows which versions of a table followed one another through its own moves; a
    move written elsewhere (here straight into the store) starts them again."""
    tid = await open_table(bot, ANN, [BOB], ai=1)
    players = Players(bot, tid, [ANN, BOB])
    play = bot.bot.service.play
    start = (await bot.bot.service.tables.load(tid)).version
    for _ in range(4):
        assert await players.step()
    await bot.settle()
    rec = await bot.bot.service.tables.load(tid)
    assert rec.version > start
    assert play.wrote_all(tid, start, rec.version)
    assert play.wrote_all(tid, rec.version, rec.version)
    assert not play.wrote_all(tid, start - 1, rec.version)
    assert not play.wrote_all(tid, start, rec.version + 1)
    await move_elsewhere(bot, rec)  # another process moves the table on
    assert not play.wrote_all(tid, rec.version, rec.version + 1)
    moved = await bot.bot.service.tables.load(tid)
    mover = moved.seats[moved.game.current]
    assert mover.user is not None and not mover.ai
    await players.open_hand(ANN if mover.user == ANN.id else BOB)  # a hand of the new version
    assert await players.step()  # this process moves again, after the other one
    after = await bot.bot.service.tables.load(tid)
    assert play.wrote_all(tid, rec.version + 1, after.version)
    assert not play.wrote_all(tid, rec.version, after.version)
