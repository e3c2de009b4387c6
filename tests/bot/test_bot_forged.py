"""Forged and out-of-place interactions: every one gets a clear private answer and changes
nothing it should not (a foreign custom_id, a huge table id, option values of the wrong type,
a click carried to another channel, a move through the wrong component, too many values).

A modified client sends them: the stand-in's checks that only Discord's client makes are skipped
(``forge=True``), and the damaged controls are on messages planted in the channel as if an older
or broken bot had posted them."""

from __future__ import annotations

from typing import Any

import pytest
from live_bot import CHANNEL, GUILD, LiveBot, User, resolve, table_id
from players import ANN, BOB, Players, finished_match, forged_message, open_table, raw_click
from storage.helpers import played

from bot.discord_side.ui.custom_ids import QuitButton, ReplayButton, SeekMenu
from i18n import msg, translate

HUGE = "9" * 20  # past SQLite's 64-bit integers


@pytest.mark.parametrize("custom_id", ["other:thing", "x", "KG:hand:1", "kgx:hand:1"])
async def test_a_custom_id_that_is_not_ours_gets_a_private_answer(bot: LiveBot,
                                                                  custom_id: str) -> None:
    texts = await raw_click(bot, ANN, forged_message(bot, ANN, custom_id), custom_id, 2)
    assert texts and "damaged" in texts[0], texts


@pytest.mark.parametrize("custom_id", [f"kg:hand:{HUGE}", f"kg:do:{HUGE}:0:end",
                                       f"kg:lobby:{HUGE}:join:0", f"kg:hero:{HUGE}"])
async def test_a_table_id_past_sqlite_integers_is_an_unknown_table(bot: LiveBot,
                                                                   custom_id: str) -> None:
    kind = 3 if custom_id.startswith("kg:hero") else 2
    texts = await raw_click(bot, ANN, forged_message(bot, ANN, custom_id, kind), custom_id, kind,
                             ["x"] if kind == 3 else None)
    assert texts and "does not exist" in texts[-1], texts


@pytest.mark.parametrize(("sub", "options"), [
    ("new", {"abilities": "yes"}),
    ("new", {"abilities": 2}),
    ("new", {"timer": "soon"}),
    ("new", {"timer": 7}),
    ("settings", {"language": 5}),
    ("card", {"name": 12}),
    ("card", {"name": ["a"]}),
    ("card", {}),  # its required option left out
    ("new", {"players": 3}),  # an option the command does not have
])
async def test_forged_option_values_are_refused(bot: LiveBot, sub: str,
                                                options: dict[str, Any]) -> None:
    ix = await bot.command(ANN, sub, forge=True, **options)
    texts = bot.said(ix)
    assert texts and "option" in texts[-1], texts
    assert await bot.store.active_in_channel(CHANNEL) is None


async def _current(h: LiveBot, tid: int) -> tuple[User, Any]:
    rec = await h.bot.service.tables.load(tid)
    user = ANN if rec.seats[rec.game.current].user == ANN.id else BOB
    return user, rec


async def _first_move(h: LiveBot) -> tuple[int, User, Any, str]:
    """A started two-player table, the seat to play, the table and its first legal move."""
    from engine import observe
    tid = await open_table(h, ANN, [BOB])
    user, rec = await _current(h, tid)
    return tid, user, rec, str(observe(rec.game, rec.game.current).legal[0])


async def test_a_move_clicked_in_another_channel_is_refused(bot: LiveBot) -> None:
    tid, user, rec, move = await _first_move(bot)
    cid = f"kg:do:{tid}:{rec.version}:{move}"
    elsewhere = bot.lb.create_channel(bot.guild, "elsewhere")
    texts = await raw_click(bot, user, forged_message(bot, user, cid, channel=elsewhere), cid, 2)
    assert texts and "channel" in texts[-1], texts
    assert (await bot.bot.service.tables.load(tid)).version == rec.version


async def test_a_move_button_id_sent_from_a_menu_is_refused(bot: LiveBot) -> None:
    tid, user, rec, move = await _first_move(bot)
    cid = f"kg:do:{tid}:{rec.version}:{move}"
    texts = await raw_click(bot, user, forged_message(bot, user, cid, 3), cid, 3, [move])
    assert texts and "damaged" in texts[-1], texts
    assert (await bot.bot.service.tables.load(tid)).version == rec.version


