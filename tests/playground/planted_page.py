"""A playground without a bot, holding messages a test plants, for the page's own tests."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Iterator

from playground.app import Playground


@contextlib.contextmanager
def planted(locale: str, plant: Callable[[Playground], None]) -> Iterator[str]:
    """A playground (no bot) in ``locale``, in a thread of its own, after ``plant`` put its
    messages in the channel; the page's address."""
    ready = threading.Event()
    stop: list[asyncio.Event] = []
    url: list[str] = []

    async def serve() -> None:
        async with Playground(port=0, locale=locale, validate=False) as pg:
            plant(pg)
            stop.append(asyncio.Event())
            url.append(pg.url)
            ready.set()
            await stop[0].wait()

    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_until_complete, args=(serve(),), daemon=True)
    thread.start()
    assert ready.wait(20), "the playground did not start"
    try:
        yield url[0]
    finally:
        loop.call_soon_threadsafe(stop[0].set)
        thread.join(20)
        loop.close()
