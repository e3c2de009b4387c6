"""Drawing off the event loop: worker processes, urgent pictures first, no starvation."""
from __future__ import annotations

import asyncio
import os
import threading
from typing import Any

import pytest
from bot_helpers import alive
from msgspec import structs

from bot.workers import drawing, pool
from bot.workers.drawing import BACKGROUND, URGENT, DrawingPool
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
        assert pool.stats()["in_threads"] == 0
        workers = pool.pool.pids()
        assert len(workers) == 1 and workers[0] != os.getpid()
    finally:
        await pool.close()
    assert not any(alive(pid) for pid in workers)  # closing the pool ended them



async def test_urgent_first_but_background_not_starved(monkeypatch: pytest.MonkeyPatch) -> None:
    """The queue's order on an injected clock: a worker held busy by one picture, the others
    joining the queue one by one (each checked to be in it before the clock moves), then
    released."""
    order: list[str] = []
    started, release = threading.Event(), threading.Event()

    def fake_draw(kind: str, obs: Any, locale: str, handed: tuple[int, ...] = ()) -> bytes:
        if locale.startswith("hold"):
            started.set()
            release.wait(30)
        order.append(locale)
        return b"png"

    now = [100.0]
    monkeypatch.setattr(drawing, "draw", fake_draw)
    pool = DrawingPool(0, clock=lambda: now[0])

    async def queued(count: int) -> None:
        """Let the event loop run until ``count`` pictures wait in the queue."""
        while pool.stats()["waiting"] < count:
            await asyncio.sleep(0)  # no time passes: the drawing tasks take their turn

    async def held(jobs: list[tuple[str, int]]) -> None:
        started.clear()
        release.clear()
        first = asyncio.ensure_future(pool.draw("table", None, "hold", URGENT))
        await asyncio.to_thread(started.wait, 30)  # the worker is busy: the rest waits
        waiting = []
        for locale, priority in jobs:
            waiting.append(asyncio.ensure_future(pool.draw("table", None, locale, priority)))
            await queued(len(waiting))  # it waits in the queue now, due by the clock's time
            if locale == "late":
                now[0] += drawing.BACKGROUND_SLACK + 1  # urgent pictures keep coming later
        release.set()
        await asyncio.gather(first, *waiting)

    try:
        # a waiting background picture gives way to urgent ones...
        await held([("bg", BACKGROUND), ("u0", URGENT), ("u1", URGENT), ("u2", URGENT)])
        assert order == ["hold", "u0", "u1", "u2", "bg"]
        # ...but only for a while: urgent pictures asked for after its slack come after it
        order.clear()
        await held([("late", BACKGROUND), ("s0", URGENT), ("s1", URGENT)])
        assert order == ["hold", "late", "s0", "s1"]
    finally:
        await pool.close()


async def test_a_dead_worker_costs_one_picture_drawn_in_a_thread_and_is_replaced() -> None:
    pool = DrawingPool(1)
    try:
        assert (await pool.draw("hand", _obs(), "en")).startswith(b"\x89PNG")
        [worker] = pool.pool.pids()
        os.kill(worker, 9)
        assert (await pool.draw("table", _obs(), "en")).startswith(b"\x89PNG")  # in a thread
        assert (await pool.draw("table", _obs(), "fr")).startswith(b"\x89PNG")  # a new worker
        assert pool.stats()["in_threads"] == 1 and pool.stats()["started"] == 2
        assert worker not in pool.pool.pids()
    finally:
        await pool.close()
    assert not pool.pool.pids()


async def test_a_picture_the_worker_cannot_draw_is_an_error_and_the_worker_goes_on() -> None:
    pool = DrawingPool(1)
    try:
        with pytest.raises(RuntimeError, match="KeyError"):
            await pool.draw("nonsense", _obs(), "en")
        with pytest.raises(TypeError):  # it cannot travel to the worker
            await pool.draw("hand", structs.replace(_obs(), hand=(object(),)), "en")
        assert (await pool.draw("hand", _obs(), "cs")).startswith(b"\x89PNG")
        assert pool.stats()["in_threads"] == 0 and pool.stats()["started"] == 1
    finally:
        await pool.close()


