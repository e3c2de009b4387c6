"""The bot in French and Czech: slash commands Discord accepts in every language, private replies
in the clicking user's language, public ones in the server's (which admins may override)."""

from __future__ import annotations

import asyncio
import json
import unicodedata
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import discord
import pytest
from bot_helpers import Clock
from live_bot import CHANNEL, GUILD, LiveBot, User, offered, resolve, table_id
from players import PNG, finished_match, open_table
from shared_files import require_discord_api
from storage.helpers import played

from bot.discord_side.ui.custom_ids import HandButton, LobbyButton, RematchButton
from bot.storage.records import SeatInfo, ServerDefaults
from engine import Observation
from i18n import LOCALES, msg, translate
from loopback import Loopback, Message
from loopback.spec import spec as discord_spec

ANN = User(2000000000000000101, "Anna", locale="cs")
BOB = User(2000000000000000102, "Benoît", locale="fr")
ADMIN = User(2000000000000000109, "Mod", locale="en-GB", admin=True)
#: Our languages as Discord names them in localisation dictionaries.
DISCORD_LOCALE = {"fr": "fr", "cs": "cs"}


class RecordingRenderer:
    """Tiny pictures, remembering the language each kind of picture was drawn in."""

    def __init__(self) -> None:
        self.drawn: list[tuple[str, str]] = []

    def table(self, obs: Observation, locale: str, handed: tuple[int, ...] = ()) -> bytes:
        self.drawn.append(("table", locale))
        return PNG

    def battle(self, obs: Observation, locale: str) -> bytes:
        self.drawn.append(("battle", locale))
        return PNG

    def hand(self, obs: Observation, locale: str) -> bytes:
        self.drawn.append(("hand", locale))
        return PNG


@pytest.fixture
def renderer() -> RecordingRenderer:
    return RecordingRenderer()


@pytest.fixture
async def bot(lb: Loopback, tmp_path: Path, clock: Clock,
              renderer: RecordingRenderer) -> AsyncIterator[LiveBot]:
    """The bot on a server whose language each test sets (``bot.guild.locale``), with a Czech,
    a French and a British English user."""
    live = await LiveBot.start(lb, tmp_path / "k.db", renderer, clock=clock)
    yield live
    await live.stop()


# ---------------------------------------------------------------------------- slash commands


def _name_ok(name: str) -> bool:
    """Discord's rule for command and option names: ^[-_\\p{L}\\p{N}\\p{sc=Deva}\\p{sc=Thai}]{1,32}$
    and lowercase wherever a letter has a lowercase form."""
    if not 1 <= len(name) <= 32 or name != name.lower():
        return False
    for ch in name:
        cat = unicodedata.category(ch)
        deva_thai = "\u0900" <= ch <= "\u097f" or "\u0e00" <= ch <= "\u0e7f"
        if not (ch in "-_" or cat[0] in "LN" or deva_thai):
            return False
    return True


def _in(payload: Any, lang: str) -> Any:
    """The command payload as a user of ``lang`` sees it: every name, description and choice
    replaced by its localisation (English is the payload itself)."""
    if isinstance(payload, list):
        return [_in(p, lang) for p in payload]
    if not isinstance(payload, dict):
        return payload
    out = {k: (v if k.endswith("_localizations") else _in(v, lang)) for k, v in payload.items()}
    if lang != "en" and "name" in payload:
        for field in ("name", "description"):
            if field not in payload:
                continue
            local = payload.get(f"{field}_localizations") or {}
            assert DISCORD_LOCALE[lang] in local, f"{payload.get('name')}: no {lang} {field}"
            out[field] = local[DISCORD_LOCALE[lang]]
    return out


def _walk(commands: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any], list[Any]]]:
    """(path, command or option, its siblings) for every command, option and choice."""
    out: list[tuple[str, dict[str, Any], list[Any]]] = []

    def visit(items: list[dict[str, Any]], where: str) -> None:
        for item in items:
            path = f"{where}/{item['name']}"
            out.append((path, item, items))
            visit(item.get("options") or [], path)
            for choice in item.get("choices") or []:
                out.append((f"{path}={choice['value']}", choice, item["choices"]))

    visit(commands, "")
    return out


@pytest.mark.parametrize("lang", LOCALES)
async def test_slash_commands_match_the_api_schema_in_every_language(
        bot: LiveBot, lang: str) -> None:
    require_discord_api("the slash commands' payload against Discord's API schema")
    payload = await bot.bot.command_payload()
    route = f"/applications/{bot.lb.application_id}/commands"
    discord_spec().check("PUT", route, payload)  # the real sync body, all languages at once
    discord_spec().check("PUT", route, _in(payload, lang))


