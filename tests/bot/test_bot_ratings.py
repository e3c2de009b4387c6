"""Ratings on the real bot and the stand-in: the changes posted when a rated match ends,
``/goblin stats`` (private, with its chart) and ``/goblin leaderboard`` (pages turned by buttons
that work after a restart, the asker's place shown off the page, bad page buttons answered); a
person leaving before their first move hands nobody a rating, and abandoning a match is rated
only once everyone has moved, its abandoner last."""
from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from bot_helpers import Clock
from live_bot import GUILD, LiveBot, User
from players import ANN, BOB, Players, TinyRenderer, open_table, planted

from bot.discord_side.ui.custom_ids import AbandonButton, BoardButton
from bot.game.ratings import Person, Rating, SeatResult, rate
from bot.game.results import movers
from bot.game.standings import MIN_GAMES, PAGE_SIZE
from engine import apply, observe
from engine.agents import make_agent
from loopback import Loopback


async def play_to_the_last_move(bot: LiveBot, tid: int, users: list[User]) -> Players:
    """Play table ``tid`` by the service up to its winning move, which is left to click."""
    svc = bot.bot.service
    while True:
        rec = await svc.tables.load(tid)
        state = rec.game
        action = make_agent("heuristic", state.step).choose(observe(state, state.current))
        if apply(state, action)[0].winner is not None:
            return Players(bot, tid, users)
        user = rec.seats[state.current].user
        assert user is not None
        await svc.play.act(tid, user, rec.version, str(action), sure=True)


def put_ratings(db: Path, people: int, games: int = MIN_GAMES) -> list[int]:
    """``people`` settled ratings on the bot's server, best first (written as the store does,
    while the bot runs): their user ids."""
    users = [3000000000000000000 + i for i in range(people)]
    with closing(sqlite3.connect(db)) as con, con:
        con.executemany(
            "INSERT INTO ratings (guild_id, user_id, mu, sigma, games, wins, last_table) "
            "VALUES (?, ?, ?, 2.0, ?, 1, 1)",
            [(GUILD, u, 40.0 - i * 0.25, games) for i, u in enumerate(users)])
    return users


async def test_a_rated_match_posts_each_change_and_stats_show_it(bot: LiveBot) -> None:
    tid = await open_table(bot, ANN, [BOB])
    players = await play_to_the_last_move(bot, tid, [ANN, BOB])
    assert await players.step()  # the winning click
    assert not await players.step()
    [posted] = [m.text() for m in bot.public() if "Ratings" in m.text()]
    rec = await bot.bot.service.tables.load(tid)
    assert rec.winner is not None
    won, lost = rec.seats[rec.winner], rec.seats[1 - rec.winner]
    assert f"{won.name} 1,500? → " in posted and f"{lost.name} 1,500? → " in posted
    assert ", +" in posted and ", −" in posted  # the winner gains, the other loses
    [history] = bot.said(await bot.command(ANN, "history"))  # the history shows both changes
    assert "· rating +" in history and "· rating −" in history
    ix = await bot.command(ANN, "stats")
    [text] = bot.said(ix)
    assert "1 game played" in text and "?" in text and "Places in the last" not in text
    assert "Place in the last game" in text
    assert bot.reply(ix).ephemeral and bot.reply(ix).images() == ["attachment://rating.png"]
    ix = await bot.command(ANN, "stats", player=str(BOB.id))
    [text] = bot.said(ix)
    assert "1 game played" in text and "not on the leaderboard yet" in text
    ix = await bot.command(BOB, "leaderboard")
    [text] = bot.said(ix)
    assert "Nobody is on the leaderboard yet" in text and "You are not on" in text
    assert f"at least {MIN_GAMES} rated games" in text


