from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
import tempfile
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from bot.process.settings import ConfigProblem, load_settings, read_env_file

TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GaBcDe.abcdefghijklmnopqrstuvwxyz012345"


def test_valid_settings(tmp_path: Path) -> None:
    s = load_settings({"DISCORD_TOKEN": TOKEN, "KARAK_DB": str(tmp_path / "k.db"),
                       "KARAK_LOG_LEVEL": "debug", "KARAK_DEV_GUILD": "123",
                       "KARAK_TURN_TIMER": "300"}, env_file=None)
    assert s.token.get_secret_value() == TOKEN
    assert s.log_level == "DEBUG" and s.dev_guild == 123 and s.turn_timer == 300
    assert TOKEN not in repr(s) and TOKEN not in str(s)


def test_env_file_and_environment_precedence(tmp_path: Path) -> None:
    env = tmp_path / ".env"
    env.write_text(f"# comment\nexport DISCORD_TOKEN='{TOKEN}'\nKARAK_DB={tmp_path}/a.db  # x\n"
                   "KARAK_LOG_LEVEL=INFO\n")
    assert read_env_file(env)["KARAK_DB"] == f"{tmp_path}/a.db"
    s = load_settings({"KARAK_LOG_LEVEL": "ERROR"}, env_file=env)
    assert s.log_level == "ERROR" and s.db == str(tmp_path / "a.db")


@pytest.mark.parametrize(("env", "needle"), [
    ({}, "No DISCORD_TOKEN"),
    ({"DISCORD_TOKEN": "not-a-token"}, "malformed"),
    ({"DISCORD_TOKEN": TOKEN, "KARAK_TURN_TIMER": "5"}, "KARAK_TURN_TIMER"),
    ({"DISCORD_TOKEN": TOKEN, "KARAK_TURN_TIMER": "soon"}, "KARAK_TURN_TIMER"),
    ({"DISCORD_TOKEN": TOKEN, "KARAK_LOG_LEVEL": "loud"}, "KARAK_LOG_LEVEL"),
    ({"DISCORD_TOKEN": TOKEN, "KARAK_DEV_GUILD": "-4"}, "KARAK_DEV_GUILD"),
    ({"DISCORD_TOKEN": TOKEN, "KARAK_API_BASE": "discord"}, "KARAK_API_BASE"),
    ({"DISCORD_TOKEN": TOKEN, "KARAK_DB": "/nonexistent-dir/k.db"}, "KARAK_DB"),
    ({"DISCORD_TOKEN": TOKEN, "KARAK_DISCORD_STOP_WAIT": "0"}, "KARAK_DISCORD_STOP_WAIT"),
    ({"DISCORD_TOKEN": TOKEN, "KARAK_DISCORD_STOP_WAIT": "soon"}, "KARAK_DISCORD_STOP_WAIT"),
    ({"DISCORD_TOKEN": TOKEN, "KARAK_DISCORD_RATE_LIMIT": "5"}, "KARAK_DISCORD_RATE_LIMIT"),
    ({"DISCORD_TOKEN": TOKEN, "KARAK_DISCORD_RATE_LIMIT": "fast"}, "KARAK_DISCORD_RATE_LIMIT"),
    ({"DISCORD_TOKEN": TOKEN, "KARAK_MATCH_LIMIT": "-1"}, "KARAK_MATCH_LIMIT"),
    ({"DISCORD_TOKEN": TOKEN, "KARAK_MATCH_LIMIT": "lots"}, "KARAK_MATCH_LIMIT"),
])
def test_problems_are_one_line_without_token(env: dict[str, str], needle: str,
                                             tmp_path: Path) -> None:
    env = {"KARAK_DB": str(tmp_path / "k.db"), **env}
    with pytest.raises(ConfigProblem) as info:
        load_settings(env, env_file=None)
    text = str(info.value)
    assert needle in text and "\n" not in text and TOKEN not in text


def test_the_wait_on_discord_when_stopping_defaults_to_the_clients(tmp_path: Path) -> None:
    from bot.discord_side.client import DISCORD_WAIT

    s = load_settings({"DISCORD_TOKEN": TOKEN, "KARAK_DB": str(tmp_path / "k.db")}, None)
    assert s.discord_stop_wait == DISCORD_WAIT
    s = load_settings({"DISCORD_TOKEN": TOKEN, "KARAK_DB": str(tmp_path / "k.db"),
                       "KARAK_DISCORD_STOP_WAIT": "0.5"}, None)
    assert s.discord_stop_wait == 0.5


def test_the_global_rate_limit_is_discords_unless_raised(tmp_path: Path) -> None:
    from bot.discord_side.pace import GLOBAL_LIMIT

    s = load_settings({"DISCORD_TOKEN": TOKEN, "KARAK_DB": str(tmp_path / "k.db")}, None)
    assert s.discord_rate_limit == GLOBAL_LIMIT == 50
    s = load_settings({"DISCORD_TOKEN": TOKEN, "KARAK_DB": str(tmp_path / "k.db"),
                       "KARAK_DISCORD_RATE_LIMIT": "1200"}, None)
    assert s.discord_rate_limit == 1200