@pytest.mark.parametrize("lang", LOCALES)
async def test_slash_commands_are_well_formed_in_every_language(
        bot: LiveBot, lang: str) -> None:
    payload = await bot.bot.command_payload()
    entries = _walk(_in(payload, lang))
    assert len([e for e in entries if "=" not in e[0]]) >= 15  # group, 10 commands, options
    for path, item, siblings in entries:
        if "=" in path:  # a choice: a display name of 1 to 100 characters
            assert 1 <= len(item["name"]) <= 100, (lang, path, item["name"])
            continue
        assert _name_ok(item["name"]), (lang, path, item["name"])
        assert 1 <= len(item["description"]) <= 100, (lang, path, item["description"])
        names = [s["name"] for s in siblings]
        assert len(names) == len(set(names)), f"{lang}: two {item['name']!r} in {path}"
    for locale_dict in ("name_localizations", "description_localizations"):
        for _path, item, _ in _walk(payload):
            assert set(item.get(locale_dict) or {}) <= {loc.value for loc in discord.Locale}


async def test_names_and_choices_are_translated(bot: LiveBot) -> None:
    payload = await bot.bot.command_payload()
    fr = {p for p, _, _ in _walk(_in(payload, "fr"))}
    cs = {p for p, _, _ in _walk(_in(payload, "cs"))}
    assert "/goblin/créer/minuteur" in fr and "/goblin/réglages/langue" in fr
    assert "/goblin/založit/časovač" in cs and "/goblin/karta/jméno" in cs
    choices = {c["value"]: c for _, item, _ in _walk(payload) if item.get("choices")
               for c in item["choices"]}
    assert choices[60]["name_localizations"] == {"fr": "1 minute", "cs": "1 minuta"}
    assert choices["auto"]["name_localizations"]["cs"] == "Jazyk serveru na Discordu"


# ---------------------------------------------------------------------------- replies


def _texts(message: Message) -> str:
    return json.dumps([message.content, message.embeds, message.components], ensure_ascii=False)


async def test_private_follows_the_user_public_follows_the_server(
        bot: LiveBot, renderer: RecordingRenderer) -> None:
    bot.guild.locale = "cs"
    ix = await bot.command(BOB, "hand")  # no table yet: a French refusal
    assert bot.said(ix) == [
        "Il n'y a pas de table dans ce salon. Ouvrez-en une avec /goblin créer."]
    await bot.command(BOB, "new")  # a French user opens a table on a Czech server
    lobby = bot.public()[-1]
    assert "Karak: Goblin – nový stůl č.\u00a01" in lobby.text()
    assert "Přisednout" in _texts(lobby) and "Rejoindre" not in _texts(lobby)
    ix = await bot.command(BOB, "new")
    assert any("Ce salon a déjà une table qui attend ses joueurs" in t
               for t in bot.said(ix))  # the asker's language
    tid = table_id(lobby)
    await bot.click(ANN, lobby, LobbyButton.id_for(tid, "join", None))
    ix = await bot.click(ANN, lobby, LobbyButton.id_for(tid, "join", None))
    assert bot.said(ix) == ["U tohoto stolu už máte místo."]
    await bot.click(BOB, lobby, LobbyButton.id_for(tid, "start", None))
    table = bot.last_table_message()
    assert f"Karak: Goblin – stůl č.\u00a0{tid}" in table.text()
    assert "Runda 1: na tahu je" in _texts(table) and "Moje ruka" in _texts(table)
    assert ("table", "cs") in renderer.drawn and ("table", "fr") not in renderer.drawn
    # Each player's hand in their own language, drawn in it too.
    hand = bot.reply(await bot.click(BOB, table, HandButton.id_for(tid)))
    assert hand.owner == BOB.id
    assert f"Votre main – table n°\u00a0{tid}" in hand.text()
    assert ("hand", "fr") in renderer.drawn
    ix = await bot.click(ANN, table, HandButton.id_for(tid))
    assert f"Vaše ruka – stůl č.\u00a0{tid}" in bot.reply(ix).text()
    assert ("hand", "cs") in renderer.drawn


