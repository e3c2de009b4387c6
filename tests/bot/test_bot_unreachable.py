"""The bot while its database is out of reach, on the stand-in: a click or a command that needs
the database gets a private answer saying so (in the clicker's language) and the log a warning
without a traceback; the tournament suggestions are none; nothing is lost: a move that was not
written is not shown as played, and once the database is back the same click plays it.

PostgreSQL: the store reaches the shared test server through a relay of the test's own, cut and
restored (``database_away.Relay``). SQLite: the file's descriptors fail under the open
connection (``database_away.cut_file``)."""
from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from bot_helpers import Clock
from database_away import Relay, cut_file
from live_bot import LiveBot, offered, resolve
from players import ANN, BOB, TinyRenderer, my_turn_hand, open_table
from postgres_server import Server

from bot.discord_side.ui.custom_ids import HandButton, parse
from bot.storage import postgres
from bot.workers.thinking import Thinking
from i18n import msg, translate
from loopback import Loopback, Message

AWAY = translate(msg("bot.error.unreachable"), "en-US")


def move_target(hand: Message, move: str) -> object:
    """The button or menu of ``hand`` that plays ``move``, as the log names it."""
    return parse(offered(hand)[move][0])


def warned(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The warnings logged so far that the database is out of reach, each checked to come
    without a traceback: what they are about (the start of their line)."""
    found = [r for r in caplog.records if r.levelno == logging.WARNING
             and "not answered: the database is out of reach" in r.getMessage()]
    assert all(r.exc_info is None for r in found), "a warning with a traceback"
    return [r.getMessage().split(" not answered")[0] for r in found]


@pytest.mark.allow_errors("leases failed (Unreachable")  # a lease pass falling in the cut
async def test_a_postgresql_server_out_of_reach_gets_a_private_answer_and_loses_no_move(
        lb: Loopback, relay: Relay, postgres_server: Server, clock: Clock,
        caplog: pytest.LogCaptureFixture) -> None:
    store = await postgres.Store.open(relay.url(await postgres_server.new_database()),
                                      clock=clock)
    h = await LiveBot.start(lb, store, TinyRenderer(), clock=clock,
                            thinking=Thinking(workers=0))
    try:
        tid = await open_table(h, ANN, [BOB])
        user, hand, rec = await my_turn_hand(h, tid, [ANN, BOB])
        move = next(iter(offered(hand)))
        table_message = h.last_table_message()
        shown, buttons = table_message.text(), hand.custom_ids()

        await relay.cut()  # the server goes away
        played = await h.play(user, hand, move)
        opened = await h.click(user, h.message(table_message), HandButton.id_for(tid))
        history = await h.command(ANN, "history")
        assert h.said(played) == [AWAY]
        assert h.said(opened) == [AWAY]
        assert AWAY in h.said(history)
        assert await h.autocomplete(ANN, "history", "tournament", "") == []
        assert warned(caplog) == [f"click on {move_target(hand, move)}",
                                  f"click on OpenHand(table={tid})", "command history"]
        # nothing shown as played: the table message and the hand stand as they were
        assert h.message(table_message).text() == shown
        assert h.message(hand).custom_ids() == buttons

        await relay.restore()  # it is back: the pool connects again
        assert (await h.store.get(tid)).version == rec.version  # type: ignore[union-attr]
        again = await h.play(user, h.message(hand), move)
        assert AWAY not in h.said(again)
        assert (await h.store.get(tid)).version > rec.version  # type: ignore[union-attr]
        assert h.last_table_message().text() != shown
        assert AWAY not in h.said(await h.command(ANN, "history"))
    finally:
        await h.stop()


@pytest.mark.allow_errors("leases failed (Unreachable")  # a lease pass falling in the silence
async def test_a_postgresql_server_gone_silent_gets_a_private_answer_in_seconds(
        lb: Loopback, relay: Relay, postgres_server: Server, clock: Clock,
        caplog: pytest.LogCaptureFixture) -> None:
    """The way to the server goes silent, as in a failover or a network cut that resets
    nothing (the connections stay open, no answer comes): a move clicked then is answered
    within the store's wait, not held (with its table) until the operating system gives the
    connection up, many minutes later, past the 15 minutes Discord lets the bot answer; once
    the way is back, the same click plays it."""
    wait = 2.0
    store = await postgres.Store.open(relay.url(await postgres_server.new_database()),
                                      clock=clock, wait=wait)
    h = await LiveBot.start(lb, store, TinyRenderer(), clock=clock,
                            thinking=Thinking(workers=0))
    try:
        tid = await open_table(h, ANN, [BOB])
        user, hand, rec = await my_turn_hand(h, tid, [ANN, BOB])
        move = next(iter(offered(hand)))
        shown = h.last_table_message().text()

        relay.silence()
        begun = time.monotonic()
        cid, value = offered(hand)[move]
        played = await (h.lb.click(user, hand, resolve(hand, cid)) if value is None
                        else h.lb.select(user, hand, resolve(hand, cid), [value]))
        while AWAY not in h.said(played) and time.monotonic() - begun < 10 * wait:
            await asyncio.sleep(0.1)
        assert AWAY in h.said(played)
        assert time.monotonic() - begun < 3 * wait
        assert warned(caplog) == [f"click on {move_target(hand, move)}"]
        assert h.last_table_message().text() == shown

        await relay.restore()
        await h.settle()
        assert (await h.store.get(tid)).version == rec.version  # type: ignore[union-attr]
        again = await h.play(user, h.message(hand), move)
        assert AWAY not in h.said(again)
        assert (await h.store.get(tid)).version > rec.version  # type: ignore[union-attr]
    finally:
        await relay.restore()
        await h.stop()


async def test_an_sqlite_file_out_of_reach_gets_a_private_answer_and_loses_no_move(
        lb: Loopback, tmp_path: Path, clock: Clock, caplog: pytest.LogCaptureFixture) -> None:
    """The bot restarted (what it reads comes from the file, not SQLite's cache), then the
    file goes out of reach: past matches cannot be read, and from then on neither can the
    table a move or a hand needs."""
    db = tmp_path / "k.db"
    h = await LiveBot.start(lb, db, TinyRenderer(), clock=clock, thinking=Thinking(workers=0))
    tid = await open_table(h, ANN, [BOB])
    await h.stop()
    h = await LiveBot.start(lb, db, TinyRenderer(), clock=clock, thinking=Thinking(workers=0))
    try:
        user, hand, rec = await my_turn_hand(h, tid, [ANN, BOB])
        move = next(iter(offered(hand)))
        table_message = h.last_table_message()
        shown, buttons = table_message.text(), hand.custom_ids()

        with cut_file(db):  # the disk the file is on goes away
            history = await h.command(ANN, "history")
            played = await h.play(user, hand, move)
            opened = await h.click(user, h.message(table_message), HandButton.id_for(tid))
        assert AWAY in h.said(history)
        assert h.said(played) == [AWAY]
        assert h.said(opened) == [AWAY]
        assert warned(caplog) == ["command history", f"click on {move_target(hand, move)}",
                                  f"click on OpenHand(table={tid})"]
        assert h.message(table_message).text() == shown
        assert h.message(hand).custom_ids() == buttons

        assert (await h.store.get(tid)).version == rec.version  # type: ignore[union-attr]
        again = await h.play(user, h.message(hand), move)  # the file is back
        assert AWAY not in h.said(again)
        assert (await h.store.get(tid)).version > rec.version  # type: ignore[union-attr]
        assert h.last_table_message().text() != shown
    finally:
        await h.stop()


async def test_an_sqlite_file_another_program_holds_locked_gets_a_private_answer(
        lb: Loopback, tmp_path: Path, clock: Clock, caplog: pytest.LogCaptureFixture) -> None:
    """Another program (a backup script, an open ``sqlite3`` shell) holds the file locked for
    writing past SQLite's wait: a move cannot be written, and its player is told the database
    cannot be reached right now, in a warning's line (no apology for an internal error, no
    traceback); nothing is shown as played, and once the lock is let go the same click plays
    it."""
    db = tmp_path / "k.db"
    h = await LiveBot.start(lb, db, TinyRenderer(), clock=clock, thinking=Thinking(workers=0))
    try:
        tid = await open_table(h, ANN, [BOB])
        user, hand, rec = await my_turn_hand(h, tid, [ANN, BOB])
        move = next(iter(offered(hand)))
        table_message = h.last_table_message()
        shown, buttons = table_message.text(), hand.custom_ids()
        store: Any = h.store
        await store._connection.db.execute("PRAGMA busy_timeout=50")  # SQLite's wait, shorter

        with closing(sqlite3.connect(db, timeout=0, isolation_level=None)) as other:
            other.execute("BEGIN IMMEDIATE")  # the other program's write under way
            played = await h.play(user, hand, move)
            other.execute("ROLLBACK")
        assert h.said(played) == [AWAY]
        assert warned(caplog) == [f"click on {move_target(hand, move)}"]
        assert h.message(table_message).text() == shown
        assert h.message(hand).custom_ids() == buttons

        assert (await h.store.get(tid)).version == rec.version  # type: ignore[union-attr]
        again = await h.play(user, h.message(hand), move)  # the lock let go
        assert AWAY not in h.said(again)
        assert (await h.store.get(tid)).version > rec.version  # type: ignore[union-attr]
        assert h.last_table_message().text() != shown
    finally:
        await h.stop()
