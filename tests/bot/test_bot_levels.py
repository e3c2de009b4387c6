"""The level of each AI seat: picked by the host in the lobby (and nobody else), defaulted by
/goblin new and the server's settings, shown in the lobby and on the table, and normal for a
seat the AI takes over after timeouts. The real bot on the loopback stand-in."""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from bot_helpers import Clock, normal_instead
from live_bot import CHANNEL, GUILD, Call, LiveBot, component, table_id
from players import ADMIN, ANN, BOB, EVE, TinyRenderer, forged_message, raw_click
from storage.backends import SqliteBackend

from bot.discord_side.ui.custom_ids import LevelMenu, LobbyButton
from bot.discord_side.ui.table import header
from bot.game.refusals import Damaged
from bot.game.service import GameService
from bot.storage.records import ServerDefaults
from bot.storage.sqlite import Store
from bot.workers.thinking import Thinking
from engine import Action, Observation, observe
from loopback import Loopback, Message


@pytest.fixture
async def quick(lb: Loopback, calls: list[Call], tmp_path: Path,
                clock: Clock) -> AsyncIterator[LiveBot]:
    """The bot, its hard seats deciding at normal level in a thread (quick games)."""
    live = await LiveBot.start(lb, tmp_path / "k.db", TinyRenderer(), clock=clock,
                               thinking=Thinking(workers=0, work=normal_instead))
    yield live
    await live.stop()


def level_menus(lobby: Message) -> dict[int, dict[str, Any]]:
    """seat index -> its level menu in a lobby message."""
    return {int(c["custom_id"].split(":")[3]): c for c in lobby.items()
            if str(c.get("custom_id", "")).startswith(LevelMenu.prefix)}


def picked(menu: dict[str, Any]) -> list[str]:
    return [o["value"] for o in menu["options"] if o.get("default")]


async def lobby_with_ai(h: LiveBot, seats: int = 2, **options: Any) -> tuple[int, Message]:
    """Ann opens a lobby (``options`` of /goblin new), Bob joins, Ann adds ``seats`` AI seats."""
    await h.command(ANN, "new", **options)
    lobby = h.public()[-1]
    tid = table_id(lobby)
    await h.click(BOB, lobby, LobbyButton.id_for(tid, "join", None))
    for _ in range(seats):
        await h.click(ANN, lobby, LobbyButton.id_for(tid, "ai", None))
    return tid, h.message(lobby)


async def test_the_host_picks_each_ai_seat_s_level(quick: LiveBot) -> None:
    tid, lobby = await lobby_with_ai(quick)
    menus = level_menus(lobby)
    assert sorted(menus) == [2, 3]  # one menu per AI seat, none for people
    assert all(picked(m) == ["normal"] for m in menus.values())  # the default
    assert [o["value"] for o in menus[2]["options"]] == ["easy", "normal", "hard"]
    assert "3. AI (normal)" in lobby.text()
    await quick.choose(ANN, lobby, menus[3]["custom_id"], ["hard"])
    await quick.choose(ANN, lobby, level_menus(quick.message(lobby))[2]["custom_id"], ["easy"])
    rec = await quick.bot.service.tables.load(tid)
    assert [s.level for s in rec.seats if s.ai] == ["easy", "hard"]
    lobby = quick.message(lobby)
    assert "3. AI (easy)" in lobby.text() and "4. AI (hard)" in lobby.text()
    assert picked(level_menus(lobby)[3]) == ["hard"]
    await quick.click(ANN, lobby, LobbyButton.id_for(tid, "start", None))
    rec = await quick.bot.service.tables.load(tid)
    assert rec.status == "running"
    assert [(s.ai, s.level) for s in rec.seats][2:] == [(True, "easy"), (True, "hard")]


async def test_only_the_host_sets_a_level(quick: LiveBot) -> None:
    tid, lobby = await lobby_with_ai(quick, seats=1)
    menu = level_menus(lobby)[2]["custom_id"]
    for who in (BOB, EVE):  # a seated player, a stranger
        ix = await quick.choose(who, lobby, menu, ["hard"])
        assert "Only the host can choose the level of an AI seat." in quick.said(ix)
    rec = await quick.bot.service.tables.load(tid)
    assert rec.seats[2].level == "normal" and picked(level_menus(quick.message(lobby))[2]) \
        == ["normal"]  # the menu is drawn again with the real level


