"""Stop the bot, then restore a backup (the steps of docs/upgrades-and-backups.md, run one right
after the other, as ``docker compose stop karak`` then ``docker compose run ... restore``): a
bot that stopped cleanly gave its tables' leases up, so the restore does not take it for a bot
still running on the database."""
from __future__ import annotations

import signal
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from e2e.lobby import open_table, until

from bot.process.admin import main as admin
from loopback import Loopback
from loopback.botproc import BotProcess


def holder(db: Path, tid: int) -> str | None:
    """Who holds table ``tid``'s lease in the database file ``db``."""
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as look:  # closed at once
        row = look.execute("SELECT owner FROM leases WHERE table_id = ?", (tid,)).fetchone()
    return None if row is None else str(row[0])


async def test_a_restore_right_after_the_bot_stopped_is_not_refused(
        lb: Loopback, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KARAK_DB", raising=False)
    db, copy, env = tmp_path / "karak.sqlite3", tmp_path / "backup.sqlite3", tmp_path / "bot.env"
    env.write_text(f"KARAK_DB={db}\n", encoding="utf-8")
    guild = lb.create_guild("Karak Club", locale="en-US")
    ann, bob = lb.create_user("Ann"), lb.create_user("Bob")
    bot = BotProcess(lb, db)
    await bot.start()
    try:
        tid = await open_table(lb, lb.create_channel(guild, "hall"), ann, [bob], ai=1)
        await until(lb, lambda: holder(db, tid) == "main")  # the running bot holds the table
        assert admin(["--env-file", str(env), "backup", "--to", str(copy)]) == 0
        assert bot.proc is not None
        bot.proc.send_signal(signal.SIGTERM)  # docker stop
        assert await bot.wait() == 0, bot.log_tail()
    finally:
        await bot.stop()
    capsys.readouterr()
    assert admin(["--env-file", str(env), "restore", "--from", str(copy)]) == 0, \
        capsys.readouterr().err
    assert f"Restored {copy} into {db}" in capsys.readouterr().out
