"""A lobby its host walked away from: left a day without any change (a seat taken or left, an
AI seat, a hero; a slow match's lobby, a turn's time when that is longer), the bot's timer pass
closes it as a cancelled lobby is closed, its message saying why in the table's language, and
the channel is free for a new one; a lobby changed within the day stays open, and so does one
another process holds (it closes its own)."""
from __future__ import annotations

from typing import Any

from bot_helpers import Clock
from live_bot import CHANNEL, LiveBot, table_id
from players import ANN, BOB, EVE

from bot.discord_side.ui.custom_ids import HeroMenu, LobbyButton
from bot.game.lobby import LOBBY_IDLE
from i18n import translate

LAPSED = "This lobby closed after a day without a start."


async def test_a_lobby_left_a_day_closes_and_frees_its_channel(bot: LiveBot,
                                                               clock: Clock) -> None:
    await bot.command(ANN, "new")
    lobby = bot.public()[-1]
    tid = table_id(lobby)
    clock.now += LOBBY_IDLE - 60
    await bot.click(BOB, lobby, LobbyButton.id_for(tid, "join", None))  # a change
    clock.now += 120  # a day since it opened, not since Bob joined
    await bot.bot.scheduler._timer_pass()
    await bot.settle()
    assert (await bot.bot.service.tables.load(tid)).status == "lobby"
    assert LobbyButton.id_for(tid, "start", 1) in bot.message(lobby).custom_ids()
    clock.now += 3600
    await bot.choose(BOB, lobby, HeroMenu.id_for(tid), ["taia"])  # a change again
    clock.now += LOBBY_IDLE - 1
    await bot.bot.scheduler._timer_pass()
    await bot.settle()
    assert (await bot.bot.service.tables.load(tid)).status == "lobby"
    clock.now += 1  # a day since the hero was picked
    await bot.bot.scheduler._timer_pass()
    await bot.settle()
    closed = await bot.bot.service.tables.load(tid)
    assert closed.status == "abandoned"
    shown = bot.message(lobby)
    assert not shown.custom_ids()
    assert LAPSED in shown.text() and "was cancelled" not in shown.text()
    assert f"<@{BOB.id}>" in shown.text()  # the lobby as it was left
    assert await bot.store.active_in_channel(CHANNEL) is None
    await bot.command(EVE, "new")  # the channel takes a new lobby
    fresh = bot.public()[-1]
    assert fresh.id != lobby.id and table_id(fresh) != tid
    assert (await bot.bot.service.tables.in_channel(CHANNEL)).status == "lobby"
    assert bot.message(lobby).text() == shown.text()  # the closed lobby is left alone


async def test_a_cancelled_lobby_still_says_it_was_cancelled(bot: LiveBot,
                                                             clock: Clock) -> None:
    await bot.command(ANN, "new")
    lobby = bot.public()[-1]
    clock.now += 2 * LOBBY_IDLE  # the timer pass never ran (the bot was stopped)
    await bot.click(ANN, lobby, LobbyButton.id_for(table_id(lobby), "cancel", None))
    assert "This table was cancelled." in bot.message(lobby).text()
    assert LAPSED not in bot.message(lobby).text()


async def test_the_closed_lobby_speaks_the_table_s_language(bot: LiveBot,
                                                           clock: Clock) -> None:
    bot.guild.locale = "cs"
    await bot.command(ANN, "new")
    lobby = bot.public()[-1]
    clock.now += LOBBY_IDLE
    await bot.bot.scheduler._timer_pass()
    await bot.settle()
    assert translate("bot.lobby.lapsed", "cs") in bot.message(lobby).text()
    assert not bot.message(lobby).custom_ids()