async def test_the_leaderboard_pages_and_the_askers_place(lb: Loopback, tmp_path: Path,
                                                          clock: Clock) -> None:
    db = tmp_path / "k.db"
    first = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    users = put_ratings(db, 2 * PAGE_SIZE + 3)
    last = User(users[-1], "Last")
    ix = await first.command(last, "leaderboard")
    page = first.reply(ix)
    text = page.text()
    assert "1. <@3000000000000000000>" in text and "Page 1 of 3" in text
    assert f"<@{users[-1]}>" not in text.split("Your place")[0]  # not on the page...
    assert f"Your place: {len(users)}," in text  # ...but told
    await first.stop()
    second = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)  # after a restart
    try:
        ix = await second.click(last, page, BoardButton.id_for(GUILD, 1))
        text = second.message(page).text()
        assert f"{PAGE_SIZE + 1}. <@{users[PAGE_SIZE]}>" in text and "Page 2 of 3" in text
        ix = await second.click(last, page, BoardButton.id_for(GUILD, 2))
        assert f"{len(users)}. <@{users[-1]}>" in second.message(page).text()
    finally:
        await second.stop()


async def test_a_provisional_or_new_rating_stays_off_the_leaderboard(
        bot: LiveBot, tmp_path: Path) -> None:
    db = tmp_path / "k.db"  # the bot fixture's database
    users = put_ratings(db, 2, games=MIN_GAMES - 1)
    with closing(sqlite3.connect(db)) as con, con:
        con.execute("UPDATE ratings SET games = ? WHERE user_id = ?", (MIN_GAMES, users[0]))
        con.execute("UPDATE ratings SET sigma = 6.0, games = 20 WHERE user_id = ?", (users[1],))
    ix = await bot.command(ANN, "leaderboard")
    [text] = bot.said(ix)
    assert f"<@{users[0]}>" in text and f"<@{users[1]}>" not in text


@pytest.mark.parametrize("custom_id", ["kg:board:x:1", "kg:board:9:-1", f"kg:board:{GUILD}",
                                       f"kg:board:{GUILD}:1:2"])
async def test_a_damaged_page_button_gets_a_polite_answer(bot: LiveBot, custom_id: str) -> None:
    ix = await bot.click(ANN, planted(bot.lb, ANN, custom_id), custom_id)
    texts = bot.said(ix)
    assert texts and "damaged" in texts[0]


async def test_another_servers_page_button_shows_nothing_of_it(bot: LiveBot) -> None:
    custom_id = BoardButton.id_for(GUILD + 1, 0)
    ix = await bot.click(ANN, planted(bot.lb, ANN, custom_id), custom_id)
    texts = bot.said(ix)
    assert texts and "Leaderboard" not in texts[0]


async def test_stats_say_what_a_provisional_rating_is(bot: LiveBot, tmp_path: Path) -> None:
    with closing(sqlite3.connect(tmp_path / "k.db")) as con, con:  # the bot fixture's database
        con.executemany(
            "INSERT INTO ratings (guild_id, user_id, mu, sigma, games, wins, last_table) "
            "VALUES (?, ?, 25.0, ?, ?, 0, 1)", [(GUILD, ANN.id, 6.0, 1), (GUILD, BOB.id, 2.0, 30)])
    ix = await bot.command(ANN, "stats")  # a newcomer's provisional rating
    [text] = bot.said(ix)
    assert "?" in text and "A question mark after a rating means it is provisional" in text
    assert "Each of the first games moves it a lot" in text
    ix = await bot.command(BOB, "stats")  # a settled one
    [text] = bot.said(ix)
    assert "?" not in text and "provisional" not in text, text


async def table_text(bot: LiveBot, tid: int) -> str:
    """The text of table ``tid``'s message as it is now."""
    rec = await bot.bot.service.tables.load(tid)
    assert rec.message_id is not None
    return bot.lb.message(rec.message_id).text()


