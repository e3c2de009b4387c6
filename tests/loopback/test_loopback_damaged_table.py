"""A damaged table stops only itself: its stored game is damaged (a stacking preference set to
a card id; a card moved from a hand into the keys), then clicks on it get a clear "damaged"
answer, the turn timers of the other table still fire, a restart goes well, and /goblin abandon
by the host or by a moderator (Manage Channels) frees the channel for /goblin new."""
from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from e2e.answers import reply
from e2e.lobby import until
from e2e.messages import hand_button, lobby_button, lobby_table, moves_of
from inprocess import FakeTime, InProcessBot, inprocess_bot, quiet
from storage.backends import SqliteBackend

from bot.discord_side.ui.custom_ids import HandButton, LobbyButton
from bot.storage.records import storable
from bot.storage.sqlite import Store
from engine import BadState, state_from_json
from loopback import Channel, Loopback, User

DAMAGED = "is damaged in the database"


async def open_timed_table(lb: Loopback, channel: Channel, host: User, guest: User) -> int:
    """A game of ``host`` and ``guest`` with a 60 s turn timer."""
    ix = await lb.command(host, channel, "goblin new", timer=60)
    await ix.done()
    lobby = lb.message(ix.original_id or 0)
    tid = lobby_table(lobby)
    for who, op in ((guest, "join"), (host, "start")):
        current = lb.message(lobby.id)
        await (await lb.click(who, current, lobby_button(current, tid, op))).done()
    await until(lb, lambda: any(hand_button(m) == HandButton.id_for(tid)
                                for m in lb.messages_for(channel, host)))
    return tid


async def damage(store: Store, db: Path, tid: int, how: Callable[[dict[str, Any]], None]) -> None:
    """Damage the stored game of table ``tid`` with ``how`` (on its seats' JSON)."""
    rec = await store.get(tid)
    assert rec is not None
    doc = json.loads(storable(rec.game))
    how(doc["state"]["seats"])
    text = json.dumps(doc)
    with pytest.raises(BadState):  # the engine's check refuses it
        state_from_json(text)
    await SqliteBackend(db).damage_table(store, tid, state=text)


def stacking_is_a_card(seats: list[dict[str, Any]]) -> None:
    seats[0]["stacking"] = seats[0]["hand"][0]


def hand_card_in_keys(seats: list[dict[str, Any]]) -> None:
    card = seats[1]["hand"][0]
    seats[1]["hand"] = seats[1]["hand"][1:]
    seats[1]["keys"] = [*seats[1]["keys"], card]


async def timers_fire(ib: InProcessBot, lb: Loopback, channel: Channel, user: User,
                      tid: int) -> None:
    """Make a turn's 60 s pass: the table's timer fires (the AI plays the turn)."""
    before = (await ib.store.get(tid)).version  # type: ignore[union-attr]
    for _ in range(20):
        await quiet(ib)
        await ib.time.advance(5)
    await quiet(ib)
    after = await ib.store.get(tid)
    assert after is not None and after.version > before
    assert any("Time is up for" in m.text() for m in lb.messages_for(channel, user)
               if m.owner is None)


async def test_a_damaged_table_stops_only_itself(lb: Loopback, tmp_path: Path) -> None:
    guild = lb.create_guild("Karak Club")
    eve, bo = lb.create_user("Eve"), lb.create_user("Bo")
    mod = lb.create_user("Mod", admin=True)
    hall, attic, cellar = (lb.create_channel(guild, n) for n in ("hall", "attic", "cellar"))
    db = tmp_path / "karak.sqlite3"
    time = FakeTime()
    async with inprocess_bot(lb, db, time=time) as ib:
        damaged = await open_timed_table(lb, hall, eve, bo)
        other_damaged = await open_timed_table(lb, attic, eve, bo)
        healthy = await open_timed_table(lb, cellar, eve, bo)
        # Eve opens her hand in the hall before the damage: its move buttons stay on screen
        table_message = [m for m in lb.messages_for(hall, eve) if hand_button(m)][-1]
        ix = await lb.click(eve, table_message, HandButton.id_for(damaged))
        await ix.done()
        hand = lb.message(ix.original_id or 0)
        await damage(ib.store, db, damaged, stacking_is_a_card)
        await damage(ib.store, db, other_damaged, hand_card_in_keys)

        # every click on the damaged table gets the clear answer
        for who in (eve, bo):
            ix = await lb.click(who, table_message, HandButton.id_for(damaged))
            await ix.done()
            assert DAMAGED in reply(lb, ix, who), reply(lb, ix, who)
        if moves_of(hand):
            cid, value = next(iter(moves_of(hand).values()))
            ix = (await lb.click(eve, hand, cid) if value is None
                  else await lb.select(eve, hand, cid, [value]))
            await ix.done()
            assert DAMAGED in reply(lb, ix, eve), reply(lb, ix, eve)
        for command in ("goblin status", "goblin hand"):
            ix = await lb.command(eve, hall, command)
            await ix.done()
            assert DAMAGED in reply(lb, ix, eve), reply(lb, ix, eve)

        # the turn timers go on at the other table
        await timers_fire(ib, lb, cellar, eve, healthy)
        assert not ib.bot.tasks.failures.streaks

    async with inprocess_bot(lb, db, time=time) as ib:  # a restart
        await timers_fire(ib, lb, cellar, eve, healthy)
        # a player who is neither host nor moderator may not close it
        ix = await lb.command(bo, hall, "goblin abandon")
        await ix.done()
        assert "Only the host or someone with Manage Channels" in reply(lb, ix, bo)
        # the host closes one damaged table, a moderator the other
        for who, channel, tid in ((eve, hall, damaged), (mod, attic, other_damaged)):
            ix = await lb.command(who, channel, "goblin abandon")
            await ix.done()
            assert f"#{tid}" in reply(lb, ix, who) and DAMAGED not in reply(lb, ix, who)
            assert tid in await ib.store.ids_with_status("abandoned")
            ix = await lb.command(eve, channel, "goblin new")
            await ix.done()
            lobby = lb.message(ix.original_id or 0)
            assert any(c.startswith(LobbyButton.prefix) for c in lobby.custom_ids()), lobby.text()
        assert not ib.bot.tasks.failures.streaks
