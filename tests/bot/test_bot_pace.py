"""The pace of the bot's requests: a table edit waits for its channel's limit and for the bot's
global limit, takes its turn first come, first served, and coalesces meanwhile; what a person
waits for (a post) never waits behind an edit's turn; a table another process took drops
what it had queued, and a table whose channel was deleted all of it. On a clock moved by
hand."""
from __future__ import annotations

import asyncio
from collections.abc import Callable
from types import SimpleNamespace

import aiohttp
import discord
import pytest
from inprocess import FakeTime

from bot.discord_side.feed import RETRIES, Feeds, Job, Kind, retry_pause
from bot.discord_side.pace import (
    GLOBAL_LIMIT,
    GLOBAL_RESERVE,
    ChannelPace,
    process_pace,
    process_part,
)
from bot.supervision.tasks import Tasks


async def settle() -> None:
    """Let every task run until it waits for the clock."""
    for _ in range(20):
        await asyncio.sleep(0)


def a_feed(time: FakeTime) -> tuple[ChannelPace, Feeds, list[str],
                                    Callable[[Kind, int, str], Job]]:
    """Feeds on a bot's pace of 2 requests a second (one of them kept for posts), what their
    jobs sent, and a maker of jobs in channel 7 (its edits wait for that channel's pace)."""
    pace = ChannelPace(global_limit=2, global_reserve=1, clock=time.clock, sleep=time.sleep)
    sent: list[str] = []

    def job(kind: Kind, version: int, what: str) -> Job:
        async def work() -> None:
            await pace.request(7)
            sent.append(what)
        return Job(kind, version, work, 7 if kind == "edit" else None)
    return pace, Feeds(Tasks(time.sleep, time.clock), pace, time.clock), sent, job


async def test_edits_go_while_the_bot_has_room_and_leave_the_rest_to_posts() -> None:
    time = FakeTime(100.0)
    pace = ChannelPace(global_limit=5, global_reserve=1, clock=time.clock, sleep=time.sleep)
    assert [pace.claim(c) for c in (1, 2, 3, 4)] == [True] * 4
    assert not pace.claim(5)  # four edits in the last second: the rest is for posts
    assert pace.global_wait() == pytest.approx(1.0)
    await time.advance(0.5)
    await pace.request(9)  # a post goes at once, and counts
    await time.advance(0.5)  # the four edits left the last second, the post did not
    assert pace.claim(5)
    await pace.request(5)  # the claimed edit's own request is not counted again
    assert pace.claim(6) and pace.claim(7)
    assert not pace.claim(8)


async def test_an_edit_waits_for_its_channel() -> None:
    time = FakeTime(100.0)
    pace = ChannelPace(limit=5, period=5.0, reserve=1, clock=time.clock, sleep=time.sleep)
    for _ in range(4):
        await pace.request(4)
    assert pace.wait(4) == pytest.approx(5.0) and not pace.claim(4)  # one left for a post
    assert pace.claim(6)  # another channel
    await time.advance(5.0)
    assert pace.claim(4)


async def test_a_post_waits_only_once_the_whole_global_limit_is_used() -> None:
    time = FakeTime(100.0)
    pace = ChannelPace(global_limit=5, global_reserve=1, clock=time.clock, sleep=time.sleep)
    assert all([pace.claim(c) for c in (1, 2, 3, 4)])
    await pace.request(9)  # the reserve: at once
    post = asyncio.ensure_future(pace.request(9))
    await settle()
    assert not post.done()  # five requests within the second: all Discord allows
    await time.advance(1.0)
    await settle()
    assert post.done()


async def test_edits_waiting_for_the_bot_take_their_turns_first_come_first_served() -> None:
    time = FakeTime(100.0)
    pace = ChannelPace(global_limit=3, global_reserve=1, clock=time.clock, sleep=time.sleep)
    assert pace.claim(1) and pace.claim(2)  # two edits a second
    went: list[int] = []

    async def edit(channel: int) -> None:
        await pace.ready(channel)
        went.append(channel)

    waiting = [asyncio.ensure_future(edit(c)) for c in (10, 11, 12, 13)]
    await settle()
    assert went == []
    waiting[1].cancel()  # gives up its turn: the next one takes it
    # the room frees at once a second later: the edits waiting go half a second apart
    for seconds, now in ((1.0, [10]), (0.5, [10, 12]), (0.5, [10, 12, 13])):
        assert not pace.claim(5)  # a new edit queues behind the ones waiting
        await time.advance(seconds)
        await settle()
        assert went == now
    assert pace.queued() == 0
    await asyncio.gather(*waiting, return_exceptions=True)


async def test_a_post_goes_at_once_though_the_edit_before_it_waits_for_its_turn() -> None:
    time = FakeTime(100.0)
    pace, feeds, sent, job = a_feed(time)

    feeds.put(1, job("edit", 1, "edit 1"))
    await settle()
    assert sent == ["edit 1"]  # room: at once
    feeds.put(1, job("edit", 2, "edit 2"))
    feeds.put(1, job("edit", 3, "edit 3"))
    await settle()
    assert sent == ["edit 1"] and feeds.queued(1) == 1  # waits for the bot's room, coalesced
    feeds.put(1, job("post", 4, "post 4"))  # a new turn: it shows a newer state than the edit
    await settle()
    assert sent == ["edit 1", "post 4"]  # without waiting for the edit's turn
    assert not feeds.busy(1) and pace.queued() == 0
    # the edit gave its turn back: another table's edit gets it as soon as there is room
    feeds.put(2, job("edit", 1, "other table"))
    await settle()
    assert sent == ["edit 1", "post 4"]
    await time.advance(1.0)
    await settle()
    assert sent == ["edit 1", "post 4", "other table"]


