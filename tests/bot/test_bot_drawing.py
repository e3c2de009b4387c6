"""Drawing off the event loop: worker processes, urgent pictures first, no starvation."""
from __future__ import annotations

import asyncio
import time
from concurrent.futures import Executor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import pytest

from bot import drawing
from bot.drawing import BACKGROUND, URGENT, DrawingPool
from engine import GameConfig, SeatConfig, new_game, observe


def _obs() -> Any:
    state = new_game(GameConfig(seats=(SeatConfig("horan"), SeatConfig("taia")), seed=3))
    return observe(state, 0)


async def test_pictures_come_from_worker_processes() -> None:
    pool = DrawingPool(1)
    try:
        hand, table = await asyncio.gather(pool.draw("hand", _obs(), "en"),
                                           pool.draw("table", _obs(), "fr", BACKGROUND))
        assert hand.startswith(b"\x89PNG") and table.startswith(b"\x89PNG")
        assert not pool.stats()["threads"]
    finally:
        await pool.close()


async def test_urgent_first_but_background_not_starved(monkeypatch: pytest.MonkeyPatch) -> None:
    order: list[str] = []

    def fake_draw(kind: str, obs: Any, locale: str) -> bytes:
        time.sleep(0.02)
        order.append(locale)
        return b"png"

    monkeypatch.setattr(drawing, "draw", fake_draw)
    monkeypatch.setattr(drawing, "BACKGROUND_SLACK", 0.15)
    pool = DrawingPool(1, executor=lambda: ThreadPoolExecutor(1))
    try:
        first = asyncio.ensure_future(pool.draw("table", None, "bg0", BACKGROUND))
        await asyncio.sleep(0.005)  # the first picture is being drawn: the rest waits
        jobs = [asyncio.ensure_future(pool.draw("table", None, "bg1", BACKGROUND))]
        await asyncio.sleep(0)
        jobs += [asyncio.ensure_future(pool.draw("hand", None, f"u{i}", URGENT))
                 for i in range(3)]
        await asyncio.gather(first, *jobs)
        # the waiting background picture gives way to urgent ones...
        assert order[:4] == ["bg0", "u0", "u1", "u2"] and order[4] == "bg1"
        # ...but only for a while: under a stream of urgent pictures it still gets its turn
        order.clear()
        late = asyncio.ensure_future(pool.draw("table", None, "late", BACKGROUND))
        stream = []
        for i in range(20):  # urgent pictures keep coming, one every 10 ms
            stream.append(asyncio.ensure_future(pool.draw("hand", None, f"s{i}", URGENT)))
            await asyncio.sleep(0.01)
        await asyncio.gather(late, *stream)
        assert order.index("late") < len(order) - 1
    finally:
        await pool.close()


async def test_a_broken_pool_falls_back_to_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    class Broken(ThreadPoolExecutor):
        def submit(self, *args: Any, **kwargs: Any) -> Any:
            raise BrokenProcessPool("gone")

    def make() -> Executor:
        return Broken(1)

    monkeypatch.setattr(drawing, "draw", lambda kind, obs, locale: b"drawn")
    pool = DrawingPool(1, executor=make)
    try:
        assert await pool.draw("hand", None, "en") == b"drawn"
        assert pool.stats()["threads"]
    finally:
        await pool.close()


async def test_no_workers_draws_in_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(drawing, "draw", lambda kind, obs, locale: kind.encode())
    pool = DrawingPool(0)
    assert await pool.draw("battle", None, "en") == b"battle"
    await pool.close()


async def test_a_battle_picture_is_drawn_once_per_version() -> None:
    from bot.pictures import Pictures

    calls: list[str] = []

    class Counting:
        def table(self, obs: Any, locale: str) -> bytes:
            return b"t"

        def hand(self, obs: Any, locale: str) -> bytes:
            return b"h"

        def battle(self, obs: Any, locale: str) -> bytes:
            calls.append(locale)
            time.sleep(0.01)
            return b"b" + locale.encode()

    pictures = Pictures(Counting())
    first = await asyncio.gather(*(pictures.battle((1, 7, "en"), _obs()) for _ in range(3)))
    again = await pictures.battle((1, 7, "en"), _obs())
    other = await pictures.battle((1, 8, "en"), _obs())
    french = await pictures.battle((1, 8, "fr"), _obs())
    assert first == [b"ben"] * 3 and again == b"ben" and other == b"ben" and french == b"bfr"
    assert calls == ["en", "en", "fr"]
