"""The bot's background work: every task started here is kept, its failure logged (never
raised), and all of it can be awaited or cancelled at shutdown."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

log = logging.getLogger("karak.bot")


class Tasks:
    """Background tasks of one bot."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()
        self.endless: set[asyncio.Task[Any]] = set()  # loops that never finish by themselves

    def spawn(self, coro: Coroutine[Any, Any, Any], name: str,
              endless: bool = False) -> asyncio.Task[Any]:
        """Run ``coro`` in the background, logging (never raising) its failure."""
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self._tasks.add(task)
        if endless:
            self.endless.add(task)
        task.add_done_callback(self._finished)
        return task

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        self.endless.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("background task %s failed", task.get_name(), exc_info=task.exception())

    async def idle(self) -> None:
        """Wait until no background work is left but the endless loops (tests; shutdown)."""
        while True:
            pending = [t for t in self._tasks if not t.done() and t not in self.endless]
            if not pending:
                return
            await asyncio.gather(*pending, return_exceptions=True)

    async def close(self, grace: float = 0.0) -> None:
        """Give the running work ``grace`` seconds to finish, then cancel what is left."""
        for task in list(self.endless):
            task.cancel()
        if grace > 0:
            try:
                await asyncio.wait_for(self.idle(), grace)
            except TimeoutError:
                log.warning("stopping with background work unfinished")
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)


__all__ = ["Tasks"]
