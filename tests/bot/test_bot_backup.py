"""``python -m bot.admin backup`` and ``restore`` on the SQLite database of a running bot.

A backup taken while the bot plays a match (a move being made at the same moment) holds every
move acknowledged before it; restored into a new file, a new bot on it finishes the match. A
restore refuses while a bot holds a fresh lease on the database (naming it), or has the file
open; every bad input gets one line, an exit status, and changes nothing; a restore over an
existing database keeps it beside."""
from __future__ import annotations

import asyncio
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from bot_helpers import Clock
from live_bot import LiveBot
from players import ANN, BOB, Players, TinyRenderer, open_table

from bot.game.leases import LEASE_TTL
from bot.process.admin import backup_or_restore, main
from bot.storage import sqlite_backup
from bot.storage.records import LogRow
from bot.storage.sqlite import Store
from bot.storage.sqlite_backup import REFUSED, USE_POSTGRES_TOOLS
from bot.storage.sqlite_schema import SCHEMA_VERSION
from loopback import Loopback


def admin(env: Path, db: Path, *args: str) -> int:
    """Run ``python -m bot.admin ARGS`` with ``KARAK_DB=db`` in the env file ``env``."""
    env.write_text(f"KARAK_DB={db}\n", encoding="utf-8")
    return main(["--env-file", str(env), *args])


async def logged(db: Path, tid: int) -> list[LogRow]:
    """The action log of table ``tid`` in the database file ``db``."""
    store = await Store.open(db)
    try:
        return await store.action_log(tid)
    finally:
        await store.close()