async def test_no_workers_draws_in_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(drawing, "draw", lambda kind, obs, locale, handed=(): kind.encode())
    pool = DrawingPool(0)
    assert await pool.draw("battle", None, "en") == b"battle"
    await pool.close()


async def test_a_battle_picture_is_drawn_once_per_version() -> None:
    from bot.workers.pictures import Pictures

    calls: list[str] = []

    class Counting:
        def table(self, obs: Any, locale: str, handed: tuple[int, ...] = ()) -> bytes:
            return b"t"

        def hand(self, obs: Any, locale: str) -> bytes:
            return b"h"

        def battle(self, obs: Any, locale: str) -> bytes:
            calls.append(locale)  # the three first requests share one drawing in progress
            return b"b" + locale.encode()

    pictures = Pictures(Counting())
    first = await asyncio.gather(*(pictures.battle((1, 7, "en"), _obs()) for _ in range(3)))
    again = await pictures.battle((1, 7, "en"), _obs())
    other = await pictures.battle((1, 8, "en"), _obs())
    french = await pictures.battle((1, 8, "fr"), _obs())
    assert first == [b"ben"] * 3 and again == b"ben" and other == b"ben" and french == b"bfr"
    assert calls == ["en", "en", "fr"]


async def test_a_person_never_waits_for_a_background_battle_picture() -> None:
    """The table refresh asked for a battle picture in the background; a hand message needing
    the same picture gets an urgent drawing of its own, kept for the next ones."""
    from bot.workers.pictures import Pictures

    held = asyncio.Event()
    asked: list[bool] = []

    class Queued:
        async def draw(self, kind: str, obs: Any, locale: str, urgent: bool,
                       handed: tuple[int, ...] = ()) -> bytes:
            asked.append(urgent)
            if not urgent:
                await held.wait()  # behind the urgent pictures of other tables
            return b"urgent" if urgent else b"background"

    pictures = Pictures(Queued())  # type: ignore[arg-type]
    background = asyncio.ensure_future(pictures.battle((1, 7, "en"), _obs(), urgent=False))
    await asyncio.sleep(0)
    assert await asyncio.wait_for(pictures.battle((1, 7, "en"), _obs()), 5) == b"urgent"
    assert await pictures.battle((1, 7, "en"), _obs(), urgent=False) == b"urgent"
    assert await pictures.battle((1, 6, "en"), _obs()) == b"urgent"  # late: drawn, not kept
    assert asked == [False, True, True]
    held.set()
    assert await background == b"background"


