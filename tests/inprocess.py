"""The real bot (:class:`bot.discord_side.client.KarakBot`, the real discord.py client) running in
the test's own event loop against the stand-in (rather than as a process, see
:mod:`loopback.botproc`), on a real SQLite file, with time the test moves by hand: the bot's clock
and its background pauses (AI pace, turn-timer polls, retry backoff) come from a :class:`FakeTime`,
so a test makes minutes pass at once and never really waits."""
from __future__ import annotations

import asyncio
import contextlib
import heapq
import io
import itertools
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path

from discordpy_client import discordpy_client
from PIL import Image

from bot.discord_side.client import KarakBot
from bot.discord_side.pace import ChannelPace
from bot.game.limits import MATCH_LIMIT
from bot.game.service import GameService
from bot.process.compose import compose
from bot.storage.sqlite import Store
from engine import Observation
from loopback import Loopback


def _tiny_png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (4, 4), (40, 90, 40)).save(out, "PNG")
    return out.getvalue()


PNG = _tiny_png()
#: Writes per channel the in-process bot makes before a table edit would wait: never reached.
UNPACED = 1_000_000


class TinyRenderer:
    """Stands in for Pillow where a test plays whole matches (pictures are tested apart)."""

    def table(self, obs: Observation, locale: str, handed: tuple[int, ...] = ()) -> bytes:
        return picture("table", obs, locale)

    def battle(self, obs: Observation, locale: str) -> bytes:
        return picture("battle", obs, locale)

    def hand(self, obs: Observation, locale: str) -> bytes:
        return picture("hand", obs, locale)


def picture(kind: str, obs: Observation, locale: str) -> bytes:
    """A tiny PNG-headed picture that differs as the real ones do: by kind, step, viewer and
    language (the privacy watch tells hand pictures apart by their content)."""
    return PNG + f"{kind}:{obs.step}:{obs.viewer}:{locale}".encode()


class FakeTime:
    """A clock and a ``sleep`` the test moves: a sleeper wakes when :meth:`advance` passes its
    wake-up time (a pause of 0 or less only yields to the event loop)."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self.now = start
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        wake: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (self.now + seconds, next(self._order), wake))
        await wake

    def next_wake(self) -> float:
        """When the next sleeper wakes (now when none sleeps)."""
        live = [when for when, _, f in self._sleepers if not f.done()]
        return min(live, default=self.now)

    def sleeping(self) -> int:
        """How many sleepers wait (cancelled ones aside)."""
        return sum(1 for _, _, f in self._sleepers if not f.done())

    async def advance(self, seconds: float) -> None:
        """Move time ``seconds`` forward, waking each sleeper due on the way in order (each
        gets to run before time moves on)."""
        end = self.now + seconds
        while self._sleepers and self._sleepers[0][0] <= end:
            when, _, wake = heapq.heappop(self._sleepers)
            self.now = max(self.now, when)
            if not wake.done():
                wake.set_result(None)
                for _ in range(5):
                    await asyncio.sleep(0)
        self.now = end


@dataclass
class InProcessBot:
    bot: KarakBot
    store: Store
    time: FakeTime
    heartbeat: Path


async def quiet(ib: InProcessBot) -> None:
    """Wait until every running background task of the bot waits on the test's time."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 60
    while ib.time.sleeping() < sum(1 for t in ib.bot.tasks._tasks if not t.done()):
        if loop.time() > deadline:
            raise AssertionError("the bot's background work never came to rest")
        await asyncio.sleep(0.005)


@dataclass
class Gate:
    """A point where the bot waits until the test opens the gate (``passed`` tells the test
    that the bot reached it): a race test holds one request of the bot there and so plays the
    race the same way every time."""

    passed: asyncio.Event = field(default_factory=asyncio.Event)
    opened: asyncio.Event = field(default_factory=asyncio.Event)

    async def __call__(self) -> None:
        self.passed.set()
        await self.opened.wait()

    def open(self) -> None:
        self.opened.set()


@contextlib.asynccontextmanager
async def inprocess_bot(lb: Loopback, db: Path, *, time: FakeTime | None = None,
                        ai_pace: float = 1.0, timer_poll: float = 5.0,
                        seeds: Callable[[], int] | None = None,
                        threads: bool = False,
                        match_limit: int = MATCH_LIMIT) -> AsyncIterator[InProcessBot]:
    """The bot connected to ``lb`` (READY received, commands synced, tables resumed); stopped,
    its database closed and discord.py's URLs restored on leaving (``threads``: each match in
    a thread of its own, the bot's own default; off here, so a table message is in the
    channel; ``match_limit``: the matches one person may play at once, 0: no limit)."""
    time = time or FakeTime()
    store = await Store.open(db, clock=time.clock)
    numbers = itertools.count(7)
    service = GameService(store, clock=time.clock, seeds=seeds or (lambda: next(numbers)),
                          default_threads=threads, match_limit=match_limit)
    heartbeat = db.with_name(db.name + ".alive")
    # table edits never wait for the channel here (the races make many writes in one instant
    # of the test's time); the pace itself is tested with tests/pace_clock.py
    unpaced = ChannelPace(limit=UNPACED, global_limit=UNPACED, clock=time.clock,
                          sleep=time.sleep)
    bot = compose(service, TinyRenderer(), ai_pace=ai_pace, pace=unpaced, timer_poll=timer_poll,
                   heartbeat=heartbeat, sleep=time.sleep)
    try:
        async with discordpy_client(lb, bot):
            yield InProcessBot(bot, store, time, heartbeat)
    finally:
        await store.close()


@contextlib.asynccontextmanager
async def live_bot(lb: Loopback, db: Path,
                   match_limit: int = MATCH_LIMIT) -> AsyncIterator[KarakBot]:
    """:func:`inprocess_bot` with no AI pace and no turn-timer polls: the bot alone, for tests
    that drive every step themselves (``match_limit`` as there)."""
    async with inprocess_bot(lb, db, ai_pace=0, timer_poll=3600,
                             match_limit=match_limit) as running:
        yield running.bot
