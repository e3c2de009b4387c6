"""The bot's worst cases against Discord's limits on what it sends (40 components and 4,000
characters of text a message, 25 options a menu, 100-character thread names...), on the
stand-in, which refuses a body breaking the API schema or one of those limits: four people with
Discord's longest and strangest display names play a whole match in its thread in Czech and
French, opening their hands, the Log and the replay of it; 64 of them enter a tournament whose
first round opens 16 threads; a full page of /goblin turns and of a tournament's history."""
from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from bot_helpers import Clock
from in_threads import ThreadPlayers, table_message
from live_bot import LiveBot, User, component, table_id
from players import ADMIN, TinyRenderer
from shared_files import discord_api_checked

from bot.discord_side.turns import turns_view
from bot.discord_side.ui.custom_ids import (
    LobbyButton,
    LogButton,
    ReplayButton,
    SeekMenu,
    TournamentButton,
)
from bot.discord_side.ui.parts import MAX_TEXT, text_length
from bot.discord_side.ui.past import history_view
from bot.discord_side.ui.tournament import signup_view
from bot.game.history import PAGE, HistoryPage, InRound
from bot.game.markup import plain
from bot.game.tournament import Entrant, Settings, Tournament
from bot.game.tournaments import MAX_ENTRANTS, MAX_NAME, View
from bot.game.turns import PER_PAGE, TurnList, TurnRow, page_text
from bot.storage.records import SeatResult, TableResult, TournamentRecord
from bot.workers.thinking import Thinking
from i18n import msg, translate
from loopback import Loopback, ManualClock, Message
from loopback.components import walk
from loopback.layout import IS_COMPONENTS_V2, TEXT_TOTAL, TOTAL_COMPONENTS
from loopback.limits import message_errors

#: Display names of Discord's longest (32 characters): combining marks, right-to-left script,
#: emoji joined by zero-width joiners, and plain words.
NAMES = ("Z̷̢a̸l̷g̸o̴ ̵n̸a̷m̵e̶ ̵h̸e̶r̵e̵!",
         "مرحبا بالعالم الطويل جدا جدا جدا",
         "🧙‍♂️🧙‍♀️🧝‍♂️🧝‍♀️🧛‍♂️🧛‍♀️🧟‍♂️ Ann",
         "Bartholomew Fitzgerald Okonkwo-Z")


def people(locale: str) -> list[User]:
    """The four people, each of a name of exactly 32 characters, in ``locale``."""
    assert all(len(n) == 32 for n in NAMES)
    return [User(2000000000000000101 + i, name, locale=locale) for i, name in enumerate(NAMES)]


@pytest.fixture(params=["cs", "fr"])
def locale(request: pytest.FixtureRequest) -> str:
    """The language of the server and of its people."""
    return str(request.param)


@pytest.fixture
async def lb(locale: str) -> AsyncIterator[Loopback]:
    """The stand-in with a server in ``locale``."""
    async with Loopback(clock=ManualClock(), validate=discord_api_checked()) as server:
        LiveBot.world(server, guild_locale=locale)
        yield server


@pytest.fixture
async def h(lb: Loopback, tmp_path: Path, clock: Clock) -> AsyncIterator[LiveBot]:
    live = await LiveBot.start(lb, tmp_path / "k.db", TinyRenderer(), clock=clock,
                               thinking=Thinking(workers=0), threads=True)
    yield live
    await live.stop()


def sizes(message: Message) -> tuple[int, int]:
    """The components and characters of text a message holds."""
    components = message.components
    return (sum(1 for _ in walk(components)),
            sum(len(c.get("content") or "") for c in walk(components) if c.get("type") == 10))