async def test_a_menu_id_sent_from_a_button_is_refused(bot: LiveBot) -> None:
    tid = await open_table(bot, ANN, [BOB])
    user, rec = await _current(bot, tid)
    cid = f"kg:pick:{tid}:{rec.version}:fight00"
    texts = await raw_click(bot, user, forged_message(bot, user, cid), cid, 2)
    assert texts and "damaged" in texts[-1], texts
    assert (await bot.bot.service.tables.load(tid)).version == rec.version


async def test_a_move_menu_with_two_values_is_refused(bot: LiveBot) -> None:
    tid = await open_table(bot, ANN, [BOB])
    user, rec = await _current(bot, tid)
    from engine import observe
    legal = [str(a) for a in observe(rec.game, rec.game.current).legal]
    cid = f"kg:pick:{tid}:{rec.version}:fight00"
    texts = await raw_click(bot, user, forged_message(bot, user, cid, 3), cid, 3,
                            [legal[0], legal[0]])
    assert texts and "one" in texts[-1], texts
    assert (await bot.bot.service.tables.load(tid)).version == rec.version


async def test_a_hero_pick_with_two_values_is_refused(bot: LiveBot) -> None:
    await bot.command(ANN, "new")
    lobby = bot.public()[-1]
    tid = table_id(lobby)
    hero_cid = next(i for i in lobby.custom_ids() if i.startswith("kg:hero:"))
    heroes = [o["value"] for o in (lobby.component(hero_cid) or {})["options"]]
    before = await bot.bot.service.tables.load(tid)
    texts = await raw_click(bot, ANN, lobby, hero_cid, 3, heroes[:2])
    assert texts and "one" in texts[-1], texts
    assert (await bot.bot.service.tables.load(tid)).seats == before.seats


async def test_a_move_sent_through_a_menu_that_does_not_offer_it_is_refused(
        bot: LiveBot) -> None:

    from bot.game.texts import controls
    from engine import observe
    tid = await open_table(bot, ANN, [BOB])
    players = Players(bot, tid, [ANN, BOB])
    for _ in range(300):
        user, rec = await _current(bot, tid)
        obs = observe(rec.game, rec.game.current)
        menus = controls(obs).menus()
        legal = {str(a) for a in obs.legal}
        found = [(key, sorted(legal - offered)[0]) for key, offered in menus.items()
                 if legal - offered]
        if found:
            break
        assert await players.step()
    else:
        raise AssertionError("no decision with a menu came up")
    key, outside = found[0]
    cid = f"kg:pick:{tid}:{rec.version}:{key}"
    texts = await raw_click(bot, user, forged_message(bot, user, cid, 3), cid, 3, [outside])
    assert texts and "menu" in texts[-1], texts
    assert (await bot.bot.service.tables.load(tid)).version == rec.version


async def test_lobby_and_hand_clicks_in_another_channel_are_refused(bot: LiveBot) -> None:
    await bot.command(ANN, "new")
    lobby = bot.public()[-1]
    tid = table_id(lobby)
    join = resolve(lobby, f"kg:lobby:{tid}:join")
    elsewhere = bot.lb.create_channel(bot.guild, "elsewhere")
    copied = bot.lb.plant_message(elsewhere, lobby.components, flags=lobby.flags)
    texts = await raw_click(bot, BOB, copied, join, 2)
    assert texts and "channel" in texts[-1], texts
    assert (await bot.bot.service.tables.load(tid)).seat_of(BOB.id) is None
    hand = f"kg:hand:{tid}"
    message = forged_message(bot, ANN, hand, channel=elsewhere, ephemeral=False)
    texts = await raw_click(bot, ANN, message, hand, 2)
    assert texts and "channel" in texts[-1], texts


async def test_a_forged_autocomplete_gets_an_empty_suggestion_list(bot: LiveBot) -> None:
    choices = await bot.autocomplete(ANN, "card", "name", 12)  # a number typed into text
    assert choices == []
    [ix] = [i for i in bot.lb.interactions.values() if i.kind == "autocomplete"]
    assert ix.response_type == 8 and ix.choices == []


