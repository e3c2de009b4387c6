"""Clicks on a copy of a lobby (the private lobby /goblin status shows): the change is made,
and the lobby message in the channel shows it, as a click on it would."""
from __future__ import annotations

from live_bot import LiveBot, table_id
from players import ANN, BOB

from bot.discord_side.ui.custom_ids import HeroMenu, LobbyButton


async def test_a_join_on_the_status_copy_shows_on_the_lobby_message(bot: LiveBot) -> None:
    await bot.command(ANN, "new")
    lobby = bot.public()[-1]
    tid = table_id(lobby)
    ix = await bot.command(BOB, "status")
    copy = bot.reply(ix)
    assert copy.ephemeral and f"<@{BOB.id}>" not in copy.text()
    await bot.click(BOB, copy, LobbyButton.id_for(tid, "join", None))
    record = await bot.bot.service.tables.load(tid)
    assert [s.user for s in record.seats] == [ANN.id, BOB.id]
    assert f"<@{BOB.id}>" in bot.message(lobby).text()  # the channel's lobby shows him


async def test_a_hero_picked_on_the_status_copy_shows_on_the_lobby_message(
        bot: LiveBot) -> None:
    await bot.command(ANN, "new")
    lobby = bot.public()[-1]
    tid = table_id(lobby)
    copy = bot.reply(await bot.command(ANN, "status"))
    await bot.choose(ANN, copy, HeroMenu.id_for(tid), ["taia"])
    assert "Taia" in bot.message(copy).text().split("\n")[1]
    assert "Taia" in bot.message(lobby).text().split("\n")[1]


async def test_a_join_on_the_copy_of_a_deleted_lobby_posts_it_again(bot: LiveBot) -> None:
    """A moderator deleted the lobby message: Bob joins on the lobby /goblin status showed
    him, and the lobby is posted again in the channel, with him seated."""
    await bot.command(ANN, "new")
    lobby = bot.public()[-1]
    tid = table_id(lobby)
    copy = bot.reply(await bot.command(BOB, "status"))
    bot.lb.delete_message(lobby)
    await bot.click(BOB, copy, LobbyButton.id_for(tid, "join", None))
    [again] = bot.public()
    assert again.id != lobby.id and f"<@{BOB.id}>" in again.text()
    assert (await bot.bot.service.tables.load(tid)).lobby_message_id == again.id
