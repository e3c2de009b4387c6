"""A threaded match whose start another process holds (its lease, its first table message not
posted yet): a person's /goblin leave handled here leaves its table message to that process,
never posting it in the channel without the match's thread; once that process stopped, the
one taking the table up begins it in its thread."""
from __future__ import annotations

from bot_helpers import Clock
from live_bot import LiveBot
from players import ANN, BOB
from storage.helpers import played

from bot.game.places import Place
from bot.storage.records import SeatInfo
from loopback import Loopback


async def test_a_leave_handled_by_a_process_not_holding_a_pending_start_posts_no_table(
        h: LiveBot, lb: Loopback, clock: Clock) -> None:
    seats = (SeatInfo(user=ANN.id, name="Ann", hero="horan"),
             SeatInfo(user=BOB.id, name="Bob", hero="taia"),
             SeatInfo(ai=True, hero="argentus", level="easy"))
    rec = await h.store.create_table(guild_id=h.guild.id,
                                     place_key=Place.of(h.guild.id, ANN.id).key,
                                     channel_id=h.channel.id, host_id=ANN.id, seats=seats,
                                     abilities=False, timer=0, seed=1, threaded=True)
    assert await h.store.claim(rec.id, "other", 3600)  # the process that began it
    await h.store.start_game(rec.id, seats, played(1).states[0], None)
    await h.command(ANN, "leave")
    await h.settle()
    assert h.public() == [], [m.text() for m in h.public()]  # nothing in the channel
    # that process stops: this one takes the table up, and its start opens the thread
    await h.store.expire("other")
    await h.bot.scheduler._kept(await h.bot.scheduler.leases.keep())
    await h.settle()
    record = await h.bot.service.tables.load(rec.id)
    assert record.thread_id is not None and record.message_id is not None
    thread = lb.channel(record.thread_id)
    shown = [m for m in lb.state.messages.values()
             if not m.deleted and f"kg:hand:{rec.id}" in m.custom_ids()]
    assert [m.channel_id for m in shown] == [thread.id]