async def test_four_long_names_play_a_whole_match_within_discords_limits(
        h: LiveBot, lb: Loopback, locale: str) -> None:
    users = people(locale)
    host, *others = users
    before = {t.id for t in lb.threads_of(h.channel)}
    await h.command(host, "new")
    lobby = h.public()[-1]
    tid = table_id(lobby)
    for u in others:
        await h.click(u, lobby, LobbyButton.id_for(tid, "join", None))
    await h.click(host, lobby, LobbyButton.id_for(tid, "start", None))
    thread = next(t for t in lb.threads_of(h.channel) if t.id not in before)
    assert len(thread.name) <= 100
    players = ThreadPlayers(h, tid, users, thread)
    steps = 0
    while await players.step():
        steps += 1
        if steps % 25 == 0:  # the Log of a busy turn, to whoever asks
            ix = await h.click(others[steps % 3], table_message(h, thread), LogButton.id_for(tid))
            assert h.reply(ix) is not None
    for m in lb.messages.values():
        count, text = sizes(m)
        assert count <= TOTAL_COMPONENTS and text <= TEXT_TOTAL
    await h.command(host, "history")
    await h.command(host, "turns")
    ix = await h.command(host, "replay", id=tid)
    replay = h.reply(ix)
    last = await h.click(host, replay, ReplayButton.id_for(tid, 0, False, "last"))
    shown = h.reply(last)
    options = component(shown, SeekMenu.id_for(tid, False))["options"]
    assert len(options) == 25  # a whole match has more bookmarks than a menu shows
    await h.choose(host, shown, SeekMenu.id_for(tid, False), [options[0]["value"]])
    assert not lb.breaches


async def test_a_tournament_of_64_long_names_signs_up_and_seats_within_discords_limits(
        h: LiveBot, lb: Loopback, locale: str) -> None:
    entrants = [User(2000000000000001000 + i, f"{NAMES[i % 4][:29]} {i:02d}", locale=locale)
                for i in range(MAX_ENTRANTS)]
    name = "Ž" * MAX_NAME
    await h.command(ADMIN, "tournament new", name=name, table_size=4, timer=604800,
                    ai_level="hard", round_hours=168, signup_hours=168)
    board = h.public()[-1]
    tid = (await h.bot.service.tournaments.open_in(h.guild.id))[0].id
    for user in entrants:
        await h.click(user, board, TournamentButton.id_for(tid, "join"))
    count, text = sizes(h.message(board))
    assert all(e.name in h.message(board).text() for e in entrants)  # every entrant is named
    assert count <= TOTAL_COMPONENTS and text <= TEXT_TOTAL
    before = {t.id for t in lb.threads_of(h.channel)}
    await h.command(ADMIN, "tournament start")
    threads = [t for t in lb.threads_of(h.channel) if t.id not in before]
    assert len(threads) == MAX_ENTRANTS // 4 and all(len(t.name) <= 100 for t in threads)
    await h.command(entrants[0], "tournament standings")
    await h.command(entrants[0], "turns")
    assert not lb.breaches


LINK = "https://discord.com/channels/" + "/".join(["1234567890123456789"] * 3)
PERSON = 1234567890123456789


