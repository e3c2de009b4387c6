"""Forged and out-of-place interactions: every one gets a clear private answer and changes
nothing it should not (a foreign custom_id, a huge table id, option values of the wrong type,
a click carried to another channel, a move through the wrong component, too many values)."""

from __future__ import annotations

from typing import Any

import pytest
from discord_harness import CHANNEL, FakeDiscord, Harness, Message, User
from test_bot_discord import ANN, BOB, open_table

HUGE = "9" * 20  # past SQLite's 64-bit integers


def _message(custom_id: str, kind: int = 2, flags: int = 64, mid: int = 4242) -> Message:
    component: dict[str, Any] = {"type": kind, "custom_id": custom_id}
    if kind == 2:
        component.update(style=1, label="x")
    else:
        component["options"] = [{"label": "x", "value": "x"}]
    return Message(mid, CHANNEL, flags=flags, components=[{"type": 1,
                                                            "components": [component]}])


async def _raw_click(h: Harness, user: User, message: Message, custom_id: str, kind: int,
                     values: list[str] | None = None, channel: int = CHANNEL) -> list[str]:
    h.fake.messages[message.id] = message
    data: dict[str, Any] = {"custom_id": custom_id, "component_type": kind}
    if values is not None:
        data["values"] = values
    payload = h._base(user, 3, data, message)
    payload["channel_id"] = str(channel)
    payload["channel"]["id"] = str(channel)
    since = len(h.fake.calls)
    await h.feed(payload)
    return h.ephemeral_texts(since)


@pytest.mark.parametrize("custom_id", ["other:thing", "x", "KG:hand:1", "kgx:hand:1"])
async def test_a_custom_id_that_is_not_ours_gets_a_private_answer(
        bot: Harness, fake: FakeDiscord, custom_id: str) -> None:
    texts = await _raw_click(bot, ANN, _message(custom_id), custom_id, 2)
    assert texts and "damaged" in texts[0], texts


@pytest.mark.parametrize("custom_id", [f"kg:hand:{HUGE}", f"kg:do:{HUGE}:0:end",
                                       f"kg:lobby:{HUGE}:join:0", f"kg:hero:{HUGE}"])
async def test_a_table_id_past_sqlite_integers_is_an_unknown_table(
        bot: Harness, fake: FakeDiscord, custom_id: str) -> None:
    kind = 3 if custom_id.startswith("kg:hero") else 2
    texts = await _raw_click(bot, ANN, _message(custom_id, kind), custom_id, kind,
                             ["x"] if kind == 3 else None)
    assert texts and "does not exist" in texts[-1], texts


async def _raw_command(h: Harness, user: User, sub: str, options: Any) -> list[str]:
    data = {"id": str(h._command_id()), "name": "goblin", "type": 1,
            "options": [{"name": sub, "type": 1, "options": options}]}
    since = len(h.fake.calls)
    await h.feed(h._base(user, 2, data))
    return h.ephemeral_texts(since)


@pytest.mark.parametrize(("sub", "options"), [
    ("new", [{"name": "abilities", "type": 5, "value": "yes"}]),
    ("new", [{"name": "abilities", "type": 5, "value": 2}]),
    ("new", [{"name": "timer", "type": 4, "value": "soon"}]),
    ("new", [{"name": "timer", "type": 4, "value": 7}]),
    ("settings", [{"name": "language", "type": 3, "value": 5}]),
    ("card", [{"name": "name", "type": 3, "value": 12}]),
    ("card", [{"name": "name", "type": 3, "value": ["a"]}]),
    ("card", None),
    ("new", None),
])
async def test_forged_option_values_are_refused(bot: Harness, fake: FakeDiscord, sub: str,
                                                options: Any) -> None:
    texts = await _raw_command(bot, ANN, sub, options)
    assert texts and "option" in texts[-1], texts
    assert bot.bot.service.store is not None
    assert await bot.bot.service.store.active_in_channel(CHANNEL) is None


async def _current(h: Harness, tid: int) -> tuple[User, Any]:
    rec = await h.bot.service.load(tid)
    user = ANN if rec.seats[rec.game.current].user == ANN.id else BOB
    return user, rec


async def _first_move(h: Harness) -> tuple[int, User, Any, str]:
    """A started two-player table, the seat to play, the table and its first legal move."""
    from engine import observe
    tid = await open_table(h, ANN, [BOB])
    user, rec = await _current(h, tid)
    return tid, user, rec, str(observe(rec.game, rec.game.current).legal[0])


