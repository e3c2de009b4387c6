"""The pictures of the bot's messages, drawn off the event loop.

:class:`PillowRenderer` draws with the ``render`` package (in worker processes, urgent pictures
first, see :mod:`bot.workers.drawing`). :class:`Pictures` asks it for PNG bytes and shares the
battle picture of one table version between the table message and every hand message showing it.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from dataclasses import dataclass
from typing import Protocol

from bot.supervision.metrics import UNCOUNTED
from bot.workers.drawing import BACKGROUND, URGENT, DrawingPool
from engine import Observation

log = logging.getLogger("karak.bot")
#: Battle pictures kept, the latest version of each table and language: shared by the hand
#: and table messages of every table in play (a few tens of kilobytes each).
BATTLE_PICTURES = 1024


class Renderer(Protocol):
    """Turns observations into PNG bytes (the real one is :class:`PillowRenderer`)."""

    def table(self, obs: Observation, locale: str, handed: tuple[int, ...] = ()) -> bytes:
        """The public table (``handed``: the seats the AI plays now in place of the person who
        left them, marked as the AI's)."""
        ...

    def battle(self, obs: Observation, locale: str) -> bytes:
        """The battle in progress."""
        ...

    def hand(self, obs: Observation, locale: str) -> bytes:
        """The viewer's hand."""
        ...


class PillowRenderer:
    """The project's renderer (``render`` package).

    With ``workers`` > 0 the pictures are drawn in that many worker processes, with 0 in one
    thread of the bot's process; urgent ones first either way (:mod:`bot.workers.drawing`).
    """

    def __init__(self, workers: int = 0) -> None:
        self.pool = DrawingPool(workers)

    async def draw(self, kind: str, obs: Observation, locale: str, urgent: bool = True,
                   handed: tuple[int, ...] = ()) -> bytes:
        """Draw ``kind`` (table, battle, hand) off the event loop (``handed``: see
        :meth:`table`)."""
        return await self.pool.draw(kind, obs, locale, URGENT if urgent else BACKGROUND,
                                    handed)

    async def close(self) -> None:
        """Stop the worker processes."""
        await self.pool.close()

    def table(self, obs: Observation, locale: str, handed: tuple[int, ...] = ()) -> bytes:
        """The public table (``handed``: the seats the AI plays now in place of the person who
        left them, marked as the AI's)."""
        from render import table_image

        return table_image(obs, locale, handed)

    def battle(self, obs: Observation, locale: str) -> bytes:
        """The battle in progress."""
        from render import battle_image

        return battle_image(obs, locale)

    def hand(self, obs: Observation, locale: str) -> bytes:
        """The viewer's hand."""
        from render import hand_image

        return hand_image(obs, locale)


@dataclass
class _Battle:
    """The battle picture of one table version, drawn or being drawn."""

    version: int
    urgent: bool
    drawing: asyncio.Future[bytes | None]


class Pictures:
    """PNG pictures for the messages; a failed drawing is logged and gives None."""

    def __init__(self, renderer: Renderer) -> None:
        self.renderer = renderer
        self.metrics = UNCOUNTED  # the bot's, once it is built: times every drawing
        self._battles: OrderedDict[tuple[int, str], _Battle] = OrderedDict()

    async def png(self, kind: str, obs: Observation, locale: str, urgent: bool = True,
                  handed: tuple[int, ...] = ()) -> bytes | None:
        """A picture drawn off the event loop (``urgent``: someone is waiting for it;
        ``handed``: the seats a table picture marks as the AI's in place of the person who
        left them)."""
        drawer = getattr(self.renderer, "draw", None)
        try:
            with self.metrics.drawing(kind):
                if drawer is not None:
                    data = await drawer(kind, obs, locale, urgent, handed)
                elif kind == "table":
                    data = await asyncio.to_thread(self.renderer.table, obs, locale, handed)
                else:
                    data = await asyncio.to_thread(getattr(self.renderer, kind), obs, locale)
        except Exception:
            log.exception("could not draw the %s image", kind)
            return None
        return data if isinstance(data, bytes) else None

    async def battle(self, key: tuple[int, int, str], obs: Observation,
                     urgent: bool = True) -> bytes | None:
        """The battle picture of table ``key[0]`` at version ``key[1]`` in language ``key[2]``:
        the same for every viewer, so the hand messages and the table message of that version
        share one drawing (and a drawing in progress is awaited rather than repeated)."""
        table, version, locale = key
        found = self._battles.get((table, locale))
        if found is not None and version < found.version:
            return await self.png("battle", obs, locale, urgent)  # a late request: not kept
        if (found is None or found.version != version
                or (urgent and not found.urgent and not found.drawing.done())):
            # someone waits for it: an urgent drawing, not the queued background one
            found = _Battle(version, urgent,
                            asyncio.ensure_future(self.png("battle", obs, locale, urgent)))
            self._battles[(table, locale)] = found
            self._battles.move_to_end((table, locale))
            while len(self._battles) > BATTLE_PICTURES:
                self._battles.popitem(last=False)
        png = await asyncio.shield(found.drawing)
        if png is None and self._battles.get((table, locale)) is found:
            del self._battles[(table, locale)]  # a failed drawing is tried again next time
        return png

    async def close(self) -> None:
        """Stop the renderer's workers, if it has any."""
        closer = getattr(self.renderer, "close", None)
        if closer is not None:
            await closer()


__all__ = ["PillowRenderer", "Pictures", "Renderer"]
