"""Drawing pictures away from the bot's event loop, the urgent ones first.

Pillow holds Python's global lock for much of its work, so pictures drawn in threads of the bot's
process slow down everything else it does (answering interactions within Discord's 3 seconds
above all). :class:`DrawingPool` draws in worker processes instead (:mod:`bot.workers.pool`),
and serves pictures a person is waiting for (their hand after a click, a new turn's table)
before the background refresh of a table message, which is coalesced anyway, without starving
it. A picture whose worker died is drawn in a thread of the bot instead, so no picture is lost.
With ``KARAK_DRAWING_WORKERS=0`` one thread of the bot's process draws every picture, in the same
order: it saves the workers' memory, but that thread competes with the event loop.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from bot.workers.pool import WorkerGone, WorkerPool
from engine import Observation

log = logging.getLogger("karak.bot")
URGENT, BACKGROUND = 0, 1
#: A background picture waits behind urgent ones for at most about this many seconds.
BACKGROUND_SLACK = 8.0
#: Pictures handed to a worker process at once: it starts the next while the bot's event loop
#: takes in the last, and an urgent picture asked for meanwhile waits behind one at most.
IN_FLIGHT = 2

#: A picture to draw: its kind (``table``, ``battle`` or ``hand``), observation, language and
#: the seats the AI plays now in place of the person who left them (which a table picture
#: marks as the AI's: see :data:`render.Handed`).
Picture = tuple[str, Observation, str, tuple[int, ...]]


def draw(kind: str, obs: Observation, locale: str, handed: tuple[int, ...] = ()) -> bytes:
    """Draw one picture (``table``, ``battle`` or ``hand``)."""
    from render import battle_image, hand_image, table_image

    if kind == "table":
        return table_image(obs, locale, handed)
    painters = {"battle": battle_image, "hand": hand_image}
    return painters[kind](obs, locale)


def pack(picture: Picture) -> bytes:
    """A picture as a worker reads it: its kind, language, the seats handed to the AI (``-``
    for none, else their numbers joined by commas) and packed observation."""
    kind, obs, locale, handed = picture
    seats = ",".join(map(str, handed)) or "-"
    return f"{kind} {locale} {seats} ".encode() + obs.packed()


def draw_packed(job: bytes) -> bytes:
    """A worker's job (see :func:`pack`): the PNG of the picture."""
    from engine.observe import unpacked

    kind, locale, seats, obs = job.split(b" ", 3)
    handed = () if seats == b"-" else tuple(int(s) for s in seats.split(b","))
    return draw(kind.decode(), unpacked(obs), locale.decode(), handed)


def draw_here(picture: Picture) -> bytes:
    """Draw a picture in this process (the thread of a pool without workers)."""
    return draw(*picture)


class DrawingPool:
    """Pictures drawn by ``workers`` worker processes (0: by one thread of the bot), the
    urgent ones first."""

    def __init__(self, workers: int, clock: Any = None) -> None:
        self.workers = workers
        self.pool: WorkerPool[Picture] = WorkerPool(
            "bot.workers.drawing:draw_packed", pack, draw_here, workers, IN_FLIGHT,
            thread_name="drawing", clock=clock)
        self.in_threads = 0  # pictures drawn in threads because their worker died

    async def draw(self, kind: str, obs: Observation, locale: str,
                   priority: int = URGENT, handed: tuple[int, ...] = ()) -> bytes:
        """The picture, drawn as soon as a worker is free for its priority: urgent pictures
        now, background ones a little later, so they give way but are never starved
        (``handed``: see :data:`Picture`)."""
        delay = BACKGROUND_SLACK if priority == BACKGROUND else 0.0
        try:
            return await self.pool.run((kind, obs, locale, handed), delay)
        except WorkerGone:
            self.in_threads += 1
            return await asyncio.to_thread(draw, kind, obs, locale, handed)

    async def close(self) -> None:
        """Stop the workers."""
        await self.pool.close()

    def stats(self) -> dict[str, Any]:
        """Queue length and how the pictures were drawn (for logs and benchmarks)."""
        return {"workers": self.workers, "waiting": self.pool.waiting(),
                "started": self.pool.started, "in_threads": self.in_threads}
