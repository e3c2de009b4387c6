"""The end-to-end suite's privacy watch itself: it lets honest public table messages through and
catches leaks planted in public messages (hand texts in any language, hidden card names), so the
end-to-end tests' "no problems" means something."""
from __future__ import annotations

import re

import pytest
from e2e.catalogue import template_pattern, where_shown
from e2e.messages import full_text
from e2e.privacy import PrivacyWatch, Secrets
from minibot import MiniBot

from bot.discord_side.ui.custom_ids import HandButton
from bot.game.texts import phase_line, seat_line
from engine import GameConfig, GameState, SeatConfig, apply, new_game, observe
from engine.actions import parse
from engine.agents import make_agent
from engine.names import card_name
from i18n import LOCALES, msg, translate
from loopback import Loopback, Message
from loopback.model import snowflake

CONFIG = GameConfig(seats=(SeatConfig("taia", "Ann"), SeatConfig("horan", "Bob"),
                           SeatConfig("aderyn", "Cyril")), seed=41)
TABLE = 7


def play(steps: int) -> list[str]:
    """The first ``steps`` moves of a game of heuristic agents (notation)."""
    state, agent, actions = new_game(CONFIG), make_agent("heuristic", 3), []
    for _ in range(steps):
        action = agent.choose(observe(state, state.current))
        actions.append(str(action))
        state, _ = apply(state, action)
    return actions


def state_at(actions: list[str], step: int) -> GameState:
    state = new_game(CONFIG)
    for a in actions[:step]:
        state, _ = apply(state, parse(a))
    return state


def table_text(state: GameState, locale: str) -> tuple[str, str, str]:
    """Title, description and footer of an honest public table message (as the bot writes
    it: from the spectator's observation only)."""
    obs = observe(state, None)
    lines = [f"**{translate(phase_line(obs), locale)}**", ""]
    lines += [translate(seat_line(obs, i), locale) for i in obs.order]
    lines += ["", *(f"> {translate(e.text, locale)}" for e in obs.events[-6:])]
    return (translate(msg("bot.table.title", table=TABLE), locale), "\n".join(lines),
            translate(msg("bot.table.footer", round=obs.round, step=obs.step), locale))


def public(lb: Loopback, title: str = "", description: str = "", footer: str = "",
           content: str = "", owner: int | None = None) -> Message:
    channel = next(iter(lb.channels.values()))
    embed = {"title": title, "description": description, "footer": {"text": footer}}
    return Message(snowflake(), channel.id, channel.guild_id, lb.bot, content=content,
                   embeds=[embed] if title or description or footer else [], owner=owner,
                   revision=1)


def test_template_patterns_follow_french_typography_and_elision() -> None:
    pattern = re.compile(template_pattern("la main de {who} : {n} cartes", {"n": r"\d+"}))
    assert pattern.fullmatch("la main d'Aderyn\u00a0: 3 cartes")
    assert pattern.fullmatch("la main de Bruno : 4 cartes")
    assert not pattern.fullmatch("la main de Bruno : beaucoup de cartes")
    title = translate(msg("bot.table.title", table=12), "fr")
    footer = translate(msg("bot.table.footer", round=3, step=41), "fr")
    assert where_shown(f"{title}\nblah\n{footer}") == (12, 41)
    assert where_shown(title) is None


