"""``python -m bot.admin``: ``ratings --recompute`` rebuilds every rating from the stored results,
equal to the live updates, on the database the bot's settings name; ``migrate-db`` refuses while
a bot plays on the SQLite file it would copy."""
from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest
from bot_helpers import Clock
from live_bot import LiveBot
from players import ANN, BOB, Players, TinyRenderer, open_table
from postgres_server import Server
from storage.helpers import GUILD, SEATS, play_on, played, started

from bot.game.leases import LEASE_TTL
from bot.game.standings import rate_result
from bot.process.admin import main, migrate_db
from bot.storage import postgres
from bot.storage.sqlite import Store
from loopback import Loopback

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
    # as after the upgrade that added ratings: none yet
    with closing(sqlite3.connect(db)) as con, con:
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


async def test_a_server_id_that_is_no_server_or_has_no_games_is_said_plainly(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``ratings --recompute --guild`` with 0, a negative number or one past a 64-bit id (no
    Discord server id) is refused in one line before the database is touched; a server with
    no finished game in the database is said to have none, not "rebuilt from 0 finished
    games"."""
    db = tmp_path / "karak.sqlite3"
    store = await Store.open(db)
    game = played(1)
    rec = await started(store, game.states[-2], channel=1)
    await play_on(store, rec.id, game, rater=rate_result)
    live = await store.ratings(GUILD)
    await store.close()
    env = tmp_path / "bot.env"
    env.write_text(f"KARAK_DB={db}\n", encoding="utf-8")
    monkeypatch.delenv("KARAK_DB", raising=False)
    for guild in ("0", "-9", str(2**63)):
        argv = ["--env-file", str(env), "ratings", "--recompute", "--guild", guild]
        assert await asyncio.to_thread(main, argv) == 2, guild
        out = capsys.readouterr()
        assert "--guild must be a Discord server id: a positive number" in out.err, out
        assert out.err.count("\n") == 1 and out.out == ""
    argv = ["--env-file", str(env), "ratings", "--recompute", "--guild", str(GUILD + 1)]
    assert await asyncio.to_thread(main, argv) == 0
    out = capsys.readouterr().out
    assert f"Server {GUILD + 1} has no finished game in {db}" in out, out
    assert "rebuilt" not in out
    store = await Store.open(db)
    try:
        assert await store.ratings(GUILD) == live  # the other server's ratings stay
    finally:
        await store.close()



@pytest.mark.parametrize("guild", [None, GUILD])
async def test_a_damaged_result_refuses_the_rebuild_in_one_line_and_changes_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        guild: int | None) -> None:
    """A stored result damaged on disk (a place stored as a word): leaving its match out
    would rate its people otherwise than the live ratings did, so ``ratings --recompute``
    (all servers, or that one) refuses before writing anything, in one line naming the table,
    with exit status 1 (no traceback); the ratings stay as they were."""
    db = tmp_path / "karak.sqlite3"
    store = await Store.open(db)
    for seed in (1, 2, 3):
        game = played(seed)
        rec = await started(store, game.states[-2], channel=seed)
        await play_on(store, rec.id, game, rater=rate_result)
    live = await store.ratings(GUILD)
    changes = await store.changes_of_table(3)
    await store.close()
    with closing(sqlite3.connect(db)) as con, con:
        con.execute("UPDATE result_seats SET place = 'x' WHERE table_id = 2 AND seat = 1")
    env = tmp_path / "bot.env"
    env.write_text(f"KARAK_DB={db}\n", encoding="utf-8")
    monkeypatch.delenv("KARAK_DB", raising=False)
    argv = ["--env-file", str(env), "ratings", "--recompute",
            *([] if guild is None else ["--guild", str(guild)])]
    assert await asyncio.to_thread(main, argv) == 1
    out = capsys.readouterr()
    assert out.out == "" and out.err.count("\n") == 1, out
    assert out.err == (f"Ratings not rebuilt: the stored result of 1 finished game in {db} is "
                       "damaged (table 2); leaving it out would rate its players differently "
                       "from how they were rated, so nothing was changed. Restore a backup made "
                       "before the damage, or repair that row.\n")
    store = await Store.open(db)
    try:
        assert await store.ratings(GUILD) == live and live
        assert await store.changes_of_table(3) == changes
    finally:
        await store.close()

