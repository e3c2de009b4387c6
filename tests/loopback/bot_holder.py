"""A process that starts the real bot on a stand-in of its own, prints the bot's process id and
waits for ever: what a test or a benchmark is to its bot, for the test that kills it outright
(``python bot_holder.py DB``)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from loopback import Loopback
from loopback.botproc import BotProcess


async def hold(db: Path) -> None:
    """Start the bot on ``db``, print its id, wait."""
    async with Loopback(validate=False) as lb:  # its requests are checked elsewhere
        bot = BotProcess(lb, db)
        await bot.start()
        print(bot.pid, flush=True)
        await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(hold(Path(sys.argv[1])))