async def test_without_workers_one_thread_of_the_bot_draws(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """KARAK_DRAWING_WORKERS=0: every picture is drawn by the one drawing thread, in order."""
    from bot.workers.pictures import PillowRenderer

    seen: list[str] = []

    def fake_draw(kind: str, obs: Any, locale: str, handed: tuple[int, ...] = ()) -> bytes:
        seen.append(threading.current_thread().name)
        return kind.encode()

    monkeypatch.setattr(drawing, "draw", fake_draw)
    renderer = PillowRenderer(0)
    try:
        drawn = await asyncio.gather(*(renderer.draw(k, None, "en", urgent=k != "table")
                                       for k in ("table", "hand", "battle")))
    finally:
        await renderer.close()
    assert drawn == [b"table", b"hand", b"battle"]
    assert len(set(seen)) == 1 and seen[0].startswith("drawing")


class _FakeWorker:
    """A drawing worker that records what it is handed and answers when the test says so."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.answers: asyncio.Queue[bytes | RuntimeError] = asyncio.Queue()

    def send(self, job: bytes) -> None:
        self.sent.append(job.split(b" ")[1].decode())  # the picture's language

    async def flush(self) -> None:
        pass

    async def answer(self) -> bytes | RuntimeError:
        answer = await self.answers.get()
        if answer == b"":  # the test says the worker died
            raise pool.WorkerGone("killed")
        return answer

    async def stop(self, grace: float = 0.0) -> None:
        pass


async def _until(check: Any) -> None:
    """Let the event loop run (no time passes) until ``check()`` holds."""
    for _ in range(1000):
        if check():
            return
        await asyncio.sleep(0)
    raise AssertionError("never happened")


async def test_a_worker_has_the_next_picture_before_it_answers_the_last(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Two pictures are handed to a worker at once, the most urgent first; the others wait in
    the queue, and each answer goes to the one who asked for that picture."""
    fake = _FakeWorker()

    async def start(name: str) -> _FakeWorker:
        return fake

    monkeypatch.setattr(pool.Worker, "start", staticmethod(start))
    pictures = DrawingPool(1, clock=lambda: 0.0)
    try:
        asked = {name: asyncio.ensure_future(pictures.draw("hand", _obs(), name, priority))
                 for name, priority in [("a", URGENT), ("b", BACKGROUND), ("c", URGENT),
                                        ("d", URGENT)]}
        await _until(lambda: len(fake.sent) == 2)
        assert fake.sent == ["a", "c"] and pictures.stats()["waiting"] == 2
        fake.answers.put_nowait(b"A")
        await _until(lambda: len(fake.sent) == 3)
        assert await asked["a"] == b"A" and fake.sent == ["a", "c", "d"]
        assert not asked["c"].done()  # answered in order: c's answer has not come yet
        for answer in [RuntimeError("KeyError: 'x'"), b"D", b"B"]:
            fake.answers.put_nowait(answer)
        with pytest.raises(RuntimeError, match="KeyError"):
            await asked["c"]
        assert await asked["d"] == b"D" and await asked["b"] == b"B"
        assert fake.sent == ["a", "c", "d", "b"] and pictures.stats()["in_threads"] == 0
    finally:
        await pictures.close()


async def test_pictures_handed_to_a_worker_that_died_are_drawn_in_threads(
        monkeypatch: pytest.MonkeyPatch) -> None:
    fake = _FakeWorker()

    async def start(name: str) -> _FakeWorker:
        return fake

    monkeypatch.setattr(pool.Worker, "start", staticmethod(start))
    monkeypatch.setattr(drawing, "draw", lambda kind, obs, locale, handed=(): locale.encode())
    pictures = DrawingPool(1)
    try:
        asked = [asyncio.ensure_future(pictures.draw("hand", _obs(), name)) for name in "xy"]
        await _until(lambda: len(fake.sent) == 2)
        fake.answers.put_nowait(b"")  # the worker is gone before answering
        assert await asyncio.gather(*asked) == [b"x", b"y"]
        assert pictures.stats()["in_threads"] == 2
    finally:
        await pictures.close()


async def test_a_table_picture_s_job_carries_the_seats_handed_to_the_ai() -> None:
    """The seats the AI took over from a person reach the table picture however it is drawn:
    packed for a worker process, or in a thread of the bot's."""
    from bot.workers.pictures import Pictures, PillowRenderer
    from engine import Phase
    from render import table_image

    state = new_game(GameConfig(seats=(SeatConfig("horan", name="Ann"),
                                       SeatConfig("taia", name="Bob")), seed=3))
    over = structs.replace(observe(state, None), phase=Phase.OVER, winner=1)
    marked = table_image(over, "fr", (1,))
    assert marked != table_image(over, "fr")
    assert drawing.draw_packed(drawing.pack(("table", over, "fr", (1,)))) == marked
    assert drawing.draw_packed(drawing.pack(("table", over, "fr", ()))) == table_image(over, "fr")
    for workers in (0, 1):
        renderer = PillowRenderer(workers)
        try:
            assert await Pictures(renderer).png("table", over, "fr", handed=(1,)) == marked
        finally:
            await renderer.close()

    class Threaded:  # a renderer drawn in threads of the bot (no pool of its own)
        def table(self, obs: Any, locale: str, handed: tuple[int, ...] = ()) -> bytes:
            return table_image(obs, locale, handed)

    threaded = Pictures(Threaded())  # type: ignore[arg-type]
    assert await threaded.png("table", over, "fr", handed=(1,)) == marked
