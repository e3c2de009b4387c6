"""Logs an admin can read: ``KARAK_LOG_FORMAT=json`` writes one JSON object a line (time, level,
logger, table and guild when the line is about one, message), the default stays readable text,
and a bad value stops the bot with one line."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest

from bot.process.app import main, setup_logging
from bot.process.settings import ConfigProblem, Settings, load_settings
from bot.supervision.log_context import about

TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GaBcDe.abcdefghijklmnopqrstuvwxyz012345"


def settings(tmp_path: Path, **values: str) -> Settings:
    return load_settings({"DISCORD_TOKEN": TOKEN, "KARAK_DB": str(tmp_path / "k.sqlite3"),
                          **values}, env_file=None)


@pytest.fixture
def root_logging() -> Iterator[None]:
    """setup_logging replaces the root logger's handlers: put pytest's back afterwards."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        yield
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)


def lines(text: str) -> list[dict[str, object]]:
    """Each line of ``text`` parsed as one JSON object."""
    out = [json.loads(line) for line in text.splitlines()]
    assert all(isinstance(item, dict) for item in out)
    return out


@pytest.mark.usefixtures("root_logging")
def test_json_lines_with_and_without_table_and_guild(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    setup_logging(settings(tmp_path, KARAK_LOG_FORMAT="json"))
    log = logging.getLogger("karak.test")
    log.info("connected as %s", "Karak")
    with about(table=7, guild=42):
        log.warning("could not edit the table message of table %s", 7)
        with about(table=8):
            log.info("inner")
    log.error("passed by hand", extra={"table": 3, "guild": 5})
    try:
        raise ValueError("a \"quoted\"\nmulti-line problem")
    except ValueError:
        log.exception("failed")
    out = lines(capsys.readouterr().err)
    assert [line["message"] for line in out] == [
        "connected as Karak", "could not edit the table message of table 7", "inner",
        "passed by hand", "failed"]
    first = out[0]
    assert set(first) == {"time", "level", "logger", "message"}
    assert first["level"] == "INFO" and first["logger"] == "karak.test"
    assert datetime.fromisoformat(str(first["time"])).utcoffset() is not None
    assert (out[1]["table"], out[1]["guild"], out[1]["level"]) == (7, 42, "WARNING")
    assert (out[2]["table"], out[2]["guild"]) == (8, 42)
    assert (out[3]["table"], out[3]["guild"]) == (3, 5)
    assert "table" not in out[4] and 'ValueError: a "quoted"' in str(out[4]["exception"])


@pytest.mark.usefixtures("root_logging")
async def test_a_task_started_about_a_table_logs_about_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    setup_logging(settings(tmp_path, KARAK_LOG_FORMAT="JSON"))
    log = logging.getLogger("karak.test")

    async def later() -> None:
        await asyncio.sleep(0)
        log.info("from the task")

    with about(table=11):
        task = asyncio.get_running_loop().create_task(later())
    log.info("outside")
    await task
    out = {line["message"]: line for line in lines(capsys.readouterr().err)}
    assert out["from the task"]["table"] == 11 and "table" not in out["outside"]


@pytest.mark.usefixtures("root_logging")
def test_text_stays_the_default(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    chosen = settings(tmp_path)
    assert chosen.log_format == "text"
    setup_logging(chosen)
    with about(table=7, guild=42):
        logging.getLogger("karak.test").warning("plain %s", "words")
    err = capsys.readouterr().err
    assert err.rstrip().endswith("WARNING karak.test: plain words") and "{" not in err


def test_a_bad_format_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ConfigProblem) as info:
        settings(tmp_path, KARAK_LOG_FORMAT="xml")
    assert str(info.value) == "KARAK_LOG_FORMAT must be text or json."
    env = tmp_path / ".env"
    env.write_text(f"DISCORD_TOKEN={TOKEN}\nKARAK_DB={tmp_path / 'k.sqlite3'}\n"
                   "KARAK_LOG_FORMAT=yaml\n")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        patch.delenv("KARAK_LOG_FORMAT", raising=False)
        assert main(["--check"]) == 2
    assert capsys.readouterr().err == "KARAK_LOG_FORMAT must be text or json.\n"