@pytest.mark.parametrize("language", ["en", "fr", "cs"])
def test_a_full_page_of_turns_with_long_names_is_within_discords_limits(language: str) -> None:
    """Twelve matches a page (the person's move in each, then others', then those the AI
    plays their seat at, with their note), each with three opponents of the longest names and
    the most time left, fit whole in one message."""
    left = 6 * 86400 + 23 * 3600 + 59 * 60
    rows = [TurnRow(100000 + i, LINK, i < PER_PAGE, left, tuple(NAMES[1:]), NAMES[0],
                    i >= 2 * PER_PAGE - PER_PAGE // 2) for i in range(2 * PER_PAGE)]
    turns = TurnList(tuple(rows[:PER_PAGE]), tuple(r for r in rows[PER_PAGE:] if not r.hosted),
                     tuple(r for r in rows if r.hosted))
    assert len(turns.hosted) == PER_PAGE // 2
    for page in (0, 1):
        view = turns_view(turns, PERSON, page, language)
        body = {"components": view.to_components(), "flags": IS_COMPONENTS_V2}
        assert message_errors(body) == []
        assert text_length(view) == len(page_text(turns, page, language)) < MAX_TEXT  # uncut


@pytest.mark.parametrize("language", ["en", "fr", "cs"])
def test_a_full_history_page_of_a_tournament_is_within_discords_limits(language: str) -> None:
    """Five four-seat matches of a tournament, each abandoned, in a thread, every seat handed
    to the AI at its end and a rating change each: the page fits whole with its buttons and
    the replay hint."""
    def result(table: int) -> TableResult:
        seats = tuple(SeatResult(seat=s, user_id=PERSON + s, kind="person", ai_level="normal",
                                 hero="xanros", keys=3, hp=10, place=s + 1, handed_to_ai=True,
                                 moved=True) for s in range(4))
        return TableResult(table_id=table, guild_id=PERSON, channel_id=PERSON,
                           finished_at=2_000_000_000, rounds=99, actions=9999, catalogue="x",
                           winner_seat=0, winner_user_id=PERSON, seats=seats,
                           place_key="guild:1", abandoned_by=PERSON)
    cup = TournamentRecord(
        id=99999, guild_id=PERSON, place_key="guild:1", channel_id=PERSON, host_id=PERSON,
        name="Ž" * MAX_NAME, rounds=6, table_size=4, timer=0, abilities=True, ai_level=None,
        round_span=0, closes_at=None, seed=1, locale=language, status="finished", round=6,
        deadline=None, signup_message_id=None, standings_message_id=None, created_at=0,
        updated_at=0)
    results = tuple(result(999990 + i) for i in range(PAGE))
    page = HistoryPage(results, 1, 2,
                       {r.table_id: {s.user_id: -99 for s in r.seats} for r in results},
                       {r.table_id: PERSON for r in results}, cup,
                       {r.table_id: InRound(PAGE - i, False) for i, r in enumerate(results)})
    view = history_view(page, PERSON, language)
    assert message_errors({"components": view.to_components(), "flags": IS_COMPONENTS_V2}) == []
    assert text_length(view) < MAX_TEXT


#: A display name of Discord's longest (32 characters) made of markdown's characters alone:
#: shown escaped, it doubles in length.
MARKDOWN_NAME = "*_~`|[]<@\\" * 3 + "**"


@pytest.mark.parametrize("status", ["signup", "running", "cancelled"])
@pytest.mark.parametrize("language", ["en", "fr", "cs"])
def test_a_sign_up_of_64_names_of_markdown_is_within_discords_limits(language: str,
                                                                      status: str) -> None:
    """64 entrants each named with 32 of markdown's characters (each shown escaped: twice as
    long) in the longest tournament name: the sign-up message names as many as fit and says
    how many more entered, its terms and its last line shown whole, within Discord's limits."""
    assert len(MARKDOWN_NAME) == 32 and len(plain(MARKDOWN_NAME)) == 64
    cup = TournamentRecord(
        id=99999, guild_id=PERSON, place_key="guild:1", channel_id=PERSON, host_id=PERSON,
        name="*" * MAX_NAME, rounds=None, table_size=4, timer=604800, abilities=True,
        ai_level="hard", round_span=7 * 86400, closes_at=2_000_000_000, seed=1,
        locale=language, status=status, round=0, deadline=None, signup_message_id=None,
        standings_message_id=None, created_at=0, updated_at=0)  # type: ignore[arg-type]
    entrants = tuple(Entrant(PERSON + i, MARKDOWN_NAME, 1000) for i in range(MAX_ENTRANTS))
    view = signup_view(View(cup, Tournament(Settings(cup.name), entrants), (), ()))
    assert message_errors({"components": view.to_components(), "flags": IS_COMPONENTS_V2}) == []
    text = "".join(c["content"] for c in walk(view.to_components()) if c.get("type") == 10)
    assert len(text) <= MAX_TEXT
    last = {"signup": "bot.tournament.signup.open_timed",
            "cancelled": "bot.tournament.signup.cancelled"}.get(status,
                                                                "bot.tournament.signup.closed")
    assert text.endswith("\n" + translate(msg(last), language)), text[-200:]  # never cut
    shown = text.count(plain(MARKDOWN_NAME))
    assert 0 < shown < MAX_ENTRANTS
    more = translate(msg("bot.tournament.signup.entrants_more", total=MAX_ENTRANTS,
                         count=MAX_ENTRANTS - shown,
                         names=", ".join([plain(MARKDOWN_NAME)] * shown)), language)
    assert more in text
