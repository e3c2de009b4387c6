"""Running a benchmark script: SIGTERM ends it the way Ctrl-C does.

A benchmark that starts bot processes, stand-ins or database servers stops them on its way
out. Python's default SIGTERM ends the script at once and skips that, so a benchmark stopped by
``kill`` or ``timeout`` used to leave its bot running. :func:`run` turns SIGTERM into the
cancellation of the script's main task, so its clean-up runs, then exits with status 143 (128 +
SIGTERM), as the shell reports a process ended by SIGTERM. A benchmark killed outright
(SIGKILL) runs no clean-up, but the bots it started end anyway: each is tied to the process
that started it (``loopback/tied.py``).
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")
#: The exit status of a benchmark ended by SIGTERM.
TERMINATED = 128 + signal.SIGTERM


def run(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)``; on SIGTERM ``main`` is cancelled, its clean-up runs, and the
    script exits with :data:`TERMINATED`."""
    async def until_terminated() -> T:
        task = asyncio.current_task()
        assert task is not None
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
        return await main

    try:
        return asyncio.run(until_terminated())
    except asyncio.CancelledError:
        raise SystemExit(TERMINATED) from None


__all__ = ["TERMINATED", "run"]