async def test_moves_are_labelled_in_the_player_s_language(bot: LiveBot) -> None:
    bot.guild.locale = "en-US"
    tid = await open_table(bot, BOB, [ANN])
    rec = await bot.bot.service.tables.load(tid)
    user = BOB if rec.seats[rec.game.current].user == BOB.id else ANN
    table = bot.last_table_message()
    assert "Round 1" in _texts(table) or "My hand" in _texts(table)
    hand = bot.reply(await bot.click(user, table, HandButton.id_for(tid)))
    words = {"fr": ("Rendre visite au marchand", "Choisissez un monstre à combattre…"),
             "cs": ("Navštívit obchodníka", "Vyberte nestvůru k souboji…")}
    lang = "fr" if user is BOB else "cs"
    assert all(w in _texts(hand) for w in words[lang]), _texts(hand)[:600]
    # Playing a move keeps the hand in the player's language and the table in the server's.
    assert "merchant" in offered(hand)
    await bot.play(user, hand, "merchant")
    assert all(w not in _texts(hand) for w in ("Visit the merchant",))
    table = bot.last_table_message()
    assert "visits the merchant" in _texts(table)


async def test_rules_and_card_lookup_in_czech(bot: LiveBot) -> None:
    ix = await bot.command(ANN, "rules")
    assert "Karak: Goblin ve zkratce" in bot.reply(ix).text()
    assert "vládce nestvůr" in bot.reply(ix).text()
    names = [c["name"] for c in await bot.autocomplete(ANN, "card", "name", "pavou")]
    assert any(n.startswith("Pavouk /") for n in names), names  # the monster / its reward
    assert any(n.startswith("Obří pavouk") for n in names), names
    ix = await bot.command(ANN, "card", name="Pavouk")
    assert "Nestvůra z patra\u00a0I:" in bot.reply(ix).text()
    ix = await bot.command(ANN, "card", name="spider")  # another language's name is found too
    assert "### Pavouk" in bot.reply(ix).text()


# ---------------------------------------------------------------------------- server language


async def test_admins_may_force_the_server_language(bot: LiveBot,
                                                    renderer: RecordingRenderer) -> None:
    bot.guild.locale = "en-US"  # a server that is not a community server always says en-US
    await bot.command(BOB, "new")
    lobby = bot.public()[-1]
    assert "Join" in _texts(lobby)
    ix = await bot.command(BOB, "settings", language="cs")
    assert any("Seuls les administrateurs" in t for t in bot.said(ix))
    assert await bot.store.guild_locale(GUILD) is None
    ix = await bot.command(ADMIN, "settings", language="cs")
    reply = bot.said(ix)[-1]
    assert "narration: Czech.\n" in reply  # the admin reads English
    assert await bot.store.guild_locale(GUILD) == "cs"
    assert "Přisednout" in _texts(lobby)  # the open lobby switched at once
    rec = await bot.bot.service.tables.in_channel(CHANNEL)
    assert rec.locale == "cs"
    await bot.click(BOB, lobby, LobbyButton.id_for(rec.id, "ai", None))
    await bot.click(BOB, lobby, LobbyButton.id_for(rec.id, "start", None))
    assert "Moje ruka" in _texts(bot.last_table_message())
    # Back to Discord's language: running tables follow at their next refresh.
    ix = await bot.command(ADMIN, "settings", language="auto")
    assert "Discord language (now: English)" in bot.said(ix)[-1]
    assert await bot.store.guild_locale(GUILD) is None
    assert (await bot.bot.service.tables.in_channel(CHANNEL)).locale == "en"
    await bot.settle()
    assert "My hand" in _texts(bot.last_table_message())


async def test_a_lobby_redrawn_in_the_forced_language_keeps_a_join_made_meanwhile(
        bot: LiveBot) -> None:
    """Bob joins an open lobby while the admin's language change is being drawn on it (after
    the lobby was read for that redraw, before the redraw went out): the lobby ends up in the
    new language and with Bob's seat, never drawn from the lobby as it was before he joined."""
    bot.guild.locale = "en-US"
    await bot.command(ANN, "new")
    lobby = bot.public()[-1]
    tid = table_id(lobby)
    tables = bot.bot.service.tables
    read = tables.load
    armed = True

    async def load(table: int) -> Any:
        nonlocal armed
        record = await read(table)
        if armed and record.locale == "fr":  # the redraw for the new language read it
            armed = False
            on_feed = bot.bot.messages.feeds.busy(tid)  # redraws after it wait their turn
            await bot.lb.click(bot._known(BOB), lobby,
                               resolve(lobby, LobbyButton.id_for(tid, "join", None)))
            for _ in range(500):
                joined = (await read(tid)).seat_of(BOB.id) is not None
                if joined and (on_feed or f"<@{BOB.id}>" in bot.message(lobby).text()):
                    break
                await asyncio.sleep(0.01)
        return record

    tables.load = load  # type: ignore[method-assign]
    await bot.command(ADMIN, "settings", language="fr")
    await bot.settle()
    assert not armed
    text = bot.message(lobby).text()
    assert "nouvelle table" in text and f"<@{BOB.id}>" in text, text