async def test_a_move_clicked_in_another_channel_is_refused(bot: Harness,
                                                          fake: FakeDiscord) -> None:
    tid, user, rec, move = await _first_move(bot)
    cid = f"kg:do:{tid}:{rec.version}:{move}"
    texts = await _raw_click(bot, user, _message(cid), cid, 2, channel=CHANNEL + 7)
    assert texts and "channel" in texts[-1], texts
    assert (await bot.bot.service.load(tid)).version == rec.version


async def test_a_move_button_id_sent_from_a_menu_is_refused(bot: Harness,
                                                            fake: FakeDiscord) -> None:
    tid, user, rec, move = await _first_move(bot)
    cid = f"kg:do:{tid}:{rec.version}:{move}"
    texts = await _raw_click(bot, user, _message(cid, 3), cid, 3, [move])
    assert texts and "damaged" in texts[-1], texts
    assert (await bot.bot.service.load(tid)).version == rec.version


async def test_a_menu_id_sent_from_a_button_is_refused(bot: Harness, fake: FakeDiscord) -> None:
    tid = await open_table(bot, ANN, [BOB])
    user, rec = await _current(bot, tid)
    cid = f"kg:pick:{tid}:{rec.version}:fight00"
    texts = await _raw_click(bot, user, _message(cid), cid, 2)
    assert texts and "damaged" in texts[-1], texts
    assert (await bot.bot.service.load(tid)).version == rec.version


async def test_a_move_menu_with_two_values_is_refused(bot: Harness, fake: FakeDiscord) -> None:
    tid = await open_table(bot, ANN, [BOB])
    user, rec = await _current(bot, tid)
    from engine import observe
    legal = [str(a) for a in observe(rec.game, rec.game.current).legal]
    cid = f"kg:pick:{tid}:{rec.version}:fight00"
    texts = await _raw_click(bot, user, _message(cid, 3), cid, 3, [legal[0], legal[0]])
    assert texts and "one" in texts[-1], texts
    assert (await bot.bot.service.load(tid)).version == rec.version


async def test_a_hero_pick_with_two_values_is_refused(bot: Harness, fake: FakeDiscord) -> None:
    await bot.command(ANN, "new")
    lobby = fake.public()[-1]
    tid = int(next(i for i in lobby.custom_ids() if i.startswith("kg:lobby:")).split(":")[2])
    hero_cid = next(i for i in lobby.custom_ids() if i.startswith("kg:hero:"))
    heroes = [o["value"] for o in lobby.component(hero_cid)["options"]]
    before = await bot.bot.service.load(tid)
    texts = await _raw_click(bot, ANN, lobby, hero_cid, 3, heroes[:2])
    assert texts and "one" in texts[-1], texts
    assert (await bot.bot.service.load(tid)).seats == before.seats


async def test_a_move_sent_through_a_menu_that_does_not_offer_it_is_refused(
        bot: Harness, fake: FakeDiscord) -> None:
    from test_bot_discord import Players

    from bot.present import controls
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
    texts = await _raw_click(bot, user, _message(cid, 3), cid, 3, [outside])
    assert texts and "menu" in texts[-1], texts
    assert (await bot.bot.service.load(tid)).version == rec.version


async def test_lobby_and_hand_clicks_in_another_channel_are_refused(bot: Harness,
                                                                    fake: FakeDiscord) -> None:
    await bot.command(ANN, "new")
    lobby = fake.public()[-1]
    tid = int(next(i for i in lobby.custom_ids() if i.startswith("kg:lobby:")).split(":")[2])
    join = lobby.resolve(f"kg:lobby:{tid}:join")
    texts = await _raw_click(bot, BOB, lobby, join, 2, channel=CHANNEL + 7)
    assert texts and "channel" in texts[-1], texts
    assert (await bot.bot.service.load(tid)).seat_of(BOB.id) is None
    hand = f"kg:hand:{tid}"
    texts = await _raw_click(bot, ANN, _message(hand, flags=0), hand, 2, channel=CHANNEL + 7)
    assert texts and "channel" in texts[-1], texts


async def test_a_forged_autocomplete_gets_an_empty_suggestion_list(bot: Harness,
                                                                    fake: FakeDiscord) -> None:
    data = {"id": str(bot._command_id()), "name": "goblin", "type": 1,
            "options": [{"name": "card", "type": 1, "options": [
                {"name": "name", "type": 3, "value": 12, "focused": True}]}]}
    since = len(fake.calls)
    await bot.feed(bot._base(ANN, 4, data))
    answers = [c.body for c in fake.calls[since:] if c.template.endswith("/callback")]
    assert answers == [{"type": 8, "data": {"choices": []}}], answers