@pytest.mark.parametrize("damage", ["no_custom_id", "int_custom_id", "no_component_type"])
async def test_a_click_that_arrives_damaged_gets_a_private_answer(bot: LiveBot,
                                                                  damage: str) -> None:
    await bot.command(ANN, "new")
    lobby = bot.public()[-1]
    tid = table_id(lobby)
    join = resolve(lobby, f"kg:lobby:{tid}:join")
    bot.lb.send_malformed(damage)
    try:
        texts = await raw_click(bot, BOB, lobby, join, 2)
    finally:
        bot.lb.send_malformed(None)
    assert texts and "damaged" in texts[-1], texts
    assert (await bot.bot.service.tables.load(tid)).seat_of(BOB.id) is None


async def test_an_empty_custom_id_gets_a_private_answer(bot: LiveBot) -> None:
    texts = await raw_click(bot, ANN, forged_message(bot, ANN, ""), "", 2)
    assert texts and "damaged" in texts[0], texts


async def test_a_menu_choice_without_values_gets_a_private_answer(bot: LiveBot) -> None:
    tid = await open_table(bot, ANN, [BOB])
    user, rec = await _current(bot, tid)
    cid = f"kg:pick:{tid}:{rec.version}:fight00"
    texts = await raw_click(bot, user, forged_message(bot, user, cid, 3), cid, 3, [])
    assert texts and "one" in texts[-1], texts
    assert (await bot.bot.service.tables.load(tid)).version == rec.version


@pytest.mark.parametrize("kind", ["do", "hint"])
async def test_a_button_from_a_version_to_come_says_so_and_plays_nothing(
        bot: LiveBot, kind: str) -> None:
    tid, user, rec, move = await _first_move(bot)
    cid = (f"kg:do:{tid}:{rec.version + 5}:{move}" if kind == "do"
           else f"kg:hint:{tid}:{rec.version + 5}")
    texts = await raw_click(bot, user, forged_message(bot, user, cid), cid, 2)
    assert texts and "later point in the match than this table has reached" in texts[-1], texts
    assert "already" not in texts[-1], texts
    assert (await bot.bot.service.tables.load(tid)).version == rec.version


async def test_a_lobby_button_from_a_revision_to_come_is_damaged(bot: LiveBot) -> None:
    await bot.command(ANN, "new")
    lobby = bot.public()[-1]
    tid = table_id(lobby)
    record = await bot.bot.service.tables.load(tid)
    cid = f"kg:lobby:{tid}:ai:{record.revision + 3}"
    texts = await raw_click(bot, ANN, forged_message(bot, ANN, cid, ephemeral=False), cid, 2)
    assert texts and "damaged" in texts[-1], texts
    assert (await bot.bot.service.tables.load(tid)).seats == record.seats


@pytest.mark.parametrize("op", ["ready", "start"])
async def test_ready_or_start_where_no_rematch_was_offered_says_there_is_none(
        bot: LiveBot, op: str) -> None:
    tid = await finished_match(bot.store, played(2))
    cid = f"kg:rm:{tid}:{op}"
    texts = await raw_click(bot, ANN, forged_message(bot, ANN, cid, ephemeral=False), cid, 2)
    assert texts and "Nobody has offered a rematch of this match" in texts[-1], texts
    assert "lapsed" not in texts[-1], texts
    assert await bot.store.rematch_of(tid) is None


async def test_another_servers_leaderboard_page_says_whose_it_is(bot: LiveBot) -> None:
    cid = f"kg:board:{GUILD + 1}:0"
    texts = await raw_click(bot, ANN, forged_message(bot, ANN, cid), cid, 2)
    assert texts and "belongs to another server" in texts[-1], texts
    assert "server channel" not in texts[-1], texts


async def test_the_new_refusals_read_naturally_in_every_language() -> None:
    for key, words in [("bot.error.future_button", {"fr": "moment de la partie",
                                                    "cs": "pozdějšímu okamžiku"}),
                       ("rematch.error.no_offer", {"fr": "Personne n'a proposé",
                                                   "cs": "nikdo nenabídl"}),
                       ("ratings.board.other_server", {"fr": "autre serveur",
                                                       "cs": "jinému serveru"})]:
        for locale, word in words.items():
            assert word in translate(msg(key), locale), (key, locale)


async def test_a_tournament_id_past_sqlite_integers_is_no_tournament(bot: LiveBot) -> None:
    cid = f"kg:tour:{HUGE}:join"
    texts = await raw_click(bot, ANN, forged_message(bot, ANN, cid), cid, 2)
    assert texts == ["That tournament does not exist (any more)."], texts