async def test_a_language_change_the_database_stops_part_of_the_way_changes_nothing(
        bot: LiveBot) -> None:
    """An admin forces French while the database takes writes of the servers' tables but not
    of its tournaments (full, failing, part of the way through the change): they are told
    nothing changed, and nothing did (the server, its open lobby and its tournament's sign-up
    still speak English); the same command once the database has room again changes and
    redraws them all, the lobby's message included."""
    from storage.backends import make_room, no_room_for

    bot.guild.locale = "en-US"
    other = bot.lb.create_channel(bot.guild, "cup")
    await bot.command(ADMIN, "tournament new", name="Spring Cup", channel=other)
    board = next(m for m in bot.public(other) if "Spring Cup" in m.text())
    await bot.command(BOB, "new")
    lobby = bot.public()[-1]
    tid = table_id(lobby)
    await no_room_for(bot.store, "locale", "tournaments")
    ix = await bot.command(ADMIN, "settings", language="fr")
    assert "nothing changed" in bot.said(ix)[-1]
    assert await bot.store.guild_locale(GUILD) is None
    assert (await bot.bot.service.tables.load(tid)).locale == "en"
    assert "Join" in _texts(bot.message(lobby))
    await make_room(bot.store)
    await bot.command(ADMIN, "settings", language="fr")
    await bot.settle()
    assert await bot.store.guild_locale(GUILD) == "fr"
    assert (await bot.bot.service.tables.load(tid)).locale == "fr"
    assert translate("bot.lobby.join", "fr") in _texts(bot.message(lobby))
    assert translate(msg("bot.tournament.signup.title", name="Spring Cup"), "fr") in \
        bot.message(board).text()


async def test_forced_language_applies_to_new_tables(bot: LiveBot) -> None:
    bot.guild.locale = "cs"
    await bot.command(ADMIN, "settings", language="fr", abilities=True)
    assert await bot.bot.service.servers.defaults(GUILD) == ServerDefaults(True, 0, "normal")
    await bot.command(ANN, "new")
    lobby = bot.public()[-1]
    assert "### " + "Karak: Goblin – nouvelle table" in lobby.text()
    assert translate("bot.lobby.join", "fr") in _texts(lobby)


async def test_a_solo_table_in_direct_messages_speaks_its_person_s_language_now(
        bot: LiveBot, renderer: RecordingRenderer) -> None:
    person = User(2000000000000000110, "Zoé", locale="en-US")
    bot.channel = bot.lb.dm(person)
    await bot.command(person, "new")
    lobby = bot.public()[-1]
    tid = table_id(lobby)
    await bot.click(person, lobby, LobbyButton.id_for(tid, "ai", None))
    await bot.click(person, lobby, LobbyButton.id_for(tid, "start", None))
    table = bot.last_table_message()
    assert "My hand" in _texts(table)
    renderer.drawn.clear()
    # the person switched their Discord to French: their next click brings the table along
    person.locale = "fr"
    hand = bot.reply(await bot.click(person, table, HandButton.id_for(tid)))
    assert "Votre main" in _texts(hand), _texts(hand)[:300]
    assert (await bot.bot.service.tables.load(tid)).locale == "fr"
    table = bot.last_table_message()
    assert "Ma main" in _texts(table) and "My hand" not in _texts(table), _texts(table)[:300]
    assert ("table", "fr") in renderer.drawn or ("battle", "fr") in renderer.drawn
    # then Czech, through a command this time
    person.locale = "cs"
    await bot.command(person, "status")
    assert (await bot.bot.service.tables.load(tid)).locale == "cs"
    assert "Moje ruka" in _texts(bot.last_table_message())
    # a server's table keeps the server's language whatever its people speak
    bot.channel = bot.lb.channels[CHANNEL]
    bot.guild.locale = "en-US"
    await bot.command(BOB, "new")
    lobby = bot.public()[-1]
    await bot.click(BOB, lobby, LobbyButton.id_for(table_id(lobby), "ai", None))
    assert (await bot.bot.service.tables.in_channel(CHANNEL)).locale == "en"


