"""The SQLite file deleted or replaced under a running bot (an ``rm``, or a backup moved over
it by hand): SQLite would go on writing into the file the bot opened, which no path names any
more, and every move from then on would be lost at the next start. The bot finds it within
seconds, stops with one line saying so, and keeps what it had open beside the path, to be put
back with ``python -m bot.admin restore``."""
from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

from e2e.botlog import bot_errors
from e2e.lobby import open_table
from e2e.oracle import Oracle

from loopback import Loopback
from loopback.botproc import BotProcess


async def stopped_on_its_own(bot: BotProcess) -> tuple[int, str]:
    """The bot's exit status once it stopped by itself, and the last line it printed (the
    caller stops it whatever happens)."""
    status = await asyncio.wait_for(bot.wait(), 60)
    return status, bot.log_text().strip().splitlines()[-1]


async def test_a_database_file_deleted_or_replaced_stops_the_bot_and_keeps_what_it_had(
        lb: Loopback, tmp_path: Path) -> None:
    db = tmp_path / "karak.sqlite3"
    guild = lb.create_guild("Karak Club", locale="en-US")
    ann, bob = lb.create_user("Ann"), lb.create_user("Bob")

    bot = BotProcess(lb, db)
    try:
        await bot.start()
        first = await open_table(lb, lb.create_channel(guild, "hall"), ann, [bob])
        for suffix in ("", "-wal", "-shm"):  # rm karak.sqlite3*
            Path(f"{db}{suffix}").unlink(missing_ok=True)
        status, said = await stopped_on_its_own(bot)
    finally:
        await bot.stop()
    rescued = tmp_path / "karak.sqlite3.rescued"
    assert status == 2, bot.log_tail()
    assert f"{db} was deleted or replaced" in said and str(rescued) in said, said
    assert Oracle(rescued).table(first).id == first
    assert not db.exists() and not bot_errors(bot)

    # a backup moved over the database by hand while the bot runs: the bot's file is kept too
    bot = BotProcess(lb, db)
    try:
        await bot.start()
        second = await open_table(lb, lb.create_channel(guild, "cellar"), ann, [bob])
        by_hand = tmp_path / "by-hand.sqlite3"
        shutil.copyfile(rescued, by_hand)
        os.replace(by_hand, db)
        status, said = await stopped_on_its_own(bot)
    finally:
        await bot.stop()
    again = tmp_path / "karak.sqlite3.rescued-2"
    assert status == 2 and str(again) in said, said
    assert Oracle(again).table(second).id == second
    assert Oracle(db).table(first).id == first and not bot_errors(bot)