def test_the_limit_of_matches_at_once_defaults_to_the_game_s_and_zero_lifts_it(
        tmp_path: Path) -> None:
    from bot.game.limits import MATCH_LIMIT

    db = {"KARAK_DB": str(tmp_path / "k.db"), "DISCORD_TOKEN": TOKEN}
    assert load_settings(db, None).match_limit == MATCH_LIMIT
    assert load_settings({**db, "KARAK_MATCH_LIMIT": "0"}, None).match_limit == 0


def test_unwritable_database_folder(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        if os.access(folder, os.W_OK):  # running as root: permissions do not bind
            _unwritable_as_root(tmp_path)
            return
        with pytest.raises(ConfigProblem, match="KARAK_DB"):
            load_settings({"DISCORD_TOKEN": TOKEN, "KARAK_DB": str(folder / "k.db")}, None)
    finally:
        folder.chmod(0o700)


def _unwritable_as_root(tmp_path: Path) -> None:
    """Root writes through folder permissions, so the folder is a read-only file system instead,
    mounted in a private mount namespace of a child process (``unshare``)."""
    if shutil.which("unshare") is None:
        pytest.skip("running as root without unshare: no read-only folder to try")
    mount = tmp_path / "mnt"
    mount.mkdir()
    check = ("import sys\n"
             "from bot.process.settings import ConfigProblem, load_settings\n"
             "try:\n"
             f"    load_settings({{'DISCORD_TOKEN': {TOKEN!r}, 'KARAK_DB': sys.argv[1]}}, None)\n"
             "except ConfigProblem as exc:\n"
             "    print('refused', exc)\n"
             "else:\n"
             "    print('accepted')\n")
    script = tmp_path / "check.py"
    script.write_text(check, encoding="utf-8")
    done = subprocess.run(
        ["unshare", "--mount", "sh", "-c",
         'mount -t tmpfs -o ro tmpfs "$1" && exec "$2" "$3" "$1/k.db"', "sh",
         str(mount), sys.executable, str(script)],
        capture_output=True, text=True, timeout=60, cwd=Path(__file__).resolve().parents[2])
    if "mount" in done.stderr and done.returncode != 0:
        pytest.skip(f"cannot mount a read-only folder here: {done.stderr.strip()}")
    assert done.returncode == 0, done.stderr
    out = done.stdout.strip()
    assert out.startswith("refused") and "KARAK_DB" in out and "\n" not in out, out


def test_directory_as_database(tmp_path: Path) -> None:
    with pytest.raises(ConfigProblem, match="KARAK_DB"):
        load_settings({"DISCORD_TOKEN": TOKEN, "KARAK_DB": str(tmp_path)}, None)


def test_bad_env_file_line(tmp_path: Path) -> None:
    env = tmp_path / ".env"
    env.write_text("this is not an assignment\n")
    with pytest.raises(ConfigProblem, match="line 1"):
        load_settings({}, env_file=env)


def test_token_is_never_logged(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    load_settings({"DISCORD_TOKEN": TOKEN, "KARAK_DB": str(tmp_path / "k.db")}, None)
    assert TOKEN not in caplog.text


def test_no_token_is_told_apart_from_a_malformed_one(tmp_path: Path) -> None:
    """No token at all opens the browser playground (python -m bot); a malformed one must
    still stop the bot, never fall back to the playground silently."""
    from bot.process.settings import NoToken

    db = str(tmp_path / "k.db")
    for env in ({"KARAK_DB": db}, {"KARAK_DB": db, "DISCORD_TOKEN": "  "}):
        with pytest.raises(NoToken):
            load_settings(env, env_file=None)
    with pytest.raises(ConfigProblem) as info:
        load_settings({"KARAK_DB": db, "DISCORD_TOKEN": "not-a-token"}, env_file=None)
    assert not isinstance(info.value, NoToken)


def test_the_real_environment_and_env_file_through_pydantic_settings(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith("KARAK_") or name == "DISCORD_TOKEN":
            monkeypatch.delenv(name)
    env = tmp_path / ".env"
    env.write_text(f"# the bot\nexport DISCORD_TOKEN='{TOKEN}'\nKARAK_DB={tmp_path}/a.db  # here\n"
                   "KARAK_TURN_TIMER=300\nKARAK_HEARTBEAT=\nKARAK_LOG_LEVEL=info\n")
    monkeypatch.setenv("KARAK_LOG_LEVEL", "error")  # the environment wins over .env
    s = load_settings(env_file=env)
    assert s.token.get_secret_value() == TOKEN and s.db == str(tmp_path / "a.db")
    assert s.turn_timer == 300 and s.log_level == "ERROR" and s.heartbeat is None
    monkeypatch.setenv("KARAK_AI_PACE", "fast")
    with pytest.raises(ConfigProblem) as info:
        load_settings(env_file=env)
    assert "KARAK_AI_PACE" in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize("name", ["KARAK_AI_PACE", "KARAK_TURN_TIMER", "KARAK_DEV_GUILD",
                                  "KARAK_LOG_LEVEL", "KARAK_API_BASE"])
def test_a_token_pasted_into_another_setting_is_not_echoed(name: str, tmp_path: Path) -> None:
    """The refusal names the variable and why it is refused, in one line, without its value
    (nor the validation library's copy of it) anywhere in the message or its chain."""
    env = {"DISCORD_TOKEN": TOKEN, "KARAK_DB": str(tmp_path / "k.db"), name: TOKEN}
    with pytest.raises(ConfigProblem) as info:
        load_settings(env, env_file=None)
    text = str(info.value)
    assert name in text and "\n" not in text and TOKEN not in text
    assert "must be" in text
    assert info.value.__cause__ is None and info.value.__suppress_context__
    assert "abcdefghijklmnopqrstuvwxyz" not in text


def test_a_postgresql_url_is_a_database_and_its_password_is_never_shown(
        tmp_path: Path) -> None:
    from bot.storage.choice import is_database_url, shown

    url = "postgresql://karak:s3cret@db.example:5432/karak"
    s = load_settings({"DISCORD_TOKEN": TOKEN, "KARAK_DB": url}, None)
    assert s.db == url and is_database_url(s.db)  # no file is looked for
    assert shown(s.db) == "postgresql://karak:***@db.example:5432/karak"
    assert shown("postgres://karak@/karak?host=/run") == "postgres://karak@/karak?host=/run"
    assert not is_database_url(str(tmp_path / "k.db"))
    with pytest.raises(ConfigProblem):  # a file path is still checked
        load_settings({"DISCORD_TOKEN": TOKEN, "KARAK_DB": str(tmp_path / "no" / "k.db")}, None)


@pytest.mark.parametrize(("env", "needle"), [
    ({"KARAK_SHARD_COUNT": "0"}, "KARAK_SHARD_COUNT must be"),
    ({"KARAK_SHARD_COUNT": "two"}, "KARAK_SHARD_COUNT must be"),
    ({"KARAK_SHARD_COUNT": "1.5"}, "KARAK_SHARD_COUNT must be"),
    ({"KARAK_SHARD_COUNT": "2", "KARAK_SHARD_IDS": "0,,1"}, "KARAK_SHARD_IDS must list"),
    ({"KARAK_SHARD_COUNT": "4", "KARAK_SHARD_IDS": "3-1"}, "KARAK_SHARD_IDS must list"),
    ({"KARAK_SHARD_COUNT": "4", "KARAK_SHARD_IDS": "-1"}, "KARAK_SHARD_IDS must list"),
    ({"KARAK_SHARD_COUNT": "4", "KARAK_SHARD_IDS": "0-99999999999"}, "KARAK_SHARD_IDS must list"),
    ({"KARAK_SHARD_IDS": "0-1"}, "KARAK_SHARD_IDS needs KARAK_SHARD_COUNT"),
    ({"KARAK_SHARD_COUNT": "2", "KARAK_SHARD_IDS": "1,2"}, "below KARAK_SHARD_COUNT (2)"),
    ({"KARAK_SHARD_COUNT": "x", "KARAK_SHARD_IDS": "7"}, "KARAK_SHARD_COUNT must be"),
])
def test_shard_settings_problems_are_one_line(env: dict[str, str], needle: str,
                                              tmp_path: Path) -> None:
    with pytest.raises(ConfigProblem) as info:
        load_settings({"DISCORD_TOKEN": TOKEN, "KARAK_DB": str(tmp_path / "k.db"), **env},
                      env_file=None)
    assert needle in str(info.value) and "\n" not in str(info.value)


def test_shard_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = {"DISCORD_TOKEN": TOKEN, "KARAK_DB": str(tmp_path / "k.db")}
    alone = load_settings(base, env_file=None)
    assert alone.shard_count is None and alone.shard_ids is None  # Discord's recommended count
    assert alone.owner == "main" == load_settings({**base, "KARAK_INSTANCE": " "},
                                                  env_file=None).owner
    every = load_settings({**base, "KARAK_SHARD_COUNT": "3"}, env_file=None)
    assert every.shard_count == 3 and every.shard_ids is None
    shared = "postgresql://karak@db.example/karak"  # some shards: processes share PostgreSQL
    some = load_settings({**base, "KARAK_DB": shared, "KARAK_SHARD_COUNT": "8",
                          "KARAK_SHARD_IDS": " 4-6, 0,5 "}, env_file=None)
    assert some.shard_ids == (0, 4, 5, 6)
    # the real environment and .env, read by pydantic-settings (no JSON decoding of the list)
    for name in list(os.environ):
        if name.startswith("KARAK_") or name == "DISCORD_TOKEN":
            monkeypatch.delenv(name)
    env = tmp_path / ".env"
    env.write_text(f"DISCORD_TOKEN={TOKEN}\nKARAK_DB={shared}\nKARAK_SHARD_COUNT=4\n")
    monkeypatch.setenv("KARAK_SHARD_IDS", "2-3")
    read = load_settings(env_file=env)
    assert read.shard_count == 4 and read.shard_ids == (2, 3)
    assert read.owner == "shards-2,3"  # a lease owner by its shards without KARAK_INSTANCE
    env.write_text(env.read_text() + "KARAK_INSTANCE= eu-1 \n")  # .env names the process
    assert load_settings(env_file=env).owner == "eu-1"
    monkeypatch.setenv("KARAK_SHARD_IDS", "4")
    with pytest.raises(ConfigProblem, match="below KARAK_SHARD_COUNT"):
        load_settings(env_file=env)


def _closed_port() -> int:
    """A TCP port of 127.0.0.1 nobody listens on (taken, then let go)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _run_bot(*args: str, **settings: str) -> subprocess.CompletedProcess[str]:
    """``python -m bot ARGS`` with a well-formed token, ``settings`` and no other setting of
    this machine's environment; what it printed and its status."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("KARAK_") and k != "DISCORD_TOKEN"}
    env.update({"DISCORD_TOKEN": TOKEN, **settings})
    return subprocess.run([sys.executable, "-m", "bot", "--env-file", os.devnull, *args],
                          cwd=Path(__file__).resolve().parents[2], env=env, capture_output=True,
                          text=True, timeout=120, check=False)


def test_an_unreachable_postgresql_database_stops_the_bot_in_one_line(tmp_path: Path) -> None:
    url = f"postgresql://karak:s3cret@127.0.0.1:{_closed_port()}/karak?password=s3cret"
    done = _run_bot(KARAK_DB=url)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "cannot connect to the PostgreSQL server" in lines[0] and "127.0.0.1" in lines[0]
    assert "s3cret" not in done.stderr + done.stdout and TOKEN not in done.stderr


def test_the_servers_refusals_are_told_apart() -> None:
    """The server's refusals (the driver's own exceptions, as it raises them) each get their
    line, naming the database without its password; anything else is no database problem."""
    import asyncpg

    from bot.process.app import database_problem

    url = "postgresql://karak:s3cret@db.example:5432/karak"
    told = {name: str(database_problem(exc, url)) for name, exc in {
        "login": asyncpg.InvalidPasswordError("password authentication failed"),
        "missing": asyncpg.InvalidCatalogNameError('database "karak" does not exist'),
        "busy": asyncpg.TooManyConnectionsError("sorry, too many clients already"),
        "refused": ConnectionRefusedError(111, "Connect call failed"),
    }.items()}
    assert "refused the user name or password" in told["login"]
    assert "has no database named in" in told["missing"]
    assert "(error 53300)" in told["busy"] and "cannot connect" in told["refused"]
    assert all("postgresql://karak:***@db.example:5432/karak" in t and "s3cret" not in t
               for t in told.values())
    assert database_problem(asyncpg.UndefinedTableError("no table"), url) is None
    assert database_problem(ConnectionRefusedError(), "karak.sqlite3") is None


async def test_an_unknown_postgresql_database_is_named(postgres_server: Any) -> None:
    from bot.process.app import database_problem
    from bot.storage.choice import open_storage

    url = postgres_server.url("no_such_database")
    with pytest.raises(Exception) as info:
        await open_storage(url)
    problem = database_problem(info.value, url)
    assert problem is not None and "has no database named in" in str(problem)


async def test_a_postgresql_url_without_its_driver_says_which_extra_to_install(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """asyncpg is the ``postgres`` extra: a bot installed without it, told to use PostgreSQL,
    says in one line what to install (and SQLite needs no driver of its own)."""
    import importlib.util

    from bot.process.app import database_problem
    from bot.storage.choice import NoDriver, open_storage

    found = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "asyncpg" else found(name, *a))
    url = "postgresql://karak:s3cret@db.example:5432/karak"
    with pytest.raises(NoDriver) as info:
        await open_storage(url)
    problem = str(database_problem(info.value, url))
    assert "pip install 'karak-goblin-bot[postgres]'" in problem and "s3cret" not in problem


@pytest.mark.parametrize("name", ["KARAK_THREADS", "KARAK_METRICS_PORT", "KARAK_LOG_FORMAT",
                                  "KARAK_DRAWING_WORKERS", "KARAK_AI_THINK"])
def test_every_settings_refusal_is_a_sentence_in_every_language(
        name: str, tmp_path: Path) -> None:
    """A refused value is told by a sentence naming the setting, never by a bare translation
    key, in each language the bot speaks."""
    from bot.process.settings import ENV
    from i18n import LOCALES, has_key

    with pytest.raises(ConfigProblem) as info:
        load_settings({"DISCORD_TOKEN": TOKEN, "KARAK_DB": str(tmp_path / "k.db"),
                       name: "maybe"}, env_file=None)
    text = str(info.value)
    assert name in text and "bot.config" not in text, text
    # every setting a value can be refused for has its sentence (the token has its own)
    for field in sorted(set(ENV.values()) - {"token", "instance"}):
        for locale in LOCALES:
            assert has_key(f"bot.config.bad.{field}", locale), (field, locale)


def test_an_env_file_not_in_utf8_is_one_line(tmp_path: Path) -> None:
    """A ``.env`` saved in another encoding (an accent typed in Latin-1) stops the bot with
    one line naming the file, not a traceback."""
    env = tmp_path / ".env"
    env.write_bytes(f"DISCORD_TOKEN={TOKEN}\nKARAK_INSTANCE=caf\xe9\n".encode("latin-1"))
    with pytest.raises(ConfigProblem) as info:
        load_settings({}, env_file=env)
    text = str(info.value)
    assert str(env) in text and "UTF-8" in text and "\n" not in text and TOKEN not in text


def test_a_database_file_that_is_no_database_stops_the_bot_in_one_line(tmp_path: Path) -> None:
    """``KARAK_DB`` naming a file that is no SQLite database (a note, a compressed backup, a
    file damaged past opening) stops the bot with one line naming the setting and the file,
    and the file is left as it was."""
    notes = tmp_path / "karak.sqlite3.gz"
    notes.write_bytes(b"\x1f\x8b\x08\x00" + b"not a database " * 300)
    before = notes.read_bytes()
    done = _run_bot(KARAK_DB=str(notes))
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "KARAK_DB" in lines[0] and str(notes) in lines[0] and "SQLite" in lines[0], lines
    assert notes.read_bytes() == before


def test_some_shards_on_a_sqlite_file_are_refused(tmp_path: Path) -> None:
    """A process running only some of the shards leaves the others to processes of their own,
    which share a PostgreSQL database: on a SQLite file (one process only) the servers of the
    other shards would never be answered, so the setting is refused in one line. Every shard
    of a count, or some of them on PostgreSQL, is fine."""
    base = {"DISCORD_TOKEN": TOKEN, "KARAK_DB": str(tmp_path / "k.db"), "KARAK_SHARD_COUNT": "2"}
    with pytest.raises(ConfigProblem) as info:
        load_settings({**base, "KARAK_SHARD_IDS": "1"}, env_file=None)
    text = str(info.value)
    assert "KARAK_SHARD_IDS" in text and "PostgreSQL" in text and "\n" not in text, text
    assert load_settings({**base, "KARAK_SHARD_IDS": "0-1"}, env_file=None).shard_ids == (0, 1)
    shared = load_settings({**base, "KARAK_SHARD_IDS": "1",
                            "KARAK_DB": "postgresql://karak@db.example/karak"}, env_file=None)
    assert shared.shard_ids == (1,)


def test_discord_out_of_reach_stops_the_bot_in_one_line(tmp_path: Path) -> None:
    """Discord's API out of reach at login (no network, DNS, a firewall): one line saying
    so, and the status 1 a restart policy tries again on; no traceback, no voice warnings."""
    done = _run_bot(KARAK_DB=str(tmp_path / "k.db"),
                    KARAK_API_BASE=f"http://127.0.0.1:{_closed_port()}/api/v10")
    assert done.returncode == 1, done.stderr
    said = done.stderr.strip().splitlines()[-1]  # after the log's lines
    assert said.startswith("Cannot reach Discord (") and "127.0.0.1" in said, done.stderr
    assert "Traceback" not in done.stderr and "voice will NOT" not in done.stderr, done.stderr
    assert TOKEN not in done.stderr + done.stdout


def test_a_mistyped_setting_is_named_with_the_closest_one_and_the_bot_still_starts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A ``KARAK_`` name no setting has, in ``.env`` or the environment, would be ignored
    without a word (the admin's timer never set): each gets one warning naming it and the
    setting it is closest to; the playground's, Docker Compose's and the tests' own are known,
    and the bot still starts."""
    from bot.process.app import main
    from bot.process.settings import unknown_settings

    for name in list(os.environ):
        if name.startswith("KARAK_") or name == "DISCORD_TOKEN":
            monkeypatch.delenv(name)
    env = tmp_path / ".env"
    env.write_text(f"DISCORD_TOKEN={TOKEN}\nKARAK_DB={tmp_path}/k.db\nKARAK_TURN_TIMR=300\n"
                   "karak_threads=false\nKARAK_PLAYGROUND_PORT=8081\nKARAK_PG_PASSWORD=x\n",
                   encoding="utf-8")
    monkeypatch.setenv("KARAK_METRIC_PORT", "9464")
    monkeypatch.setenv("KARAK_DISCORD_OPENAPI", "/tmp/openapi.json")
    lines = unknown_settings(env_file=env)
    assert len(lines) == 3, lines
    for wrong, known in (("KARAK_TURN_TIMR", "KARAK_TURN_TIMER"),
                         ("karak_threads", "KARAK_THREADS"),
                         ("KARAK_METRIC_PORT", "KARAK_METRICS_PORT")):
        assert any(wrong in line and known in line for line in lines), (wrong, lines)
    assert "8081" not in "".join(lines) and "9464" not in "".join(lines)
    assert main(["--check", "--env-file", str(env)]) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 3 and "KARAK_TURN_TIMR" in err, err


def test_a_database_another_program_holds_locked_stops_the_bot_in_one_line(
        tmp_path: Path) -> None:
    """A SQLite file another program holds locked (a long transaction in the sqlite3 shell, a
    copy being made by hand) stops the bot with one line naming the setting and the file, as
    the admin's commands say it, not an unexpected error; the file is left as it was."""
    import sqlite3

    db = tmp_path / "karak.sqlite3"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE notes (id INTEGER)")
    con.close()
    locker = sqlite3.connect(db, isolation_level=None)
    try:
        locker.execute("BEGIN EXCLUSIVE")
        done = _run_bot(KARAK_DB=str(db))
    finally:
        locker.execute("ROLLBACK")
        locker.close()
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "KARAK_DB" in lines[0] and str(db) in lines[0] and "locked" in lines[0], lines
    with closing(sqlite3.connect(db)) as con:
        assert con.execute("PRAGMA user_version").fetchone() == (0,)  # nothing migrated


def test_a_database_file_in_a_folder_the_bot_cannot_write_is_refused(tmp_path: Path) -> None:
    """The database's folder must be writable, as the settings reference says (SQLite writes
    its ``-wal`` and ``-shm`` files beside the database, a backup and a restore theirs): a
    writable file in a folder the bot may not write to is refused at start in one line naming
    KARAK_DB, not an unexpected error once the bot opens it."""
    folder = Path(tempfile.mkdtemp(prefix="karak-ro-"))  # a path another user can reach
    try:
        db = folder / "karak.sqlite3"
        db.write_bytes(b"")
        db.chmod(0o666)
        folder.chmod(0o555)
        if os.geteuid() != 0:
            with pytest.raises(ConfigProblem) as info:
                load_settings({"DISCORD_TOKEN": TOKEN, "KARAK_DB": str(db)}, None)
            said = str(info.value)
        else:  # root writes through folder permissions: check as an unprivileged user
            if shutil.which("setpriv") is None:
                pytest.skip("running as root without setpriv: no unwritable folder to try")
            done = subprocess.run(
                ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                 sys.executable, "-m", "bot", "--check", "--env-file", os.devnull],
                cwd=Path(__file__).resolve().parents[2], capture_output=True, text=True,
                timeout=60, check=False,
                env={**{k: v for k, v in os.environ.items()
                        if not k.startswith("KARAK_") and k != "DISCORD_TOKEN"},
                     "DISCORD_TOKEN": TOKEN, "KARAK_DB": str(db)})
            assert done.returncode == 2, (done.stdout, done.stderr)
            said = done.stderr.strip()
        assert "KARAK_DB" in said and str(db) in said and "\n" not in said, said
    finally:
        folder.chmod(0o755)
        shutil.rmtree(folder)


def test_a_password_among_the_urls_parameters_is_never_shown(tmp_path: Path) -> None:
    """A PostgreSQL URL may carry its password as a parameter (``?password=...``): it is
    left out wherever the URL is shown, as the password before the ``@`` is (``--check``, the
    admin's lines), and out of the ``pg_dump`` and ``pg_restore`` commands printed."""
    from bot.storage.choice import shown
    from bot.storage.sqlite_backup import pg_dump_command, pg_restore_command

    url = "postgresql://karak@db.example/karak?sslmode=require&password=s3cret&port=5433"
    assert shown(url) == ("postgresql://karak@db.example/karak?sslmode=require&password=***"
                          "&port=5433")
    for command in (pg_dump_command(url, Path("k.dump")), pg_restore_command(url, Path("k.dump"))):
        assert "s3cret" not in command and "password" not in command, command
        assert "'postgresql://karak@db.example/karak?sslmode=require&port=5433'" in command
    done = subprocess.run([sys.executable, "-m", "bot", "--check", "--env-file", os.devnull],
                          cwd=Path(__file__).resolve().parents[2], capture_output=True,
                          text=True, timeout=60, check=False,
                          env={**{k: v for k, v in os.environ.items()
                                  if not k.startswith("KARAK_") and k != "DISCORD_TOKEN"},
                               "DISCORD_TOKEN": TOKEN, "KARAK_DB": url})
    assert done.returncode == 0, done.stderr
    assert "s3cret" not in done.stdout + done.stderr and "db.example" in done.stdout


def test_a_heartbeat_file_that_cannot_be_written_is_refused_at_start(tmp_path: Path) -> None:
    """``KARAK_HEARTBEAT`` naming a folder, or a file in a folder that does not exist, would
    let the bot start and then log a traceback every few seconds while the health check
    stays unhealthy: it is refused at start in one line naming the setting."""
    base = {"DISCORD_TOKEN": TOKEN, "KARAK_DB": str(tmp_path / "k.db")}
    for where in (tmp_path / "no" / "karak.alive", tmp_path):
        with pytest.raises(ConfigProblem) as info:
            load_settings({**base, "KARAK_HEARTBEAT": str(where)}, None)
        said = str(info.value)
        assert "KARAK_HEARTBEAT" in said and str(where) in said and "\n" not in said, said
    alive = tmp_path / "karak.alive"
    assert load_settings({**base, "KARAK_HEARTBEAT": str(alive)}, None).heartbeat == alive
    assert not alive.exists()  # written once the bot is connected, not by the check


def test_another_programs_sqlite_database_stops_the_bot_in_one_line(tmp_path: Path) -> None:
    """``KARAK_DB`` naming another program's SQLite database (tables, but no schema version of
    this bot) stops the bot with the line the admin's commands give such a file, exit status
    2: the bot would add its tables beside the other program's. The file is left byte for
    byte, and nothing is made beside it."""
    import sqlite3

    other = tmp_path / "photos.sqlite3"
    with closing(sqlite3.connect(other)) as con, con:
        con.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT)")
        con.execute("INSERT INTO photos (name) VALUES ('goblin.jpg')")
    before = other.read_bytes()
    done = _run_bot(KARAK_DB=str(other))
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "KARAK_DB" in lines[0] and str(other) in lines[0], lines
    assert "is a SQLite database, but not one of this bot" in lines[0], lines
    assert other.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["photos.sqlite3"]


@pytest.mark.parametrize("journal", ["wal", "delete"])
def test_a_newer_bots_sqlite_database_stops_the_bot_in_one_line_and_is_left_as_it_was(
        journal: str, tmp_path: Path) -> None:
    """A bot started on the database of a newer version of itself (a downgrade) says so in one
    line, exit status 2, and writes nothing: the file (in WAL mode as a bot leaves it, or one
    self-contained file as a backup is) is left byte for byte, nothing left beside it."""
    import sqlite3

    from bot.storage.sqlite_schema import SCHEMA_VERSION

    newer = tmp_path / "karak.sqlite3"
    with closing(sqlite3.connect(newer, isolation_level=None)) as con:
        con.execute(f"PRAGMA journal_mode={journal}")
        con.execute("CREATE TABLE tables (id INTEGER PRIMARY KEY)")
        con.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    before = newer.read_bytes()
    done = _run_bot(KARAK_DB=str(newer))
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "written by a newer version of the bot" in lines[0], lines
    assert f"schema {SCHEMA_VERSION + 1}" in lines[0], lines
    assert newer.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["karak.sqlite3"]


async def test_a_newer_bots_postgresql_database_stops_the_bot_in_one_line_and_is_left_as_it_was(
        postgres_server: Any) -> None:
    """The same downgrade on PostgreSQL: one line, exit status 2, and nothing written (no
    table made, no row inserted, updated or deleted)."""
    import asyncio

    import asyncpg

    from bot.storage import postgres_schema

    url = await postgres_server.new_database()
    db = await asyncpg.connect(url)
    try:  # on a connection of its own, which reports what it changed as it closes
        await postgres_schema.migrate(db)
        await db.execute("UPDATE schema_version SET version = version + 1")
    finally:
        await db.close()

    async def seen() -> list[tuple[object, ...]]:
        """Every relation of the database, its kind, the schema version and how many rows
        were ever inserted, updated or deleted in it."""
        db = await asyncpg.connect(url)
        try:
            return [tuple(r) for r in await db.fetch(
                "SELECT c.relname, c.relkind, (SELECT version FROM schema_version), "
                "COALESCE(s.n_tup_ins + s.n_tup_upd + s.n_tup_del, 0) "
                "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                "LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid "
                "WHERE n.nspname = current_schema() ORDER BY 1")]
        finally:
            await db.close()

    await asyncio.sleep(0.5)  # the setup's connection gone, its changes reported
    before = await seen()
    done = await asyncio.to_thread(_run_bot, KARAK_DB=url)
    await asyncio.sleep(1)  # the bot's connections gone, what they changed reported
    after = await seen()
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "written by a newer version of the bot" in lines[0], lines
    assert f"schema {postgres_schema.SCHEMA_VERSION + 1}" in lines[0], lines
    assert after == before


@pytest.mark.parametrize("line", [
    'KARAK_DB="{db}"  # the bot\'s database',
    "KARAK_DB='{db}' # the bot's database",
    "KARAK_DB={db}\t# the bot's database",
    "KARAK_DB=${{DATA_FOLDER}}/karak.sqlite3",
])
def test_the_admin_commands_and_the_playground_read_env_as_the_bot_does(
        line: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``.env`` is read by pydantic-settings for the bot and by :func:`read_env_file` for the
    admin commands, the playground and the check for mistyped names: a value quoted and then
    commented, a comment after a tab and a ``${NAME}`` give each of them the same value, so a
    backup or a restore never works on another file than the bot's."""
    from bot.process.admin import database

    for name in list(os.environ):
        if name.startswith("KARAK_") or name == "DISCORD_TOKEN":
            monkeypatch.delenv(name)
    monkeypatch.setenv("DATA_FOLDER", str(tmp_path))
    db = tmp_path / "karak.sqlite3"
    env = tmp_path / ".env"
    env.write_text(f"DISCORD_TOKEN={TOKEN}\n{line.format(db=db)}\n", encoding="utf-8")
    assert load_settings(env_file=env).db == str(db)
    assert read_env_file(env)["KARAK_DB"] == str(db)
    assert database(env) == str(db)


def test_the_check_refuses_a_database_file_as_the_start_would(tmp_path: Path) -> None:
    """``python -m bot --check`` looks at an existing SQLite file ``KARAK_DB`` names, read
    only, and refuses, in the start's own line and exit status 2, what the start refuses: a
    file that is no SQLite database, another program's database, a newer bot's. The bot's own
    database, and a file not made yet (the start makes it), pass; nothing is made or changed."""
    import sqlite3

    from bot.storage.sqlite_schema import SCHEMA_VERSION

    notes = tmp_path / "notes.txt"
    notes.write_text("not a database\n", encoding="utf-8")
    other = tmp_path / "photos.sqlite3"
    with closing(sqlite3.connect(other)) as con, con:
        con.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY)")
    newer = tmp_path / "newer.sqlite3"
    with closing(sqlite3.connect(newer)) as con, con:
        con.execute("CREATE TABLE tables (id INTEGER PRIMARY KEY)")
        con.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    ours = tmp_path / "karak.sqlite3"
    with closing(sqlite3.connect(ours)) as con, con:
        con.execute("CREATE TABLE tables (id INTEGER PRIMARY KEY)")
        con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    before = {path: path.read_bytes() for path in tmp_path.iterdir()}
    for path in (notes, other, newer):
        started = _run_bot(KARAK_DB=str(path))
        checked = _run_bot("--check", KARAK_DB=str(path))
        assert started.returncode == checked.returncode == 2, (path, checked)
        assert checked.stderr == started.stderr and checked.stderr.count("\n") == 1, checked
        assert checked.stdout == "", checked
    for path in (ours, tmp_path / "new.sqlite3"):
        checked = _run_bot("--check", KARAK_DB=str(path))
        assert checked.returncode == 0 and checked.stderr == "", checked
        assert checked.stdout == f"Settings are fine; the database is {path}.\n"
    assert {path: path.read_bytes() for path in tmp_path.iterdir()} == before


def test_an_env_file_named_on_the_command_line_that_is_not_there_is_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--env-file`` naming no file (a typo) stops the bot and the admin commands with one
    line naming it, exit status 2: read as empty, it made the bot say that no DISCORD_TOKEN was
    set and the admin commands look for the default database, while the token and KARAK_DB
    were in the file meant. Without ``--env-file``, a missing ``.env`` is no problem (the
    settings may all be in the environment)."""
    from bot.process.admin import main as admin_main

    missing = tmp_path / "bot.envv"
    said = (f"There is no file {missing} (--env-file): give the path of the bot's .env file, "
            "or leave --env-file out to read .env in the current folder.\n")
    done = subprocess.run([sys.executable, "-m", "bot", "--env-file", str(missing), "--check"],
                          cwd=Path(__file__).resolve().parents[2], capture_output=True,
                          text=True, timeout=60, check=False,
                          env={**os.environ, "DISCORD_TOKEN": TOKEN,
                               "KARAK_DB": str(tmp_path / "k.db")})
    assert done.returncode == 2 and done.stderr == said and done.stdout == "", done
    assert admin_main(["--env-file", str(missing), "ratings", "--recompute"]) == 2
    out = capsys.readouterr()
    assert out.err == said and out.out == "", out
    done = subprocess.run([sys.executable, "-m", "bot", "--check"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60, check=False,
                          env={**os.environ, "DISCORD_TOKEN": TOKEN,
                               "KARAK_DB": str(tmp_path / "k.db"),
                               "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    assert done.returncode == 0, done
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_the_run_command_never_opens_the_playground_for_an_env_file_not_there(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``python3 scripts/dev.py run --env-file FILE`` with no such file says so, as the bot
    does, instead of opening the playground as if the token were not set."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "dev", Path(__file__).resolve().parents[2] / "scripts" / "dev.py")
    assert spec is not None and spec.loader is not None
    dev = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(dev)  # the launcher of ``scripts/dev.py run``
    for name in list(os.environ):
        if name.startswith("KARAK_") or name == "DISCORD_TOKEN":
            monkeypatch.delenv(name)
    import playground.app

    opened: list[Path | None] = []

    def playground_main(env_file: Path | None = None) -> int:
        opened.append(env_file)
        return 0

    monkeypatch.setattr(playground.app, "main", playground_main)
    missing = tmp_path / "bot.envv"
    assert dev.launch(["--env-file", str(missing)]) == 2
    assert opened == []
    assert capsys.readouterr().err == (
        f"There is no file {missing} (--env-file): give the path of the bot's .env file, or "
        "leave --env-file out to read .env in the current folder.\n")


@pytest.mark.parametrize("journal", ["wal", "delete"])
def test_a_full_disk_at_start_stops_the_bot_in_one_line(journal: str, tmp_path: Path) -> None:
    """A bot started (or restarted by its container manager) while the disk holding its
    database is full cannot open it (SQLite makes its ``-wal`` and ``-shm`` files beside it,
    and switches a backup just restored to WAL): one line says the disk is full and to free
    space, exit status 2, not an unexpected error, and the database is left as it was (SQLite
    says ``database or disk is full``, or, growing its ``-shm``, ``disk I/O error``)."""
    import sqlite3

    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("a full disk is a small file system mounted as root in a mount namespace")
    db = tmp_path / "karak.sqlite3"
    with closing(sqlite3.connect(db, isolation_level=None)) as con:
        con.execute(f"PRAGMA journal_mode={journal}")
        con.execute("CREATE TABLE tables (id INTEGER PRIMARY KEY, note BLOB)")
        con.execute("INSERT INTO tables (note) VALUES (zeroblob(100000))")
        con.execute("PRAGMA user_version = 1")
    disk = tmp_path / "disk"
    disk.mkdir()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("KARAK_") and k != "DISCORD_TOKEN"}
    env.update({"DISCORD_TOKEN": TOKEN, "KARAK_DB": str(disk / "karak.sqlite3"),
                "KARAK_API_BASE": "http://127.0.0.1:1", "KARAK_GATEWAY_URL": "ws://127.0.0.1:1"})
    done = subprocess.run(
        ["unshare", "--mount", "sh", "-c",
         'mount -t tmpfs -o size=200k tmpfs "$1" && cp "$2" "$1/" && '
         '(dd if=/dev/zero of="$1/filler" bs=1k count=400 2>/dev/null; true) && '
         'shift 2 && "$@"; status=$?; '  # then the file compared with the one copied in
         'cmp -s "$(dirname "$0")/karak.sqlite3" "$KARAK_DB" && echo unchanged; exit $status',
         str(tmp_path / "x"), str(disk), str(db), sys.executable, "-m", "bot", "--env-file",
         os.devnull],
        cwd=Path(__file__).resolve().parents[2], env=env, capture_output=True, text=True,
        timeout=120, check=False)
    if "mount" in done.stderr and "karak" not in done.stderr:
        pytest.skip(f"cannot mount a small file system here: {done.stderr.strip()}")
    assert done.returncode == 2, done
    assert done.stderr == (f"KARAK_DB: the disk holding {disk / 'karak.sqlite3'} is full or "
                           "failing, so the database cannot be opened: free some space on that "
                           "disk (or check it), then start the bot again (nothing was "
                           "changed).\n"), done
    assert done.stdout == "unchanged\n", done