def test_the_admin_commands_explain_themselves() -> None:
    out = subprocess.run([sys.executable, "-m", "bot.admin", "ratings", "--help"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    assert "--recompute" in out and "--guild" in out


def test_no_command_or_an_unknown_one_shows_every_command() -> None:
    """``python -m bot.admin`` alone, or with a command it does not know, shows the full help:
    every command with its line (not argparse's usage line alone), and exits with status 2."""
    for args in ([], ["frobnicate"]):
        done = subprocess.run([sys.executable, "-m", "bot.admin", *args], cwd=ROOT,
                              capture_output=True, text=True, check=False)
        assert done.returncode == 2 and done.stdout == "", done
        for command, line in (("ratings", "The players' ratings"),
                              ("migrate-db", "Copy the bot's SQLite file"),
                              ("backup", "Copy the bot's SQLite database"),
                              ("restore", "Replace the bot's SQLite database"),
                              ("forget", "Delete what the bot keeps")):
            assert f"    {command} " in done.stderr and line in done.stderr, (args, done.stderr)
        assert "Traceback" not in done.stderr
    assert "invalid choice: 'frobnicate'" in done.stderr  # argparse's own line, kept


def test_a_database_not_there_or_unusable_is_one_line_and_nothing_is_made(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``ratings`` and ``forget`` on a KARAK_DB that is no database of this bot say so in one
    line, without a traceback, and never make an empty database in its place (which would
    answer that there was nothing to rebuild or to forget)."""
    monkeypatch.delenv("KARAK_DB", raising=False)
    env = tmp_path / "bot.env"
    missing = tmp_path / "typo.sqlite3"
    text = tmp_path / "notes.txt"
    text.write_text("not a database\n", encoding="utf-8")
    newer = tmp_path / "newer.sqlite3"
    with closing(sqlite3.connect(newer)) as con, con:
        con.execute("CREATE TABLE tables (id INTEGER)")
        con.execute("PRAGMA user_version = 999")
    other = tmp_path / "other.sqlite3"
    with closing(sqlite3.connect(other)) as con, con:
        con.execute("CREATE TABLE photos (id INTEGER)")
    untouched = {path: path.read_bytes() for path in (newer, other)}
    cases = [(missing, f"There is no database at {missing}"),
             (text, "is not a SQLite database"),
             (newer, "written by a newer version of the bot"),
             (other, "is a SQLite database, but not one of this bot"),
             ("postgresql://karak:secret@127.0.0.1:1/karak", "postgresql://karak:***@")]
    for where, said in cases:
        env.write_text(f"KARAK_DB={where}\n", encoding="utf-8")
        for command in (["ratings", "--recompute"], ["forget", "--user", "123"]):
            assert main(["--env-file", str(env), *command]) == 2, (where, command)
            out = capsys.readouterr()
            assert said in out.err and out.err.count("\n") == 1 and out.out == "", out
            assert "secret" not in out.err
    assert not missing.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bot.env", "newer.sqlite3",
                                                          "notes.txt", "other.sqlite3"]
    # refused, each file is left byte for byte as it was (a newer bot's not switched to WAL)
    assert {path: path.read_bytes() for path in untouched} == untouched


async def test_a_move_to_postgresql_waits_for_the_bot_on_the_file_to_stop(
        lb: Loopback, tmp_path: Path, clock: Clock, postgres_server: Server,
        capsys: pytest.CaptureFixture[str]) -> None:
    """``migrate-db`` from the SQLite file a bot still plays on is refused, naming the bot (its
    fresh lease) or the file it holds open, and copies nothing: the moves the bot saves after a
    copy would be lost at the switch. Once the bot stopped, the move takes every move."""
    db = tmp_path / "karak.sqlite3"
    url = await postgres_server.new_database()
    h1 = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    try:
        tid = await open_table(h1, ANN, [BOB], ai=1)
        players = Players(h1, tid, [ANN, BOB])
        for _ in range(6):  # the AI's turns came: the bot holds the table's lease
            assert await players.step()
        assert await asyncio.to_thread(
            main, ["migrate-db", "--from", str(db), "--to", url]) == 1
        out = capsys.readouterr()
        assert f"Another program has {db} open" in out.err and out.out == "", out
        assert out.err.count("\n") == 1
        assert await asyncio.to_thread(migrate_db, db, url, clock.now) == 1
        out = capsys.readouterr()
        assert "A bot is running on this database: main renewed its lease" in out.err, out
        assert "Stop the bot, then move it" in out.err and out.out == ""
        assert await asyncio.to_thread(migrate_db, db, url, clock.now + 10 * LEASE_TTL) == 1
        assert f"Another program has {db} open" in capsys.readouterr().err
        for _ in range(3):  # the bot goes on: these moves must reach PostgreSQL too
            assert await players.step()
        played_log = await h1.store.action_log(tid)
    finally:
        await h1.stop()
    # (the process, stopped, lets its leases lapse: this harness's bot leaves them to run out)
    assert await asyncio.to_thread(migrate_db, db, url, clock.now + 2 * LEASE_TTL) == 0
    assert "Start the bot with KARAK_DB=" in capsys.readouterr().out
    moved = await postgres.Store.open(url, clock=clock)
    try:
        assert await moved.action_log(tid) == played_log
    finally:
        await moved.close()


async def test_a_move_from_a_file_it_may_not_write_is_one_line(tmp_path: Path) -> None:
    """``migrate-db`` brings the file to this bot's schema before copying it, so a file it may
    not write (a read-only mount, the bot's user's file run as another user) is refused in one
    line naming it, exit status 1, before any server is asked: not SQLite's traceback."""
    import os
    import shutil

    db = tmp_path / "karak.sqlite3"
    await (await Store.open(db)).close()
    folder = tmp_path / "mounted"
    folder.mkdir()
    url = "postgresql://karak:secret@127.0.0.1:1/karak"
    if os.geteuid() != 0:
        shutil.copyfile(db, folder / "karak.sqlite3")
        folder.chmod(0o500)
        (folder / "karak.sqlite3").chmod(0o400)
        try:
            done = subprocess.run([sys.executable, "-m", "bot.admin", "migrate-db", "--from",
                                   str(folder / "karak.sqlite3"), "--to", url], cwd=ROOT,
                                  capture_output=True, text=True, timeout=60, check=False)
        finally:
            folder.chmod(0o700)
    else:  # root writes through permissions: a file system mounted read-only instead
        if shutil.which("unshare") is None:
            pytest.skip("running as root without unshare: no read-only file to try")
        done = subprocess.run(
            ["unshare", "--mount", "sh", "-c",
             'mount -t tmpfs tmpfs "$1" && cp "$2" "$1/" && mount -o remount,ro "$1" && '
             'shift 2 && exec "$@"', "sh", str(folder), str(db), sys.executable, "-m",
             "bot.admin", "migrate-db", "--from", str(folder / "karak.sqlite3"), "--to", url],
            cwd=ROOT, capture_output=True, text=True, timeout=60, check=False)
        if "mount" in done.stderr and done.returncode not in (0, 1):
            pytest.skip(f"cannot mount a read-only folder here: {done.stderr.strip()}")
    assert done.returncode == 1 and done.stdout == "", done
    assert done.stderr == (
        f"Nothing was copied: {folder / 'karak.sqlite3'} (--from) cannot be written by the user "
        "this command runs as (it is brought to this bot's schema before the copy): run the "
        "command as the bot's user, on a writable copy of the file.\n"), done


@pytest.mark.parametrize("command", [["forget", "--user", str(ANN.id)],
                                     ["ratings", "--recompute"]])
async def test_a_database_that_cannot_save_is_one_line_saying_to_run_it_again(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        command: list[str]) -> None:
    """``forget`` and ``ratings --recompute`` whose write the database refuses (a full or
    failing disk) say so in one line, and that the same command finishes the job once there
    is room, with exit status 1: no traceback."""
    from bot.game.people import People
    from bot.game.standings import Standings
    from bot.storage.records import CannotSave

    db = tmp_path / "karak.sqlite3"
    store = await Store.open(db)
    await store.close()

    async def refused(*args: object, **kwargs: object) -> object:
        raise CannotSave("database or disk is full")

    monkeypatch.setattr(People, "forget", refused)
    monkeypatch.setattr(Standings, "recompute", refused)
    env = tmp_path / "bot.env"
    env.write_text(f"KARAK_DB={db}\n", encoding="utf-8")
    monkeypatch.delenv("KARAK_DB", raising=False)
    assert await asyncio.to_thread(main, ["--env-file", str(env), *command]) == 1
    out = capsys.readouterr()
    assert out.out == "" and out.err == (
        f"The database {db} could not save the change (database or disk is full). Free space "
        "on its disk (or bring the database back) and run the same command again: it "
        "finishes what this one could not.\n")