async def test_a_backup_mid_match_restores_and_the_match_finishes(
        lb: Loopback, tmp_path: Path, clock: Clock, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KARAK_DB", raising=False)
    db, copy, restored = tmp_path / "k.db", tmp_path / "backup.sqlite3", tmp_path / "new.db"
    env = tmp_path / "bot.env"
    h1 = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    try:
        tid = await open_table(h1, ANN, [BOB], ai=1)
        players = Players(h1, tid, [ANN, BOB])
        for _ in range(6):
            assert await players.step()
        acknowledged = await h1.store.action_log(tid)
        # the backup runs in a thread (not a task the bot waits for) while a person moves
        running = asyncio.get_running_loop().run_in_executor(
            None, admin, env, db, "backup", "--to", str(copy))
        assert await players.step()
        assert await running == 0
        assert f"Backed up {db} into {copy}." in capsys.readouterr().out
        for _ in range(4):  # moves after the backup: not in it
            assert await players.step()
        later = await h1.store.action_log(tid)

        # while the bot runs: its fresh lease is named, and the file it has open is refused
        said = backup_or_restore("restore", str(db), copy, clock.now)
        assert said == REFUSED
        err = capsys.readouterr().err
        assert "A bot is running on this database: main renewed its lease" in err, err
        assert backup_or_restore("restore", str(db), copy, clock.now + 10 * LEASE_TTL) == REFUSED
        assert f"Another program has {db} open" in capsys.readouterr().err
        assert await h1.store.action_log(tid) == later  # nothing changed
    finally:
        await h1.stop()

    assert await asyncio.to_thread(admin, env, restored, "restore", "--from", str(copy)) == 0
    assert f"Restored {copy} into {restored}." in capsys.readouterr().out
    kept = await logged(restored, tid)
    assert kept[:len(acknowledged)] == acknowledged, "a move acknowledged before the backup"
    assert kept == later[:len(kept)], "the backup is the match as one moment saw it"

    h2 = await LiveBot.start(lb, restored, TinyRenderer(), clock=clock)
    try:
        players = Players(h2, tid, [ANN, BOB])
        for _ in range(3000):
            if not await players.step():
                break
        rec = await h2.bot.service.tables.load(tid)
        assert rec.status == "finished" and rec.winner is not None
        assert (await h2.store.action_log(tid))[:len(kept)] == kept
    finally:
        await h2.stop()


async def test_a_restore_over_a_database_keeps_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KARAK_DB", raising=False)
    db, copy, env = tmp_path / "karak.sqlite3", tmp_path / "backup.sqlite3", tmp_path / "bot.env"
    store = await Store.open(db)
    await store.set_meta("when", "at the backup")
    await store.close()
    assert admin(env, db, "backup", "--to", str(copy)) == 0
    store = await Store.open(db)
    await store.set_meta("when", "after the backup")
    await store.close()
    for round_ in (1, 2):
        assert admin(env, db, "restore", "--from", str(copy)) == 0
        kept = tmp_path / ("karak.sqlite3.before-restore" + ("" if round_ == 1 else "-2"))
        assert f"is kept as {kept}" in capsys.readouterr().out
    damaged = b"SQLite format 3\x00" + b"\xff" * 4000
    db.write_bytes(damaged)  # a database too damaged to open is kept byte for byte
    assert admin(env, db, "restore", "--from", str(copy)) == 0
    assert (tmp_path / "karak.sqlite3.before-restore-3").read_bytes() == damaged
    for path, want in ((db, "at the backup"), (tmp_path / "karak.sqlite3.before-restore",
                                                "after the backup")):
        store = await Store.open(path)
        try:
            assert await store.get_meta("when") == want
        finally:
            await store.close()


async def test_bad_inputs_get_one_line_and_change_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KARAK_DB", raising=False)
    db, env = tmp_path / "karak.sqlite3", tmp_path / "bot.env"
    await (await Store.open(db)).close()
    before = db.read_bytes()
    text = tmp_path / "notes.txt"
    text.write_text("not a database\n", encoding="utf-8")
    other = tmp_path / "other.sqlite3"
    with closing(sqlite3.connect(other)) as con, con:
        con.execute("CREATE TABLE photos (id INTEGER)")
    newer = tmp_path / "newer.sqlite3"
    newer.write_bytes(before)
    # as a newer bot's backup: one file, no -wal beside
    with closing(sqlite3.connect(newer)) as con, con:
        con.execute("PRAGMA journal_mode=DELETE")
        con.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    cases = [
        (("restore", "--from", str(tmp_path / "missing.sqlite3")), "There is no file"),
        (("restore", "--from", str(text)), "is not a SQLite database"),
        (("restore", "--from", str(other)), "is a SQLite database, but not one of this bot"),
        (("restore", "--from", str(newer)), "was written by a newer version of the bot"),
        (("restore", "--from", str(db)), "is the bot's database itself"),
        (("backup", "--to", str(text)), "exists already"),
        (("backup", "--to", str(tmp_path / "no" / "b.sqlite3")), "There is no folder"),
    ]
    for args, said in cases:
        assert admin(env, db, *args) == REFUSED, args
        out = capsys.readouterr()
        assert said in out.err and out.err.count("\n") == 1 and out.out == "", (args, out)
    # a backup of a database that is not there (KARAK_DB to mend: a relative path read from
    # another folder, say), not a database, or another program's
    for source, said in ((tmp_path / "none.sqlite3", "There is no database at "
                          f"{tmp_path / 'none.sqlite3'}: point KARAK_DB (in the environment "
                          "or .env) at the bot's database file"),
                         (text, "is not a SQLite database"), (other, "not one of this bot")):
        assert admin(env, source, "backup", "--to", str(tmp_path / "b.sqlite3")) == REFUSED
        assert said in capsys.readouterr().err
    assert not (tmp_path / "b.sqlite3").exists() and not (tmp_path / "none.sqlite3").exists()
    # a database another program holds locked (SQLite gives up at once instead of in 5 s)
    monkeypatch.setattr(sqlite_backup, "BUSY_SECONDS", 0.0)
    locker = sqlite3.connect(db, isolation_level=None)
    try:
        locker.execute("PRAGMA journal_mode=DELETE")
        locker.execute("BEGIN EXCLUSIVE")
        assert admin(env, db, "backup", "--to", str(tmp_path / "b.sqlite3")) == REFUSED
        assert "is locked by another program" in capsys.readouterr().err
        assert not (tmp_path / "b.sqlite3").exists()
    finally:
        locker.execute("ROLLBACK")
        locker.close()
    with closing(sqlite3.connect(db)) as con, con:
        con.execute("PRAGMA journal_mode=WAL")
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "bot.env", "karak.sqlite3", "newer.sqlite3", "notes.txt", "other.sqlite3"]
    assert text.read_text(encoding="utf-8") == "not a database\n"


