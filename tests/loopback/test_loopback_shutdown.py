"""Stopping the real bot: SIGTERM (``docker stop``) and Ctrl-C (SIGINT) end it with status 0,
no traceback, the database checkpointed and no drawing worker left behind."""
from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import pytest
from e2e import open_table

from loopback import Loopback
from loopback.botproc import BotProcess


async def ended(pid: int, guard: float = 30) -> None:
    """Wait until process ``pid`` has ended (told by a pidfd, no polling)."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    loop = asyncio.get_running_loop()
    done: asyncio.Future[None] = loop.create_future()
    loop.add_reader(fd, lambda: done.done() or done.set_result(None))
    try:
        await asyncio.wait_for(done, guard)
    except TimeoutError:
        raise AssertionError(f"process {pid} was left behind: "
                             f"{Path(f'/proc/{pid}/cmdline').read_text()!r}") from None
    finally:
        loop.remove_reader(fd)
        os.close(fd)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
async def test_the_bot_stops_cleanly(lb: Loopback, tmp_path: Path, sig: signal.Signals) -> None:
    db = tmp_path / "karak.sqlite3"
    bot = BotProcess(lb, db)
    await bot.start()
    try:
        guild = lb.create_guild("Karak Club", locale="en-US")
        channel = lb.create_channel(guild, "goblin-hall")
        ann = lb.create_user("Ann")
        await open_table(lb, channel, ann, [], ai=1)  # pictures drawn: the workers run
        pids = bot.pids()
        assert len(pids) > 1, "drawing workers were started"
        assert bot.proc is not None
        bot.proc.send_signal(sig)
        status = await asyncio.wait_for(bot.proc.wait(), 30)  # a guard, not a measurement
    finally:
        await bot.stop()
    assert status == 0, bot.log_tail()
    assert "Traceback" not in bot.log_text(), bot.log_tail()
    for pid in pids:  # the workers and multiprocessing's resource tracker end with the bot
        await ended(pid)
    wal = db.with_name(db.name + "-wal")
    assert not wal.exists() or wal.stat().st_size == 0, "the write-ahead log was checkpointed"