def test_watch_passes_honest_messages_and_catches_planted_leaks(lb: Loopback) -> None:
    guild = lb.create_guild()
    lb.create_channel(guild)
    ann = lb.create_user("Ann")
    actions = play(40)
    watch = PrivacyWatch(lb)

    # honest public table messages, at several steps, in every language: nothing to say
    steps = (0, 9, 23, 40)
    for step in steps:
        state = state_at(actions, step)
        for locale in LOCALES:
            watch(public(lb, *table_text(state, locale)))
    watch(public(lb, content=translate(msg("bot.table.your_turn", who="Ann"), "cs")))
    assert watch.problems == []
    assert watch.check_cards(lambda tid: (CONFIG, actions), [TABLE]) == len(steps) * 3
    assert watch.problems == []

    # a hidden card's name slipped into a public table message, in each language
    step = 23
    state = state_at(actions, step)
    every = Secrets.merged([Secrets.of(state, lc) for lc in LOCALES])
    for locale in LOCALES:
        secrets = Secrets.of(state, locale)
        name, card = next((n, c) for n, c in sorted(secrets.hidden.items())
                          if not any(n in shown for shown in every.public))
        assert name == translate(card_name(card), locale)
        title, description, footer = table_text(state, locale)
        leak = PrivacyWatch(lb)
        leak(public(lb, title, f"{description}\n> {name}", footer))
        assert leak.problems == []  # names are checked against the replayed game, afterwards
        leak.check_cards(lambda tid: (CONFIG, actions), [TABLE])
        assert len(leak.problems) == 1 and card in leak.problems[0], leak.problems
        # a table message claiming a step the table never had cannot be vouched for
        other = PrivacyWatch(lb)
        other(public(lb, title, f"{description}\n> {name}", footer.replace(str(step), "999")))
        other.check_cards(lambda tid: (CONFIG, actions), [TABLE])
        assert other.problems and "a step it never had" in other.problems[0]

    # a card name in a public message that is no table message (no footer)
    hand_card = state.seats[0].hand[0]
    stray = PrivacyWatch(lb)
    stray(public(lb, content=f"Ann likes {translate(card_name(hand_card), 'en')}"))
    stray.check_cards(lambda tid: (CONFIG, actions), [TABLE])
    assert len(stray.problems) == 1 and hand_card in stray.problems[0]

    # texts only a hand message holds, in a public message: caught at once, in any language
    cards = translate(card_name(hand_card), "fr")
    planted = {
        "bot.hand.title": translate(msg("bot.hand.title", table=TABLE), "cs"),
        "bot.hand.your_move": translate(msg("bot.hand.your_move",
                                            phase=msg("phase.battle")), "en"),
        "event.draw_private": translate(msg("event.draw_private", cards=cards), "fr"),
        "event.taia_choice": translate(msg("event.taia_choice", first="A", second="B"), "cs"),
        "event.taia_kept": translate(msg("event.taia_kept", card="Y", other="Z"), "fr"),
    }
    for key, text in planted.items():
        live = PrivacyWatch(lb)
        live(public(lb, description=f"Table news\n{text}"))
        assert len(live.problems) == 1 and f"({key})" in live.problems[0], (key, live.problems)
        # the very same text in the owner's private hand message is fine
        mine = PrivacyWatch(lb)
        mine(public(lb, description=text, owner=ann.id))
        assert mine.problems == []


@pytest.mark.parametrize("where", ["content", "option"])
def test_full_text_reads_every_part_of_a_message(lb: Loopback, where: str) -> None:
    guild = lb.create_guild()
    lb.create_channel(guild)
    secret = translate(msg("bot.hand.title", table=3), "en")
    m = public(lb)
    if where == "content":
        m.content = secret
    else:
        m.components = [{"type": 1, "components": [{
            "type": 3, "custom_id": "x", "options": [{"label": "a", "value": "a",
                                                      "description": secret}]}]}]
    assert secret in full_text(m)
    watch = PrivacyWatch(lb)
    watch(m)
    assert len(watch.problems) == 1


def test_a_name_shared_by_two_languages_is_no_leak_when_quoted_publicly() -> None:
    # "Avalanche" is a hidden card's French name, and the English name of a public card
    english = Secrets({}, ("Finn plays Avalanche.",))
    french = Secrets({"Avalanche": "m3-24"}, ())
    text = "> Finn plays Avalanche."
    assert french.leaks(text) == ["Avalanche (m3-24)"]
    assert Secrets.merged([english, french]).leaks(text) == []
    assert Secrets.merged([english, french]).leaks("> Avalanche") == ["Avalanche (m3-24)"]