def test_postgresql_is_pointed_to_its_own_tools(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KARAK_DB", "postgresql://karak:secret@postgres/karak")
    assert main(["backup", "--to", "/data/karak.dump"]) == USE_POSTGRES_TOOLS
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "secret" not in err
    assert ("pg_dump --format=custom --file='/data/karak.dump' "
            "--dbname='postgresql://karak@postgres/karak'") in err
    assert main(["restore", "--from", "/data/karak.dump"]) == USE_POSTGRES_TOOLS
    err = capsys.readouterr().err
    assert "pg_restore" in err and "secret" not in err


async def test_a_cut_short_backup_is_said_damaged_and_nothing_changes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A backup cut short (a copy stopped half way, a full disk) still begins as a SQLite
    file: the line says it is damaged, not that it is no SQLite database (the admin would look
    for another file), and the bot's database is left as it was."""
    monkeypatch.delenv("KARAK_DB", raising=False)
    db, env = tmp_path / "karak.sqlite3", tmp_path / "bot.env"
    store = await Store.open(db)
    try:
        for n in range(400):
            await store.set_meta(f"note-{n}", "x" * 200)
        await store.set_meta("when", "before")
    finally:
        await store.close()
    whole = tmp_path / "whole.sqlite3"
    assert admin(env, db, "backup", "--to", str(whole)) == 0
    capsys.readouterr()
    cut = tmp_path / "cut.sqlite3"
    cut.write_bytes(whole.read_bytes()[:whole.stat().st_size // 2])
    before = db.read_bytes()
    assert admin(env, db, "restore", "--from", str(cut)) == REFUSED
    err = capsys.readouterr().err
    assert "cut.sqlite3 is damaged" in err and err.count("\n") == 1, err
    assert admin(env, cut, "backup", "--to", str(tmp_path / "again.sqlite3")) == REFUSED
    err = capsys.readouterr().err
    assert "cut.sqlite3 is damaged" in err and err.count("\n") == 1, err
    assert db.read_bytes() == before and not (tmp_path / "again.sqlite3").exists()
    assert not any(p.name.endswith(".before-restore") for p in tmp_path.iterdir())


async def test_a_newer_bots_database_is_backed_up_before_its_backup_is_restored(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """After a step back to an older version, the bot refuses the database a newer one wrote
    and the upgrade guide says to restore a backup made before: ``backup`` still copies that
    database as it is (a copy needs no knowledge of its schema), so the newer bot's moves can
    be kept, and only ``restore`` refuses it."""
    monkeypatch.delenv("KARAK_DB", raising=False)
    db, env = tmp_path / "karak.sqlite3", tmp_path / "bot.env"
    store = await Store.open(db)
    try:
        await store.set_meta("when", "newer")
    finally:
        await store.close()
    with closing(sqlite3.connect(db)) as con, con:
        con.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    copy = tmp_path / "newer-backup.sqlite3"
    assert admin(env, db, "backup", "--to", str(copy)) == 0
    out = capsys.readouterr()
    assert out.out == f"Backed up {db} into {copy}.\n" and out.err == "", out
    with closing(sqlite3.connect(copy)) as con:
        assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 1
        assert con.execute("SELECT value FROM meta WHERE key = 'when'").fetchone()[0] == "newer"
    assert admin(env, tmp_path / "other.sqlite3", "restore", "--from", str(copy)) == REFUSED
    assert "was written by a newer version of the bot" in capsys.readouterr().err


async def test_a_backup_into_a_folder_it_may_not_write_is_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A backup into a folder the command may not write (a read-only mount, a folder of
    another user than the one the command runs as, as in a container) says so in one line
    naming the folder, exit status 1, not a traceback nor SQLite's 'unable to open database
    file' (which file?)."""
    import os
    import shutil
    import subprocess
    import sys

    monkeypatch.delenv("KARAK_DB", raising=False)
    db, env = tmp_path / "karak.sqlite3", tmp_path / "bot.env"
    await (await Store.open(db)).close()
    env.write_text(f"KARAK_DB={db}\n", encoding="utf-8")
    folder = tmp_path / "backups"
    folder.mkdir()
    command = [sys.executable, "-m", "bot.admin", "--env-file", str(env), "backup", "--to",
               str(folder / "b.sqlite3")]
    root = Path(__file__).resolve().parents[2]
    if os.geteuid() != 0:
        folder.chmod(0o500)
        try:
            done = subprocess.run(command, cwd=root, capture_output=True, text=True,
                                  timeout=60, check=False)
        finally:
            folder.chmod(0o700)
    else:  # root writes through folder permissions: a read-only file system instead
        if shutil.which("unshare") is None:
            pytest.skip("running as root without unshare: no read-only folder to try")
        done = subprocess.run(
            ["unshare", "--mount", "sh", "-c", 'mount -t tmpfs -o ro tmpfs "$1" && shift && '
             'exec "$@"', "sh", str(folder), *command],
            cwd=root, capture_output=True, text=True, timeout=60, check=False)
        if "mount" in done.stderr and done.returncode not in (0, 1):
            pytest.skip(f"cannot mount a read-only folder here: {done.stderr.strip()}")
    assert done.returncode == REFUSED and done.stdout == "", done
    assert done.stderr == (f"Cannot write into the folder {folder}: choose a folder the user "
                           "this command runs as may write into (nothing was written).\n"), done
    assert list(folder.iterdir()) == []


async def test_a_restore_from_a_file_it_may_not_read_is_one_line(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A backup the command's user may not read (copied in by root into a container whose
    commands run as another user, say) is refused in one line naming it, exit status 1, and
    the bot's database is left as it was: not a traceback."""
    import os
    import shutil
    import subprocess
    import sys
    import tempfile

    monkeypatch.delenv("KARAK_DB", raising=False)
    data = Path(tempfile.mkdtemp(prefix="karak-restore-"))  # a folder another user can reach
    try:
        data.chmod(0o755)
        db, env = data / "karak.sqlite3", data / "bot.env"
        await (await Store.open(db)).close()
        backup = data / "backup.sqlite3"
        assert admin(env, db, "backup", "--to", str(backup)) == 0
        backup.chmod(0o000)
        before, names = db.read_bytes(), sorted(p.name for p in data.iterdir())
        command = [sys.executable, "-m", "bot.admin", "--env-file", str(env), "restore",
                   "--from", str(backup)]
        if os.geteuid() == 0:  # root reads through permissions: run as an unprivileged user
            if shutil.which("setpriv") is None:
                pytest.skip("running as root without setpriv: no unreadable file to try")
            for path in (data, *data.iterdir()):
                os.chown(path, 65534, 65534)
            command = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *command]
        done = subprocess.run(command, cwd=Path(__file__).resolve().parents[2],
                              capture_output=True, text=True, timeout=60, check=False)
        assert done.returncode == REFUSED and done.stdout == "", done
        assert done.stderr == (f"{backup} cannot be read (Permission denied): give the user "
                               "this command runs as the right to read it (nothing was "
                               "changed).\n"), done
        assert db.read_bytes() == before
        assert sorted(p.name for p in data.iterdir()) == names  # no copy kept: none made
    finally:
        shutil.rmtree(data)