async def test_a_replay_opened_past_its_last_move_shows_the_last(bot: LiveBot) -> None:
    tid = await finished_match(bot.store, played(2))
    last = len(played(2).moves)
    cid = ReplayButton.id_for(tid, last + 50, False, "open")
    texts = await raw_click(bot, ANN, forged_message(bot, ANN, cid), cid, 2)
    assert texts and f"Move {last} of {last}" in texts[-1], texts


@pytest.mark.parametrize("value", ["²", "1.0", " 3"])
async def test_a_replay_bookmark_not_offered_is_refused(bot: LiveBot, value: str) -> None:
    tid = await finished_match(bot.store, played(2))
    cid = SeekMenu.id_for(tid, False)
    texts = await raw_click(bot, ANN, forged_message(bot, ANN, cid, 3), cid, 3, [value])
    assert texts and "That moment is not part of this match." in texts[-1], texts


@pytest.mark.parametrize("options", [
    {"name": "Cup", "round_hours": 2**53},  # past a 64-bit column once turned into seconds
    {"name": "Cup", "round_hours": 169},
    {"name": "Cup", "signup_hours": 0},
])
async def test_option_values_out_of_their_declared_range_are_refused(
        bot: LiveBot, options: dict[str, Any]) -> None:
    from players import ADMIN
    ix = await bot.command(ADMIN, "tournament new", forge=True, **options)
    texts = bot.said(ix)
    assert texts and "option" in texts[-1], texts
    assert await bot.bot.service.tournaments.open_in(GUILD) == []


@pytest.mark.parametrize("sure", [False, True])
async def test_a_leave_button_forged_for_a_table_of_several_people_is_refused(
        bot: LiveBot, sure: bool) -> None:
    """Only a solo table shows Leave: its host leaving a match with other people at it goes
    through /goblin abandon, which asks first and says what it does to the ratings."""
    tid = await open_table(bot, ANN, [BOB])
    cid = QuitButton.id_for(tid, sure)
    texts = await raw_click(bot, ANN, forged_message(bot, ANN, cid), cid, 2)
    assert set(texts) == {"That button is damaged, out of date or from another bot."}, texts
    assert (await bot.bot.service.tables.load(tid)).status == "running"


@pytest.mark.parametrize("written", ["arabic", "zero"])
async def test_a_move_whose_numbers_the_bot_never_writes_so_is_damaged_and_plays_nothing(
        bot: LiveBot, written: str) -> None:
    """Python reads other scripts' digits ("٣") and leading zeros as numbers: an id written so
    fits no button the bot posts, and is refused as damaged."""
    tid, user, rec, move = await _first_move(bot)
    table = (str(tid).translate(str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")) if written == "arabic"
             else f"0{tid}")
    cid = f"kg:do:{table}:{rec.version}:{move}"
    texts = await raw_click(bot, user, forged_message(bot, user, cid), cid, 2)
    assert texts == ["That button is damaged, out of date or from another bot."], texts
    assert (await bot.bot.service.tables.load(tid)).version == rec.version


@pytest.mark.parametrize("kind", ["back", "hand"])
async def test_a_hand_asked_of_a_table_not_started_tells_its_seated_host_so(
        bot: LiveBot, kind: str) -> None:
    """Ann sits at her lobby: a forged Back (or My hand) button of it tells her the game has
    not started, never that she has no seat."""
    await bot.command(ANN, "new")
    tid = table_id(bot.public()[-1])
    custom_id = f"kg:{kind}:{tid}"
    texts = await raw_click(bot, ANN, forged_message(bot, ANN, custom_id), custom_id, 2)
    assert texts == [translate(msg("bot.error.not_started"), "en-US")], texts


@pytest.mark.parametrize("kind", ["hand", "back"])
async def test_my_hand_clicked_once_the_match_was_abandoned_says_it_is_over(
        bot: LiveBot, kind: str) -> None:
    """A My hand (or Back) click that reached the bot after its match was abandoned (the table
    message lost its buttons meanwhile) shows the hand as a stale move does: saying the game is
    over, not only whose turn it was."""
    tid = await open_table(bot, ANN, [BOB])
    await bot.abandon(ANN)
    assert (await bot.bot.service.tables.load(tid)).status == "abandoned"
    custom_id = f"kg:{kind}:{tid}"
    texts = await raw_click(bot, ANN, forged_message(bot, ANN, custom_id), custom_id, 2)
    assert texts and translate(msg("bot.error.game_closed"), "en-US") in texts[-1], texts