async def test_a_level_menu_of_an_older_lobby_changes_nothing(quick: LiveBot) -> None:
    tid, lobby = await lobby_with_ai(quick, seats=1)
    old = copy.deepcopy(lobby)  # the lobby as someone's screen still shows it
    await quick.click(ANN, lobby, LobbyButton.id_for(tid, "unai", None))  # seat 3 is gone...
    await quick.click(ANN, lobby, LobbyButton.id_for(tid, "ai", None))  # ...and back
    ix = await quick.choose(ANN, old, level_menus(old)[2]["custom_id"], ["hard"])
    assert any("changed in the meantime" in t for t in quick.said(ix))
    assert (await quick.bot.service.tables.load(tid)).seats[2].level == "normal"


async def test_forged_level_menus_get_a_clear_answer(quick: LiveBot) -> None:
    tid, lobby = await lobby_with_ai(quick, seats=1)
    rev = (await quick.bot.service.tables.load(tid)).revision

    async def forged(custom_id: str, values: list[str] | None = None, kind: int = 3) -> str:
        planted = forged_message(quick, ANN, custom_id, kind, ephemeral=False)
        return " ".join(await raw_click(quick, ANN, planted, custom_id, kind, values))

    assert "not one this menu offers" in await forged(LevelMenu.id_for(tid, 2, rev), ["godlike"])
    assert "not an AI seat" in await forged(LevelMenu.id_for(tid, 0, rev), ["hard"])  # Ann's seat
    assert "not an AI seat" in await forged(LevelMenu.id_for(tid, 3, rev), ["hard"])  # no seat 4
    assert "exactly one" in await forged(LevelMenu.id_for(tid, 2, rev), ["hard", "easy"])
    for damaged in (f"kg:level:{tid}:9:{rev}", f"kg:level:{tid}:x:{rev}", f"kg:level:{tid}:2"):
        assert "damaged" in await forged(damaged, ["hard"])
    assert "damaged" in await forged(LevelMenu.id_for(tid, 2, rev), kind=2)  # through a button
    rec = await quick.bot.service.tables.load(tid)
    assert [s.level for s in rec.seats] == ["normal"] * 3 and rec.revision == rev


async def test_new_and_the_server_settings_set_the_default_level(quick: LiveBot) -> None:
    ix = await quick.command(EVE, "settings", ai_level="easy")  # not an admin
    assert any("Only server admins" in t for t in quick.said(ix))
    assert await quick.store.guild_settings(GUILD) is None
    ix = await quick.command(ADMIN, "settings", ai_level="easy")
    assert any("AI level: easy" in t for t in quick.said(ix))
    assert await quick.bot.service.servers.defaults(GUILD) == ServerDefaults(False, 0, "easy")
    tid, lobby = await lobby_with_ai(quick, seats=1)  # the server's default
    assert "The next AI seat added starts at the easy level" in lobby.text()
    assert "3. AI (easy)" in lobby.text()
    await quick.command(ANN, "abandon")
    tid, lobby = await lobby_with_ai(quick, seats=1, ai_level="hard")  # the option wins
    assert "3. AI (hard)" in lobby.text()
    assert (await quick.bot.service.tables.load(tid)).ai_level == "hard"
    await quick.command(ADMIN, "settings", timer=60)  # other settings keep the level
    assert await quick.bot.service.servers.defaults(GUILD) == ServerDefaults(False, 60, "easy")


@pytest.mark.parametrize("sub", ["new", "settings"])
async def test_a_forged_level_option_is_refused(quick: LiveBot, sub: str) -> None:
    for value in ("godlike", 3):
        ix = await quick.command(ADMIN, sub, forge=True, ai_level=value)
        texts = quick.said(ix)
        assert any("not one this command accepts" in t for t in texts), texts
    assert await quick.store.guild_settings(GUILD) is None
    assert await quick.store.active_in_channel(CHANNEL) is None


async def test_the_level_options_are_translated(quick: LiveBot, calls: list[Call]) -> None:
    sync = next(c for c in calls if c.method == "PUT")
    group = next(c for c in sync.body if c["name"] == "goblin")
    new = next(o for o in group["options"] if o["name"] == "new")
    option = next(o for o in new["options"] if o["name"] == "ai_level")
    assert option["name_localizations"]["fr"] == "niveau_ia"
    assert [c["value"] for c in option["choices"]] == ["easy", "normal", "hard"]
    assert [c["name_localizations"]["fr"] for c in option["choices"]] == [
        "Facile", "Normal", "Difficile"]
    assert option["choices"][2]["name_localizations"]["cs"] == "Těžká"


