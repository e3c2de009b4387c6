"""``python -m bot.admin ratings --recompute``: every rating rebuilt from the stored results,
equal to the live updates, on the database the bot's settings name."""
from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from storage.helpers import GUILD, SEATS, play_on, played, started

from bot.game.standings import rate_result
from bot.process.admin import main
from bot.storage.sqlite import Store

ROOT = Path(__file__).resolve().parents[2]


async def test_the_rebuild_gives_the_live_ratings(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "karak.sqlite3"
    store = await Store.open(db)
    for seed in (1, 2, 3):
        game = played(seed)
        rec = await started(store, game.states[-2], channel=seed)
        await play_on(store, rec.id, game, rater=rate_result)
    live = await store.ratings(GUILD)
    changes = await store.changes_of_table(3)
    await store.close()
    with sqlite3.connect(db) as con:  # as after the upgrade that added ratings: none yet
        con.execute("DELETE FROM ratings")
        con.execute("DELETE FROM rating_changes")
    env = tmp_path / "bot.env"
    env.write_text(f"KARAK_DB={db}\n", encoding="utf-8")
    monkeypatch.delenv("KARAK_DB", raising=False)
    argv = ["--env-file", str(env), "ratings", "--recompute", "--guild", str(GUILD)]
    assert await asyncio.to_thread(main, argv) == 0  # the command runs its own event loop
    assert "Ratings rebuilt from 3 finished games" in capsys.readouterr().out
    store = await Store.open(db)
    try:
        assert await store.ratings(GUILD) == live and len(live) == len(SEATS) - 1
        assert await store.changes_of_table(3) == changes
    finally:
        await store.close()


def test_the_admin_commands_explain_themselves() -> None:
    out = subprocess.run([sys.executable, "-m", "bot.admin", "ratings", "--help"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    assert "--recompute" in out and "--guild" in out