async def test_an_account_that_leaves_before_its_first_move_hands_no_rating(
        bot: LiveBot) -> None:
    for _ in range(3):  # a second account joins and leaves at once, match after match
        tid = await open_table(bot, ANN, [BOB])
        await bot.command(BOB, "leave")  # before any move of his: as if he never sat
        players = Players(bot, tid, [ANN])
        while await players.step():
            await bot.settle()
        assert (await bot.bot.service.tables.load(tid)).status == "finished"
        text = await table_text(bot, tid)
        assert "Not rated: fewer than two people made a move." in text and "→" not in text
        assert await bot.store.ratings(GUILD) == []
    [stats] = bot.said(await bot.command(ANN, "stats"))
    assert "3 games played" in stats and "No rated game yet" in stats


async def moved(bot: LiveBot, tid: int) -> frozenset[tuple[int, int]]:
    """(seat, user) of each person who made a move at table ``tid``."""
    return movers(await bot.store.action_log(tid))


async def test_abandoning_before_everyone_moved_is_not_rated(bot: LiveBot) -> None:
    tid = await open_table(bot, ANN, [BOB])
    players = Players(bot, tid, [ANN, BOB])
    assert await players.step()  # the first to play moves; the other has not yet
    await bot.settle()
    assert len(await moved(bot, tid)) == 1
    ix = await bot.command(ANN, "abandon")
    question = bot.reply(ix)
    assert "has not made a move yet, so the match will not be rated" in question.text()
    await bot.click(ANN, question, AbandonButton.id_for(tid))
    assert (await bot.bot.service.tables.load(tid)).status == "abandoned"
    text = await table_text(bot, tid)
    assert "Not rated: the match was abandoned before everyone had made a move." in text
    assert await bot.store.ratings(GUILD) == [] and await bot.store.result_of(tid) is None


async def test_abandoning_after_everyone_moved_rates_the_abandoner_last(bot: LiveBot) -> None:
    tid = await open_table(bot, ANN, [BOB])
    players = Players(bot, tid, [ANN, BOB])
    while len(await moved(bot, tid)) < 2:
        assert await players.step()
        await bot.settle()
    ix = await bot.command(ANN, "abandon")
    question = bot.reply(ix)
    assert "rated as it stands: you last" in question.text()
    rec = await bot.bot.service.tables.load(tid)
    await bot.click(ANN, question, AbandonButton.id_for(tid))
    assert (await bot.bot.service.tables.load(tid)).status == "abandoned"
    text = await table_text(bot, tid)
    assert "Rated as the match stood when it was abandoned." in text and "Ratings" in text
    assert "Ann 1,500? → " in text and "Bob 1,500? → " in text
    state, ann, bob = rec.game, rec.seat_of(ANN.id), rec.seat_of(BOB.id)
    assert ann is not None and bob is not None
    expected = rate([SeatResult(Person(ANN.id, forfeited=True), len(state.seats[ann].keys),
                                state.seats[ann].hp),
                     SeatResult(Person(BOB.id), len(state.seats[bob].keys), state.seats[bob].hp)])
    ratings = {r.user_id: r for r in await bot.store.ratings(GUILD)}
    assert {u: Rating(r.rating.mu, r.rating.sigma) for u, r in ratings.items()} == expected
    assert ratings[ANN.id].rating.mu < ratings[BOB.id].rating.mu
    result = await bot.store.result_of(tid)
    assert result is not None and result.abandoned_by == ANN.id
    assert result.seats[ann].place == 2 and result.seats[bob].place == 1
    [history] = bot.said(await bot.command(BOB, "history"))
    assert f"Table #{tid}" in history and "🏆" not in history  # nobody won it
    assert "Abandoned once everyone had moved, and rated as it stood then." in history


