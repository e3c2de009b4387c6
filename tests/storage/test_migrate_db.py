"""Moving a bot from SQLite to PostgreSQL with ``python -m bot.admin migrate-db``: every table,
action log, setting, metadata value and result copied, ids kept; the matches go on after the
move; a move into a database that already holds a bot's data copies nothing."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from postgres_server import Server

from bot.game.places import Place
from bot.storage import postgres, sqlite
from bot.storage.interface import Storage
from bot.storage.records import ServerDefaults
from storage.helpers import GUILD, PLACE, SEATS, Clock, play_on, played, started


async def admin(*args: str) -> tuple[int, str, str]:
    """Run ``python -m bot.admin`` with ``args``: exit status, output and errors."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot.admin", *args, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE)
    out, err = await proc.communicate()
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def everything(store: Storage, ids: list[int]) -> list[object]:
    """What a bot reads from ``store``: each table, its log and result, the settings and the
    metadata."""
    seen: list[object] = [await store.ids_with_status("lobby", "running", "finished"),
                          await store.matches(PLACE), await store.guild_settings(GUILD),
                          await store.guild_locale(GUILD), await store.get_meta("synced")]
    for tid in ids:
        seen += [await store.get(tid), await store.action_log(tid), await store.result_of(tid)]
    return seen


async def test_a_bot_moves_to_postgresql_and_its_matches_go_on(
        tmp_path: Path, postgres_server: Server, clock: Clock) -> None:
    file = tmp_path / "karak.sqlite3"
    old = await sqlite.Store.open(file, clock=clock)
    won, running = played(1), played(2)
    finished = await started(old, won.states[0], channel=1)
    await play_on(old, finished.id, won)
    going = await started(old, running.states[0], channel=2)
    await play_on(old, going.id, running, upto=15)
    lobby = await old.create_table(guild_id=GUILD, place_key=Place.server(GUILD).key,
                                   channel_id=3, host_id=SEATS[0].user or 0,
                                   seats=SEATS[:1], abilities=True, timer=60, seed=7)
    await old.relocalise_guild(GUILD, ServerDefaults(True, 120, "hard"), "cs", "cs")
    await old.set_meta("synced", "abc")
    cup = await old.create_tournament(
        guild_id=GUILD, place_key=Place.server(GUILD).key, channel_id=5, host_id=1,
        name="Cup", rounds=2, table_size=3, timer=0, abilities=True, ai_level="easy",
        round_span=60, closes_at=None, seed=3, locale="en")
    ids = [finished.id, going.id, lobby.id]
    before = await everything(old, ids)
    await old.close()

    url = await postgres_server.new_database()
    status, out, err = await admin("migrate-db", "--from", str(file), "--to", url)
    assert (status, err) == (0, "")
    assert "tables: 3 rows copied." in out and f"actions: {len(won.moves) + 15} rows" in out

    moved = await postgres.Store.open(url, clock=clock)
    try:
        assert await everything(moved, ids) == before
        await play_on(moved, going.id, running)  # the match goes on and ends
        assert (await moved.result_of(going.id)) is not None
        assert len(await moved.action_log(going.id)) == len(running.moves)
        newer = await started(moved, won.states[0], channel=4)  # ids go on after the old ones
        assert newer.id == lobby.id + 1
        assert await moved.tournament(cup.id) == cup
        later = await moved.create_tournament(
            guild_id=GUILD, place_key=Place.server(GUILD).key, channel_id=6, host_id=1,
            name="Cup 2", rounds=None, table_size=4, timer=0, abilities=False, ai_level=None,
            round_span=0, closes_at=None, seed=4, locale="en")
        assert later.id == cup.id + 1  # tournament ids go on after the old ones too
    finally:
        await moved.close()

    status, out, err = await admin("migrate-db", "--from", str(file), "--to", url)
    assert status == 1 and out == "" and "already holds" in err
    moved = await postgres.Store.open(url, clock=clock)
    try:
        assert len(await moved.action_log(going.id)) == len(running.moves)  # nothing doubled
    finally:
        await moved.close()


async def test_a_move_without_a_file_or_a_url_is_refused(
        tmp_path: Path, postgres_server: Server) -> None:
    status, _, err = await admin("migrate-db", "--from", str(tmp_path / "none.sqlite3"),
                                 "--to", await postgres_server.new_database())
    assert status == 1 and "none.sqlite3" in err
    assert not (tmp_path / "none.sqlite3").exists()
    status, _, err = await admin("migrate-db", "--from", str(tmp_path / "none.sqlite3"),
                                 "--to", str(tmp_path / "other.sqlite3"))
    assert status == 2 and "postgresql://" in err


async def test_a_move_into_a_database_the_server_refuses_is_one_line(
        tmp_path: Path, postgres_server: Server) -> None:
    """A typo in the target database's name (or a user name the server refuses) is one line
    naming the database without its password, as the bot says it, never a traceback; the file
    stays as it was."""
    source = tmp_path / "karak.sqlite3"
    await (await sqlite.Store.open(source)).close()
    before = source.read_bytes()
    missing = postgres_server.url("no_such_database").replace("postgres@", "postgres:s3cret@")
    status, out, err = await admin("migrate-db", "--from", str(source), "--to", missing)
    assert status == 1 and out == "", err
    assert "has no database named in" in err and err.count("\n") == 1, err
    assert "Traceback" not in err and "s3cret" not in err
    unknown = postgres_server.url("postgres").replace("postgres@", "nobody@")
    status, out, err = await admin("migrate-db", "--from", str(source), "--to", unknown)
    assert status == 1 and err.count("\n") == 1 and "Traceback" not in err, err
    assert source.read_bytes() == before