async def test_watch_tells_hands_apart_by_seat_when_names_are_equal(
        lb: Loopback, client: MiniBot) -> None:
    # two people called Sam; a fake bot answers each one's command with a private hand
    # message, and deliberately shows the first Sam's seat to the second Sam
    channel = lb.create_channel(lb.create_guild())
    first, second = lb.create_user("Sam"), lb.create_user("Sam")
    state = new_game(GameConfig(seats=(SeatConfig("taia", "Sam"), SeatConfig("horan", "Sam")),
                                seed=5))
    seating = {TABLE: {first.id: "taia", second.id: "horan"}}
    watch = PrivacyWatch(lb, seating=seating.__getitem__)
    lb.watchers.append(watch)
    for user, seat in ((first, 0), (second, 1), (second, 0)):
        png = b"\x89PNG\r\n\x1a\n" + bytes([seat + 1]) * 40  # each seat's own hand picture
        ix = await lb.command(user, channel, "goblin new")
        data = await client.interaction()
        obs = observe(state, seat)
        text = (f"### {translate(msg('bot.hand.title', table=TABLE), 'en')}\n"
                f"-# {translate(seat_line(obs, seat), 'en')}")
        body = {"type": 4, "data": {"flags": 64 | (1 << 15), "components": [
            {"type": 17, "components": [{"type": 10, "content": text}, {"type": 12, "items": [
                {"media": {"url": "attachment://hand.png"}}]}]}],
            "attachments": [{"id": "0", "filename": "hand.png"}]}}
        status, out = await client.respond(data, body, files={"hand.png": png})
        assert status == 200, out
        await ix.done()
    assert watch.hands_seen == 3
    assert len(watch.problems) == 2, watch.problems  # by its seat line, and by its picture
    by_seat, by_picture = sorted(watch.problems, key=lambda p: p.startswith("the hand picture"))
    assert f"user {second.id} (seat hero horan) was shown the hand of ['taia']" in by_seat
    assert f"shown to user {first.id} was shown to user {second.id}" in by_picture


def _hand_message(lb: Loopback, owner_id: int, png: bytes, name: str = "hand.png") -> Message:
    """A private hand message (its title, its hand picture) planted for ``owner_id``."""
    channel = next(iter(lb.channels.values()))
    title = translate(msg("bot.hand.title", table=TABLE), "en")
    return lb.plant_message(channel, [], content=f"### {title}", owner=lb.users[owner_id],
                            files={name: png})


def test_watch_knows_a_hand_picture_by_its_content_under_any_name(lb: Loopback) -> None:
    channel = lb.create_channel(lb.create_guild())
    ann = lb.create_user("Ann")
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(60))
    watch = PrivacyWatch(lb)
    watch(_hand_message(lb, ann.id, png))
    watch(lb.plant_message(channel, [], content="the table", files={"table.png": b"\x89PNG-x"}))
    assert watch.problems == []  # another picture in public is fine
    watch(lb.plant_message(channel, [], content="the table", files={"table.png": png}))
    assert len(watch.problems) == 1 and "shows a hand picture" in watch.problems[0]
    # the other way round: the public picture came first
    later = PrivacyWatch(lb)
    later(lb.plant_message(channel, [], content="news", files={"news.png": png}))
    later(_hand_message(lb, ann.id, png))
    assert len(later.problems) == 1 and "showed the hand picture" in later.problems[0]


def test_watch_catches_card_ids_in_a_public_component(lb: Loopback) -> None:
    channel = lb.create_channel(lb.create_guild())
    watch = PrivacyWatch(lb)
    honest = [{"type": 1, "components": [{"type": 2, "style": 1, "label": "My hand",
                                          "custom_id": HandButton.id_for(TABLE)}]}]
    watch(lb.plant_message(channel, honest))
    assert watch.problems == []
    menu = [{"type": 1, "components": [{"type": 3, "custom_id": "kg:hero:7", "options": [
        {"label": "A card", "value": "play:arg2"}]}]}]
    watch(lb.plant_message(channel, menu))
    assert len(watch.problems) == 1 and "arg2" in watch.problems[0], watch.problems


def test_watch_catches_a_hand_shown_to_another_user_of_the_same_name(lb: Loopback) -> None:
    lb.create_channel(lb.create_guild())
    first, second = lb.create_user("Sam"), lb.create_user("Sam")
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(80))
    watch = PrivacyWatch(lb)  # no seating known: the pictures alone tell the hands apart
    watch(_hand_message(lb, first.id, png))
    watch(_hand_message(lb, first.id, png))  # the same hand again, to its owner: fine
    watch(_hand_message(lb, second.id, b"\x89PNG\r\n\x1a\n" + bytes(range(81))))
    assert watch.problems == []
    watch(_hand_message(lb, second.id, png, name="hand.png"))
    assert len(watch.problems) == 1, watch.problems
    assert f"shown to user {first.id} was shown to user {second.id}" in watch.problems[0]