async def test_abandoning_once_the_only_one_who_moved_counts_as_a_game_lost_against_the_ai(
        bot: LiveBot) -> None:
    """A friend who joins and leaves at once leaves Ann alone against the AI: the match counts
    in her record against the AI when played to its end, so closing it once she moved (a game
    about to be lost) counts as a game lost there too, as at a table she sat at alone."""
    tid = await open_table(bot, ANN, [BOB])
    await bot.command(BOB, "leave")  # before any move of his: as if he never sat
    players = Players(bot, tid, [ANN])
    while not await moved(bot, tid):
        assert await players.step()
        await bot.settle()
    question = bot.reply(await bot.command(ANN, "abandon"))
    assert "counts as a game lost in your record against the AI" in question.text(), \
        question.text()
    await bot.click(ANN, question, AbandonButton.id_for(tid))
    assert (await bot.bot.service.tables.load(tid)).status == "abandoned"
    assert "Rated" not in await table_text(bot, tid)
    assert await bot.store.ratings(GUILD) == []
    [stats] = bot.said(await bot.command(ANN, "stats"))
    assert "1 game played, 0 won." in stats and "0% won, 1 game" in stats, stats


async def test_a_damaged_rating_hurts_only_its_own_person(bot: LiveBot, tmp_path: Path) -> None:
    """A rating row damaged in the database (a word where a number belongs): the server's
    leaderboard and everyone's stats still answer, its person reads as unrated, and their next
    match ends and is rated (from a newcomer's rating, which writes the row anew)."""
    db = tmp_path / "k.db"  # the bot fixture's database
    users = put_ratings(db, 3)
    with closing(sqlite3.connect(db)) as con, con:
        con.execute("UPDATE ratings SET mu = 'x' WHERE user_id = ?", (users[1],))
        con.execute("INSERT INTO ratings (guild_id, user_id, mu, sigma, games, wins, "
                    "last_table) VALUES (?, ?, 25.0, 'x', 9, 4, 1)", (GUILD, ANN.id))
    ix = await bot.command(BOB, "leaderboard")
    [text] = bot.said(ix)
    assert f"1. <@{users[0]}>" in text and f"2. <@{users[2]}>" in text
    assert f"<@{users[1]}>" not in text
    [text] = bot.said(await bot.command(User(users[1], "Mid"), "stats"))
    assert "No rated game yet" in text
    [text] = bot.said(await bot.command(User(users[0], "Top"), "stats"))
    assert "1 of 2" in text, text
    tid = await open_table(bot, ANN, [BOB])
    players = await play_to_the_last_move(bot, tid, [ANN, BOB])
    assert await players.step()  # the winning click: the match ends, rated
    assert not await players.step()
    [posted] = [m.text() for m in bot.public() if "Ratings" in m.text()]
    rec = await bot.bot.service.tables.load(tid)
    assert f"{rec.seats[0].name} 1,500? → " in posted  # Ann rated as a newcomer
    rating = await bot.bot.service.store.rating_of(GUILD, ANN.id)
    assert rating is not None and rating.games == 1


async def test_a_confirmation_that_promised_no_rating_never_rates_the_match(
        bot: LiveBot) -> None:
    """Ann asks to abandon while Bob has not moved yet: she is told the match will not be
    rated. Bob makes his first move before she confirms: her click would now rate the match,
    her last, so it is refused privately (she may ask again) and the match plays on."""
    tid = await open_table(bot, ANN, [BOB])
    players = Players(bot, tid, [ANN, BOB])
    assert await players.step()  # the first to play moves; the other has not yet
    await bot.settle()
    question = bot.reply(await bot.command(ANN, "abandon"))
    assert "has not made a move yet, so the match will not be rated" in question.text()
    while len(await moved(bot, tid)) < 2:
        assert await players.step()
        await bot.settle()
    ix = await bot.click(ANN, question, AbandonButton.id_for(tid))
    assert (await bot.bot.service.tables.load(tid)).status == "running"
    assert await bot.store.ratings(GUILD) == [] and await bot.store.result_of(tid) is None
    said = " ".join(bot.said(ix))
    assert "The match changed since you asked" in said, said
    question = bot.reply(await bot.command(ANN, "abandon"))  # asked again: told what it does
    assert "rated as it stands: you last" in question.text()
    await bot.click(ANN, question, AbandonButton.id_for(tid))
    assert (await bot.bot.service.tables.load(tid)).status == "abandoned"
    assert {r.user_id for r in await bot.store.ratings(GUILD)} == {ANN.id, BOB.id}