async def test_the_table_shows_each_ai_seat_s_level(quick: LiveBot) -> None:
    tid, lobby = await lobby_with_ai(quick)
    await quick.choose(ANN, lobby, level_menus(lobby)[3]["custom_id"], ["hard"])
    await quick.click(ANN, lobby, LobbyButton.id_for(tid, "start", None))
    rec = await quick.bot.service.tables.load(tid)
    names = [s.name for s in observe(rec.game, 0).seats]
    text = quick.last_table_message().text()
    assert f"AI: {names[2]} (normal), {names[3]} (hard)" in text
    obs = observe(rec.game, 0)
    assert (f"Niveau des IA\u00a0: {names[2]} (normal), {names[3]} (difficile)"
            in header(rec, obs, "fr"))
    assert f"Obtížnost AI: {names[2]} (běžná), {names[3]} (těžká)" in header(rec, obs, "cs")


async def test_a_seat_taken_over_after_timeouts_plays_at_normal(quick: LiveBot,
                                                                clock: Clock) -> None:
    asked: list[tuple[int, str]] = []
    thinking = quick.bot.service.thinking
    choose = thinking.choose

    async def recording(level: str, seed: int, obs: Observation) -> Action:
        assert obs.viewer is not None
        asked.append((obs.viewer, level))
        return await choose(level, seed, obs)

    thinking.choose = recording  # type: ignore[method-assign]
    await quick.command(ANN, "new", timer=60, ai_level="hard")  # AI seats are hard here
    lobby = quick.public()[-1]
    tid = table_id(lobby)
    await quick.click(ANN, lobby, LobbyButton.id_for(tid, "ai", None))
    await quick.click(ANN, lobby, LobbyButton.id_for(tid, "start", None))
    for _ in range(2):
        rec = await quick.bot.service.tables.load(tid)
        assert rec.deadline is not None and not rec.seats[rec.game.current].ai
        clock.now = rec.deadline + 1
        await quick.bot.scheduler.check_timers()
        await quick.settle()
    rec = await quick.bot.service.tables.load(tid)
    assert [(s.ai, s.level) for s in rec.seats] == [(True, "normal"), (True, "hard")]
    assert {level for seat, level in asked if seat == 0} == {"normal"}
    assert {level for seat, level in asked if seat == 1} == {"hard"}
    assert rec.status == "finished"  # both seats the AI's: it played to the end


async def test_a_damaged_level_damages_one_table_only(service: GameService, store: Store,
                                                      tmp_path: Path) -> None:
    database = SqliteBackend(tmp_path / "karak.sqlite3")  # the store fixture's file
    one = await service.lobby.create(guild_id=GUILD, channel_id=1, host_id=1, host_name="Ann")
    two = await service.lobby.create(guild_id=GUILD, channel_id=2, host_id=1, host_name="Ann")
    await database.damage_table(store, one.id, ai_level="godlike")
    with pytest.raises(Damaged):
        await service.tables.load(one.id)
    await database.damage_table(
        store, two.id, seats='[{"user":1,"name":"Ann","ai":false},{"ai":true,"level":"godlike"}]')
    with pytest.raises(Damaged):
        await service.tables.load(two.id)
    await store.set_guild_settings(GUILD, ServerDefaults(False, 0, "hard"))
    await database.damage_settings(store, GUILD, ai_level="godlike")  # read as the default
    three = await service.lobby.create(guild_id=GUILD, channel_id=3, host_id=1, host_name="Ann")
    assert three.ai_level == "normal"


async def test_a_full_lobby_says_nothing_of_the_next_ai_seat(quick: LiveBot) -> None:
    await quick.command(ANN, "new")  # the public lobby offers Join to the others...
    public = quick.public()[-1]
    ix = await quick.click(ANN, public, LobbyButton.id_for(table_id(public), "join", None))
    assert quick.said(ix) == ["You already have a seat at this table."]  # ...its host is told
    await quick.command(ANN, "abandon")
    tid, lobby = await lobby_with_ai(quick)  # Ann, Bob and two AI seats: the table is full
    assert "The next AI seat" not in lobby.text(), lobby.text()
    assert "Hero abilities: off. Turn timer: none. Taking back a move: on." in lobby.text()
    assert component(lobby, LobbyButton.id_for(tid, "ai", None))["disabled"]
    # full: nobody may join
    assert component(lobby, LobbyButton.id_for(tid, "join", None))["disabled"]
    await quick.click(ANN, lobby, LobbyButton.id_for(tid, "unai", None))  # a seat is free again
    assert "The next AI seat added starts at the normal level" in quick.message(lobby).text()
