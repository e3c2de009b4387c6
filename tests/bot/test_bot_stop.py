"""Stopping the bot (SIGTERM, ``docker stop``) while an AI seat's move is being written: that
write finishes and is shown, and from the moment the stop began no AI move, no timed-out turn
and no resumption starts. The AI's write is held at a fixed point (inside the store's write)
while the stop begins; nothing depends on timing."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from bot_helpers import Clock
from live_bot import LiveBot, record_requests, resolve, table_id
from players import ANN, BOB, TinyRenderer

from bot.discord_side import client as client_module
from bot.discord_side.ui.custom_ids import LobbyButton
from engine import GameConfig, SeatConfig, new_game
from loopback import Loopback


def ai_first_seed() -> int:
    """A seed whose two-seat game starts with the second seat (the AI's)."""
    return next(s for s in range(1, 1000) if new_game(GameConfig(
        seats=(SeatConfig("horan"), SeatConfig("taia")), seed=s)).current == 1)


class HeldWrite:
    """Holds the next write of an AI seat's move inside the store until :attr:`release`."""

    def __init__(self, h: LiveBot, monkeypatch: pytest.MonkeyPatch) -> None:
        self.armed = False
        self.writing, self.release = asyncio.Event(), asyncio.Event()
        real = h.store.apply

        async def apply(*args: Any, **kwargs: Any) -> None:
            if self.armed and args[3].by_ai:  # the log row
                self.armed = False
                self.writing.set()
                await self.release.wait()
            await real(*args, **kwargs)

        monkeypatch.setattr(h.store, "apply", apply)


async def test_a_stop_lets_the_ai_move_being_written_finish_and_starts_nothing_more(
        lb: Loopback, tmp_path: Path, clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(client_module, "SHUTDOWN_GRACE", 600.0)  # never what ends the write
    seed = ai_first_seed()
    h = await LiveBot.start(lb, tmp_path / "k.db", TinyRenderer(), clock=clock,
                            seeds=lambda: seed)
    svc, background = h.bot.service, h.bot.scheduler
    held = HeldWrite(h, monkeypatch)
    try:
        # a match of Ann and Bob with a turn timer, in a channel of its own
        timed = lb.create_channel(h.guild, "timed")
        rec = await svc.lobby.create(guild_id=h.guild.id, channel_id=timed.id, host_id=ANN.id,
                                     host_name="Ann", timer=60)
        await svc.lobby.join(rec.id, BOB.id, "Bob")
        await svc.lobby.start(rec.id, ANN.id)
        # Ann's match against an AI seat that plays first: its first move is held in the store
        await h.command(ANN, "new")
        lobby = h.public()[-1]
        tid = table_id(lobby)
        await h.click(ANN, lobby, LobbyButton.id_for(tid, "ai", None))
        held.armed = True
        start_id = resolve(h.message(lobby), LobbyButton.id_for(tid, "start", None))
        start = await lb.click(ANN, h.message(lobby), start_id)
        await start.answered(20)
        await held.writing.wait()

        closing = asyncio.create_task(h.bot.close())  # SIGTERM
        while not h.bot.tasks.stopping:
            await asyncio.sleep(0)
        # meanwhile: another process changes the timed match, its time runs out, a resumption
        background.wake(rec.id)
        clock.now += 61
        await background.check_timers()
        await background.resume()
        assert (await svc.tables.load(rec.id)).version == 0  # no timed-out turn was played

        calls = record_requests(lb)
        held.release.set()  # the AI's move being written finishes
        await closing
        ai = await svc.tables.load(tid)
        assert ai.version == 1 and ai.seats[ai.game.current].ai  # its turn went on: no 2nd move
        assert [r.by_ai for r in await h.store.action_log(tid)] == [True]
        assert (await svc.tables.load(rec.id)).version == 0
        shown = [c for c in calls if c.path.startswith(f"/channels/{h.channel.id}/messages")]
        assert shown and all(c.status < 300 for c in shown)  # before the connection closed
    finally:
        held.release.set()
        await h.stop()