async def test_a_solo_table_s_language_the_database_cannot_save_is_no_error_at_each_click(
        bot: LiveBot) -> None:
    """The person of a solo table in direct messages switched their Discord to French while
    the database takes no writes (full, failing): each click still gets its answer, and the
    table's language, which cannot be saved, is left as it was, without an error and its
    traceback in the log at every click (the next click once it can be saved brings it
    along)."""
    from storage.backends import make_room, no_room_for

    person = User(2000000000000000110, "Zoé", locale="en-US")
    bot.channel = bot.lb.dm(person)
    await bot.command(person, "new")
    lobby = bot.public()[-1]
    tid = table_id(lobby)
    await bot.click(person, lobby, LobbyButton.id_for(tid, "ai", None))
    await bot.click(person, lobby, LobbyButton.id_for(tid, "start", None))
    table = bot.last_table_message()
    await no_room_for(bot.store, "locale")
    person.locale = "fr"
    for _ in range(2):
        hand = bot.reply(await bot.click(person, table, HandButton.id_for(tid)))
        assert "Votre main" in _texts(hand), _texts(hand)[:300]
        await bot.settle()
    assert (await bot.bot.service.tables.load(tid)).locale == "en"
    await make_room(bot.store)
    await bot.click(person, table, HandButton.id_for(tid))
    await bot.settle()
    assert (await bot.bot.service.tables.load(tid)).locale == "fr"


async def test_a_solo_rematch_in_direct_messages_speaks_its_person_s_language_now(
        bot: LiveBot) -> None:
    """A solo match finished in English in Zoé's direct messages; she switched her Discord to
    French since. Her click on Rematch, answered in French, starts the new match in French,
    not in the language she had when the last one ended (until her next click)."""
    person = User(2000000000000000110, "Zoé", locale="en-US")
    dms = bot.lb.dm(person)
    bot.channel = dms
    seats = (SeatInfo(user=person.id, name="Zoé", hero="horan"),
             SeatInfo(ai=True, hero="taia", level="easy"),
             SeatInfo(ai=True, hero="argentus", level="easy"))
    tid = await finished_match(bot.store, played(2), seats=seats, channel=dms.id, guild=None,
                               host=person, locale="en")
    await bot.bot.poster.announce_end(await bot.bot.service.tables.load(tid))
    await bot.settle()
    person.locale = "fr"
    ix = await bot.click(person, bot.public()[-1], RematchButton.id_for(tid, "offer"))
    assert bot.said(ix)[0].startswith("La revanche a commencé"), bot.said(ix)
    new = await bot.store.active_in_channel(dms.id)
    assert new is not None and new != tid
    assert (await bot.bot.service.tables.load(new)).locale == "fr"
    table = bot.last_table_message()
    assert "Ma main" in _texts(table) and "My hand" not in _texts(table), _texts(table)[:300]


async def test_a_tournament_speaks_the_forced_language_and_follows_a_change(
        bot: LiveBot) -> None:
    """A server that forced French opens its tournaments in French (its language in Discord
    is English); forcing Czech later redraws the sign-up in Czech at once."""
    bot.guild.locale = "en-US"
    await bot.command(ADMIN, "settings", language="fr")
    await bot.command(ADMIN, "tournament new", name="Spring Cup")
    board = next(m for m in bot.public() if "Spring Cup" in m.text())
    assert translate(msg("bot.tournament.signup.title", name="Spring Cup"), "fr") in board.text()
    await bot.command(ADMIN, "settings", language="cs")
    assert translate(msg("bot.tournament.signup.title", name="Spring Cup"), "cs") in \
        bot.message(board).text()


async def test_an_open_rematch_offer_follows_the_server_s_new_language(bot: LiveBot) -> None:
    """A match finished in English and Anna offered a rematch; the admins force French while
    the offer waits. The offer is redrawn in French at once, and again in French when Benoît
    says he is ready, as a lobby would be, and the rematch it starts speaks French."""
    bot.guild.locale = "en-US"
    seats = (SeatInfo(user=ANN.id, name="Anna", hero="horan"),
             SeatInfo(user=BOB.id, name="Benoît", hero="taia"),
             SeatInfo(ai=True, hero="argentus", level="easy"))
    tid = await finished_match(bot.store, played(2), seats=seats, host=ANN, locale="en")
    await bot.bot.poster.announce_end(await bot.bot.service.tables.load(tid))
    await bot.settle()
    await bot.click(ANN, bot.public()[-1], RematchButton.id_for(tid, "offer"))
    offer = bot.public()[-1]
    assert translate(msg("rematch.kept"), "en") in offer.text()
    await bot.command(ADMIN, "settings", language="fr")
    await bot.settle()
    assert translate(msg("rematch.kept"), "fr") in bot.message(offer).text()
    assert translate(msg("rematch.ready"), "fr") in _texts(bot.message(offer))
    await bot.click(BOB, offer, RematchButton.id_for(tid, "ready"))
    await bot.settle()
    new = await bot.store.active_in_channel(CHANNEL)
    assert new is not None and new != tid
    assert translate(msg("rematch.started", table=new), "fr") in bot.message(offer).text()
    assert (await bot.bot.service.tables.load(new)).locale == "fr"