async def test_a_table_another_process_took_drops_its_queued_posts_and_edits() -> None:
    time = FakeTime(100.0)
    pace, feeds, sent, job = a_feed(time)

    feeds.put(1, job("edit", 1, "edit 1"))
    await settle()
    feeds.put(1, job("edit", 2, "edit 2"))  # waits for the bot's room
    await settle()
    assert sent == ["edit 1"] and feeds.queued(1) == 1
    feeds.drop(1)  # another process took the table: it shows version 2 and what follows
    feeds.drop(2)  # a table with nothing queued: nothing to drop
    await settle()
    assert not feeds.busy(1) and pace.queued() == 0
    await time.advance(5.0)
    await settle()
    assert sent == ["edit 1"] and feeds.showing(1) == 2
    # taken back later: it goes on as before, its lines and end kept through a drop
    feeds.put(1, job("edit", 5, "edit 5"))
    feeds.put(1, job("other", 5, "a line"))
    feeds.put(1, job("post", 6, "post 6"))
    feeds.put(1, job("last", 7, "the end"))
    feeds.drop(1)
    await time.advance(5.0)
    await settle()
    assert sent == ["edit 1", "a line", "the end"] and not feeds.busy(1)


async def test_a_table_whose_channel_was_deleted_drops_everything_queued() -> None:
    time = FakeTime(100.0)
    pace, feeds, sent, job = a_feed(time)

    feeds.put(1, job("edit", 1, "edit 1"))
    await settle()
    feeds.put(1, job("edit", 2, "edit 2"))  # waits for the bot's room
    told: list[str] = []
    waited = job("other", 2, "a lobby redraw")
    waited.dropped = lambda: told.append("dropped")  # someone waits for it
    feeds.put(1, waited)
    feeds.put(1, job("last", 3, "the end"))
    feeds.end(1)
    feeds.end(2)  # a table with nothing queued
    await time.advance(5.0)
    await settle()
    assert sent == ["edit 1"] and told == ["dropped"]
    assert not feeds.busy(1) and feeds.ended(1) and feeds.ended(2) and pace.queued() == 0
    feeds.put(1, job("post", 4, "post 4"))  # nothing more is taken
    await settle()
    assert sent == ["edit 1"]


async def test_a_failed_edit_is_tried_again_after_a_growing_pause_a_bounded_number_of_times(
        ) -> None:
    """The connection fails on every try: the edit is tried again 15 s later, then after a
    pause doubling up to 4 minutes, 8 times in all; a post failing so is not tried again."""
    time = FakeTime(100.0)
    pace, feeds, sent, job = a_feed(time)
    tried: list[float] = []

    async def cut_off() -> None:
        await pace.request(7)
        tried.append(time.now)
        raise aiohttp.ServerDisconnectedError()

    feeds.put(1, Job("edit", 1, cut_off, 7))
    await settle()
    for pause in [retry_pause(n) for n in range(RETRIES)]:
        assert feeds.retrying(1)
        await time.advance(pause - 1)
        await feeds.retry_due()
        await settle()
        before = len(tried)
        await time.advance(1)
        await feeds.retry_due()
        await settle()
        assert len(tried) == before + 1
    assert [b - a for a, b in zip(tried, tried[1:], strict=False)] == [
        15, 30, 60, 120, 240, 240, 240, 240]
    assert not feeds.retrying(1)  # given up: the next move shows the table
    await time.advance(3600)
    await feeds.retry_due()
    await settle()
    assert len(tried) == 1 + RETRIES and not feeds.busy(1)

    async def refused() -> None:  # a post Discord may have made although it answered 503
        raise discord.DiscordServerError(SimpleNamespace(status=503, reason="Unavailable"),
                                         {"code": 0, "message": ""})

    feeds.put(2, Job("post", 1, refused))
    await settle()
    assert not feeds.retrying(2) and not feeds.busy(2)
    # not tried again once another process took the table, or its channel was deleted
    for table, gone in ((3, feeds.drop), (4, feeds.end)):
        feeds.put(table, Job("edit", 1, cut_off, 7))
        await time.advance(5.0)
        await settle()
        assert feeds.retrying(table)
        gone(table)
        assert not feeds.retrying(table)
    # nor when the table was let go (what was kept forgotten) while the edit was under way
    going = asyncio.Event()

    async def slow_cut_off() -> None:
        await going.wait()
        raise aiohttp.ServerDisconnectedError()

    feeds.put(5, Job("edit", 1, slow_cut_off))
    await settle()
    feeds.drop(5)
    feeds.forget(5)
    going.set()
    await settle()
    assert not feeds.retrying(5) and not feeds.busy(5)


def test_a_process_of_some_shards_keeps_to_its_part_of_the_global_limit() -> None:
    assert process_part() == process_part(4, 4) == GLOBAL_LIMIT
    assert process_part(1, 2) == 25
    assert process_part(1, 100) == 2
    assert process_part(1, 4, rate_limit=1000) == 250  # Discord raised the bot's limit
    whole = process_pace()
    assert (whole.global_limit, whole.global_reserve) == (GLOBAL_LIMIT, GLOBAL_RESERVE)
    half = process_pace(25)
    assert (half.global_limit, half.global_reserve) == (25, 5)
    tiny = process_pace(2)
    assert 0 < tiny.global_reserve < tiny.global_limit
