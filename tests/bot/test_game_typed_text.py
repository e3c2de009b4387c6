"""Text people give (a display name, a tournament's name typed in /goblin tournament new)
through the game service on both backends: a NUL or another control character, which
SQLite would keep and PostgreSQL refuses, is left out where the text enters the bot, so the
same name is kept on either database and nobody gets an error for it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from bot_helpers import Clock
from storage.backends import Backend, PostgresBackend, SqliteBackend

from bot.game.service import GameService
from bot.storage.interface import Storage

GUILD, CHANNEL = 9, 500


@pytest.fixture(params=("sqlite", "postgres"))
async def store(request: pytest.FixtureRequest, tmp_path: Path,
                clock: Clock) -> AsyncIterator[Storage]:
    """An open store on each backend."""
    backend: Backend = (PostgresBackend(request.getfixturevalue("postgres_server"))
                        if request.param == "postgres"
                        else SqliteBackend(tmp_path / "karak.sqlite3"))
    opened = await backend.open(clock)
    yield opened
    await opened.close()


async def test_control_characters_in_names_are_left_out_on_both_backends(
        store: Storage, clock: Clock) -> None:
    service = GameService(store, clock=clock, seeds=iter(range(1000, 2000)).__next__)
    lobby = await service.lobby.create(guild_id=GUILD, channel_id=CHANNEL, host_id=1,
                                       host_name="An\x00n\x07")
    lobby = await service.lobby.join(lobby.id, 2, "\x00Bob\x1b[31m")
    assert [s.name for s in lobby.seats] == ["Ann", "Bob[31m"]
    assert [s.name for s in (await service.tables.load(lobby.id)).seats] == ["Ann", "Bob[31m"]
    cup = await service.tournaments.create(guild_id=GUILD, channel_id=CHANNEL, host_id=1,
                                           name="Goblin\x00 Cup\x00")
    assert cup.name == "Goblin Cup"
    await service.tournaments.join(cup.id, 1, "An\x00n")
    rows = await store.tournament_rows(cup.id)
    assert rows is not None and [e.name for e in rows.entrants] == ["Ann"]
