"""The real bot process SIGKILLed right after the winning click of a rated match: once started
again, the match's result and rating changes are stored exactly once, the changes are posted,
and they equal a rebuild from the stored results."""
from __future__ import annotations

import asyncio
import sqlite3
from contextlib import closing
from dataclasses import replace
from pathlib import Path

from e2e.lobby import until
from storage.helpers import played, started

from bot.discord_side.ui.custom_ids import HandButton, Move, MoveButton, MoveMenu, parse
from bot.game.standings import rate_result
from bot.storage.records import SeatInfo
from bot.storage.sqlite import Store
from loopback import Loopback, Message, User
from loopback.botproc import BotProcess


def status(db: Path, table: int) -> str:
    """The table's status as the database holds it now (read beside the bot)."""
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)) as con:
        row = con.execute("SELECT status FROM tables WHERE id = ?", (table,)).fetchone()
    return str(row[0])


async def click_move(lb: Loopback, user: User, table: Message, tid: int, notation: str) -> None:
    """``user`` opens their hand from the table message and clicks ``notation`` there."""
    ix = await lb.click(user, table, HandButton.id_for(tid))
    await ix.answered(30)
    await until(lb, lambda: any(c.startswith((MoveButton.prefix, MoveMenu.prefix))
                                for c in lb.message(ix.original_id or 0).custom_ids()))
    hand = lb.message(ix.original_id or 0)
    for c in hand.items():
        cid = str(c.get("custom_id", ""))
        target = parse(cid)
        if c.get("type") == 2 and isinstance(target, Move) and target.notation == notation:
            await lb.click(user, hand, cid)
            return
        values = [o["value"] for o in c.get("options") or []]
        if c.get("type") == 3 and cid.startswith(MoveMenu.prefix) and notation in values:
            await lb.select(user, hand, cid, [notation])
            return
    raise AssertionError(f"{notation} is not offered")


async def test_a_kill_after_the_winning_click_counts_the_match_once(
        lb: Loopback, tmp_path: Path) -> None:
    eve, finn = lb.create_user("Eve"), lb.create_user("Finn")
    guild = lb.create_guild("Karak Club")
    hall = lb.create_channel(guild, "goblin-hall")
    db = tmp_path / "karak.sqlite3"
    game = played(5, ("horan", "taia"))
    seats = (SeatInfo(user=eve.id, name="Eve", hero="horan"),
             SeatInfo(user=finn.id, name="Finn", hero="taia"))
    store = await Store.open(db)
    tid = (await started(store, game.states[0], channel=hall.id, seats=seats,
                         guild=guild.id)).id
    for index in range(len(game.moves) - 1):  # both made their moves: a rated match
        row = replace(game.log_row(index), user_id=seats[game.moves[index][0]].user, by_ai=False)
        await store.apply(tid, index, game.states[index + 1], row)
    await store.close()
    seat, notation = game.moves[-1]

    def table_message() -> Message | None:
        found = [m for m in lb.messages_for(hall, eve) if m.owner is None
                 and HandButton.id_for(tid) in m.custom_ids()]
        return found[-1] if found else None

    def posted() -> list[str]:
        return [m.text() for m in lb.messages_for(hall, eve)
                if m.owner is None and "Ratings" in m.text()]

    bot = BotProcess(lb, db)
    try:
        await bot.start()
        await until(lb, lambda: table_message() is not None, timeout=60)
        table = table_message()
        assert table is not None
        await click_move(lb, [eve, finn][seat], table, tid, notation)
        for _ in range(3000):  # the move's transaction commits: the bot dies at once
            if status(db, tid) == "finished":
                break
            await asyncio.sleep(0.005)
        bot.kill()
        await bot.wait()
        assert status(db, tid) == "finished"
        await bot.start()
        await until(lb, lambda: bool(posted()), timeout=60)
    finally:
        await bot.stop()
    assert len(posted()) == 1 and "Eve 1,500? → " in posted()[0]

    store = await Store.open(db)
    try:
        live = await store.ratings(guild.id)
        assert sorted(r.user_id for r in live) == sorted([eve.id, finn.id])
        assert all(r.games == 1 for r in live)
        assert len(await store.changes_of_table(tid)) == 2
        assert await store.recompute_ratings(rate_result) == 1
        assert await store.ratings(guild.id) == live
    finally:
        await store.close()
    assert lb.breaches == [], "\n".join(map(str, lb.breaches))