async def test_a_start_that_lost_the_race_to_the_close_is_refused(bot: LiveBot, clock: Clock,
                                                                 monkeypatch: Any) -> None:
    await bot.command(ANN, "new")
    lobby = bot.public()[-1]
    tid = table_id(lobby)
    await bot.click(ANN, lobby, LobbyButton.id_for(tid, "ai", 0))
    clock.now += LOBBY_IDLE
    start_game = bot.store.start_game

    async def closed_first(table: int, *args: Any, **kwargs: Any) -> None:
        """Another process closes the lobby between the Start's read and its write."""
        assert await bot.store.close_idle_lobby(table, 1, clock.now - LOBBY_IDLE, clock.now)
        await start_game(table, *args, **kwargs)

    monkeypatch.setattr(bot.store, "start_game", closed_first)
    ix = await bot.click(ANN, lobby, LobbyButton.id_for(tid, "start", 1))
    assert "not taking seats any more" in " ".join(bot.said(ix))
    assert (await bot.bot.service.tables.load(tid)).status == "abandoned"
    assert LAPSED in bot.message(lobby).text() and not bot.message(lobby).custom_ids()


async def test_a_join_that_lost_the_race_to_the_close_is_refused(bot: LiveBot, clock: Clock,
                                                                monkeypatch: Any) -> None:
    await bot.command(ANN, "new")
    lobby = bot.public()[-1]
    tid = table_id(lobby)
    clock.now += LOBBY_IDLE
    update_lobby = bot.store.update_lobby

    async def closed_first(table: int, *args: Any, **kwargs: Any) -> None:
        """Another process closes the lobby between the Join's read and its write."""
        assert await bot.store.close_idle_lobby(table, 0, clock.now - LOBBY_IDLE, clock.now)
        await update_lobby(table, *args, **kwargs)

    monkeypatch.setattr(bot.store, "update_lobby", closed_first)
    ix = await bot.click(BOB, lobby, LobbyButton.id_for(tid, "join", None))
    assert "not taking seats any more" in " ".join(bot.said(ix))
    closed = await bot.bot.service.tables.load(tid)
    assert closed.status == "abandoned" and closed.seat_of(BOB.id) is None
    assert LAPSED in bot.message(lobby).text() and not bot.message(lobby).custom_ids()
    assert f"<@{BOB.id}>" not in bot.message(lobby).text()


async def test_a_slow_match_s_lobby_waits_a_turn_s_time(bot: LiveBot, clock: Clock) -> None:
    """The lobby of a slow match (three days a turn): its people join at that pace, as they
    answer a rematch offer, so a day without a change does not close it; its buttons and its
    Start still work then. Left a whole turn's time without one, it closes, saying how long."""
    await bot.command(ANN, "new", timer=259200)  # three days a turn
    lobby = bot.public()[-1]
    tid = table_id(lobby)
    clock.now += 2 * LOBBY_IDLE  # two days: nobody came yet
    await bot.bot.scheduler._timer_pass()
    await bot.settle()
    assert (await bot.bot.service.tables.load(tid)).status == "lobby"
    assert LobbyButton.id_for(tid, "join", 0) in bot.message(lobby).custom_ids()
    clock.now += 3 * LOBBY_IDLE - 1  # almost three days since
    await bot.click(BOB, lobby, LobbyButton.id_for(tid, "join", None))
    await bot.bot.scheduler._timer_pass()
    await bot.settle()
    assert (await bot.bot.service.tables.load(tid)).status == "lobby"
    clock.now += 3 * LOBBY_IDLE  # three days since Bob joined
    await bot.bot.scheduler._timer_pass()
    await bot.settle()
    assert (await bot.bot.service.tables.load(tid)).status == "abandoned"
    shown = bot.message(lobby)
    assert not shown.custom_ids()
    assert "This lobby closed after 3 days (a turn's time) without a start." in shown.text()


async def test_a_slow_match_s_lobby_starts_after_a_day(bot: LiveBot, clock: Clock) -> None:
    """Bob joins a slow match's lobby, and its host comes back to start it two days later."""
    await bot.command(ANN, "new", timer=259200)  # three days a turn
    lobby = bot.public()[-1]
    tid = table_id(lobby)
    await bot.click(BOB, lobby, LobbyButton.id_for(tid, "join", None))
    clock.now += 2 * LOBBY_IDLE
    await bot.bot.scheduler._timer_pass()
    await bot.settle()
    await bot.click(ANN, lobby, LobbyButton.id_for(tid, "start", 1))
    assert (await bot.bot.service.tables.load(tid)).status == "running"
