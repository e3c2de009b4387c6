"""The bot's logging at DEBUG: storage work on a real SQLite file leaves no saved state, hand or
generator value in the log (aiosqlite would log every statement's parameters)."""
from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.game.places import Place
from bot.process.app import setup_logging
from bot.process.settings import load_settings
from bot.storage.records import SeatInfo, storable
from bot.storage.sqlite import Store
from engine.setup import new_game
from engine.state import GameConfig, SeatConfig

TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GaBcDe.abcdefghijklmnopqrstuvwxyz012345"


class Kept(logging.Handler):
    """Keeps the text of every record that reaches the root logger."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.name} {record.getMessage()}")


@pytest.fixture
def kept() -> Iterator[Kept]:
    """The bot's logging set up at DEBUG, with every record kept; the logging state is restored
    afterwards."""
    root = logging.getLogger()
    saved = (root.handlers[:], root.level,
             {n: logging.getLogger(n).level for n in ("discord", "aiosqlite")})
    handler = Kept()
    try:
        yield handler
    finally:
        root.handlers[:], root.level = saved[0], saved[1]
        for name, level in saved[2].items():
            logging.getLogger(name).setLevel(level)


async def test_no_saved_state_reaches_the_log_at_debug(tmp_path: Path, kept: Kept) -> None:
    settings = load_settings({"DISCORD_TOKEN": TOKEN, "KARAK_DB": str(tmp_path / "k.db"),
                              "KARAK_LOG_LEVEL": "DEBUG"}, env_file=None)
    setup_logging(settings)
    logging.getLogger().addHandler(kept)
    logging.getLogger("karak.bot").debug("debug lines are shown")
    state = new_game(GameConfig(seats=(SeatConfig("horan"), SeatConfig("taia")), seed=3))
    store = await Store.open(settings.db)
    try:
        seats = [SeatInfo(user=1, hero="horan"), SeatInfo(user=2, hero="taia")]
        table = await store.create_table(guild_id=5, place_key=Place.of(5, 1).key,
                                         channel_id=6, host_id=1, seats=seats,
                                         abilities=False, timer=0, seed=3)
        await store.start_game(table.id, seats, state, None)  # the state is a parameter
    finally:
        await store.close()
    text = "\n".join(kept.lines)
    assert "debug lines are shown" in text  # DEBUG is really on
    assert storable(state)[:40] not in text and str(state.rng) not in text
    for seat in state.seats:
        assert seat.hand and json.dumps(list(seat.hand)) not in text
        assert repr(seat.hand)[1:-1] not in text
    assert TOKEN not in text


@pytest.mark.parametrize("log_format", ["text", "json"])
def test_the_token_is_written_as_hidden_in_messages_and_tracebacks(
        tmp_path: Path, kept: Kept, capsys: pytest.CaptureFixture[str], log_format: str) -> None:
    """A line, a traceback or a stack that would show the token shows ``[token]`` in its place,
    and the rest of it is still logged: an admin reads what went wrong, never the token."""
    settings = load_settings({"DISCORD_TOKEN": TOKEN, "KARAK_DB": str(tmp_path / "k.db"),
                              "KARAK_LOG_FORMAT": log_format}, env_file=None)
    setup_logging(settings)
    log = logging.getLogger("karak.bot")
    log.warning("sent with %s", TOKEN)
    try:
        raise RuntimeError(f"refused: Bot {TOKEN}")
    except RuntimeError:
        log.exception("the gateway failed")
    log.warning("where %s", "it was", stack_info=True, extra={"note": TOKEN})
    text = capsys.readouterr().err
    assert TOKEN not in text
    assert "sent with [token]" in text
    assert "the gateway failed" in text and "refused: Bot [token]" in text
    assert "RuntimeError" in text and "where it was" in text
