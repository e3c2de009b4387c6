"""A person who left a match (``/goblin leave``, their turn timer run out for good), as the
reads of past matches show it on the real bot and the stand-in: ``/goblin history`` and
``/goblin stats`` place them as the ratings do (last, once they had moved, whatever place the
AI reached in their seat, and never the champion), and a person who left before their first
move, whom the ratings treat as never seated, has no such match in their own record or
history."""
from __future__ import annotations

from pathlib import Path

import pytest
from bot_helpers import Clock
from live_bot import CHANNEL, LiveBot
from players import ANN, BOB, SEATS, Players, TinyRenderer, finished_match, open_table
from storage.helpers import Game, played

from bot.discord_side.past import round_series
from bot.discord_side.poster import winner_name
from bot.discord_side.sight import sight_of_table
from bot.discord_side.threads import line
from bot.discord_side.ui.custom_ids import ShareButton
from bot.game.seats import won_for_person
from bot.game.standings import rate_result
from bot.game.texts import phase_line, winner_named
from bot.storage.records import SeatInfo
from engine import GameConfig, Observation, Phase, SeatConfig, apply, new_game, observe
from engine.agents import make_agent
from engine.replay import Replay
from i18n import msg, translate
from loopback import Loopback
from render.charts import summary_chart

#: Bob's seat handed to the normal AI (he left, or ran out of time, after moving).
LEFT = (SEATS[0], SeatInfo(user=BOB.id, name="Bob", hero="taia", ai=True, level="normal"),
        SEATS[2])


def named_game(seed: int) -> Game:
    """The game of :data:`LEFT`'s heroes, its seats named as the bot names them (Ann, Bob,
    and the AI's seat by its hero), played to its end by the normal AI with ``seed``."""
    state = new_game(GameConfig(seats=(
        SeatConfig("horan", name="Ann"), SeatConfig("taia", name="Bob"),
        SeatConfig("argentus", ai=True)), seed=seed))
    agents = [make_agent("normal", seed * 8 + i) for i in range(3)]
    states, moves = [state], []
    while state.phase is not Phase.OVER:
        action = agents[state.current].choose(observe(state, state.current))
        moves.append((state.current, str(action)))
        state, _ = apply(state, action)
        states.append(state)
    return Game(tuple(states), tuple(moves))


def seat_lines(history: str) -> list[str]:
    """The seat lines of a history page's matches, in the order shown."""
    return [line for line in history.splitlines() if line.startswith("- ")]


async def test_one_who_left_after_moving_is_shown_last_as_rated_never_the_winner(
        bot: LiveBot) -> None:
    """Bob moved, then left: the AI won the match in his seat. The ratings put him last, so
    the history lists him last without the champion's cup, and his stats' places say so."""
    game = played(4)
    assert game.final.winner == 1  # Bob's seat, played by the AI at the end
    tid = await finished_match(bot.store, game, start=len(game.moves) - 1, seats=LEFT,
                               channel=CHANNEL, rater=rate_result)
    result = await bot.store.result_of(tid)
    assert result is not None and result.seats[1].handed_to_ai and result.seats[1].moved
    [history] = bot.said(await bot.command(ANN, "history"))
    lines = seat_lines(history)
    assert len(lines) == 3 and "🏆" not in history, history
    assert lines[-1].startswith(f"- 3. <@{BOB.id}>") and "finished by the AI" in lines[-1]
    assert "· rating −" in lines[-1]
    [stats] = bot.said(await bot.command(BOB, "stats"))
    assert "1 game played, 0 won." in stats and "Place in the last game: 3" in stats, stats
    # the end's post names the AI's win in his seat as the table marks that seat, not his
    record = await bot.bot.service.tables.load(tid)
    assert [translate(msg("bot.table.game_over", who=winner_name(record), steps=9), lc)
            for lc in ("en", "fr", "cs")] == [
        "The game is over: Bob [AI] wins after 9 moves.",
        "La partie est finie\u00a0: Bob [IA] l'emporte après 9 actions.",
        "Hra skončila: po 9 akcích vítězí Bob [AI]."]


async def test_one_who_left_before_their_first_move_has_no_such_match_in_their_record(
        bot: LiveBot) -> None:
    """Bob leaves before his first move: the ratings treat him as never seated (Ann's match is
    a game against the AI), so neither his stats nor his history list the match as his."""
    tid = await open_table(bot, ANN, [BOB])
    await bot.command(BOB, "leave")
    players = Players(bot, tid, [ANN])
    while await players.step():
        await bot.settle()
    result = await bot.store.result_of(tid)
    assert result is not None
    assert [(s.user_id, s.moved) for s in result.seats if s.user_id == BOB.id] == [
        (BOB.id, False)]
    [stats] = bot.said(await bot.command(BOB, "stats"))
    assert "No finished game on this server yet." in stats and "Place" not in stats, stats
    [mine] = bot.said(await bot.command(BOB, "history", player=str(BOB.id)))
    assert f"Table #{tid}" not in mine and "No finished match to show yet." in mine, mine
    [everyone] = bot.said(await bot.command(ANN, "history"))
    assert f"Table #{tid}" in everyone and f"<@{BOB.id}>" in everyone  # the seat he left
    [hers] = bot.said(await bot.command(ANN, "stats"))
    assert "1 game played" in hers, hers


async def test_the_final_table_names_the_ai_s_win_in_his_seat_as_the_end_post_does(
        bot: LiveBot) -> None:
    """Bob left and the AI won in his seat: the final table message's line of who won, the
    rules' narration of the last battle there and in the Log, the summary chart's name beside
    the trophy and the channel's line of a match in a thread mark the seat as the AI's, as the
    end's post does, in every language."""
    game = named_game(4)
    assert game.final.winner == 1
    tid = await finished_match(bot.store, game, seats=LEFT, channel=CHANNEL, rater=rate_result)
    await bot.bot.poster.announce_end(await bot.bot.service.tables.load(tid))
    await bot.settle()
    final = bot.public()[-1]
    text = final.text()
    assert f"The game is over: Bob [AI] wins after {game.final.step} moves." in text, text
    assert "\nBob [AI] is the Champion of the Realm!\n" in text, text
    assert ("> Bob [AI] defeats the Lord of All Monsters and is the Champion of the Realm!"
            in text), text
    assert "> Bob defeats the" in text  # the battle he won, as every other line, names him
    told = await bot.bot.service.story.last_turns(tid, ANN.id)
    lines = {lc: [translate(e.text, lc) for e in told.events] for lc in ("en", "fr", "cs")}
    champion = {lc: lines[lc][-1] for lc in lines}
    assert champion == {
        "en": "Bob [AI] defeats the Lord of All Monsters and is the Champion of the Realm!",
        "fr": "Bob [IA] terrasse le Seigneur de Tous les Monstres et devient le Champion du "
              "Royaume\u00a0!",
        "cs": "Bob [AI] pokořuje vládce nestvůr a vítězí!"}, champion
    record = await bot.bot.service.tables.load(tid)
    assert [translate(winner_named(phase_line(observe(record.game, None)), record), lc)
            for lc in ("en", "fr", "cs")] == [
        "Bob [AI] is the Champion of the Realm!",
        "Bob [IA] devient le Champion du Royaume\u00a0!",
        "Vítězí Bob [AI]! Vládce nestvůr je pokořen."]
    # its replay, at its last move: who won, the narration, and the seek menu's bookmark
    replay = bot.reply(await bot.command(ANN, "replay", id=tid))
    last = next(c for c in replay.custom_ids() if c.startswith("kg:rp:") and c.endswith("last"))
    await bot.click(ANN, replay, last)
    shown = bot.message(replay).text()
    assert "\nBob [AI] is the Champion of the Realm!" in shown, shown
    assert "> Bob [AI] defeats the Lord of All Monsters and is the Champion of the Realm!" \
        in shown, shown
    assert "Bob [AI] defeats the Lord of All Monsters, the " in shown, shown
    assert "Bob is the Champion" not in shown and "Bob defeats the Lord" not in shown, shown
    # the channel's line, had the match been played in a thread of its own
    link = f"https://discord.com/channels/{record.guild_id}/77"
    assert [translate(line(record, 77, "won"), lc) for lc in ("en", "fr", "cs")] == [
        f"Bob [AI] won against 2 opponents, Ann and 1 AI →\u00a0{link}",
        f"Bob [IA] a gagné contre 2 adversaires, Ann et 1 IA →\u00a0{link}",
        f"Hru vyhrává Bob [AI], 2 soupeři: Ann a 1 AI →\u00a0{link}"]
    loaded = await bot.bot.service.history.replay(tid, sight_of_table(record.place_key))
    [summary] = [a.data for a in final.attachments if a.filename == "summary.png"]
    # Bob's name is marked as the AI's seat is (the AI's own seat, 2, too), beside his trophy
    assert summary == summary_chart(round_series(loaded.replay, {1, 2}), "en")
    assert summary != summary_chart(round_series(loaded.replay, {2}), "en")


class Jobs(TinyRenderer):
    """Tiny pictures, each table picture's job kept: who won in it and the seats marked as
    handed to the AI."""

    def __init__(self) -> None:
        self.tables: list[tuple[int | None, tuple[int, ...]]] = []

    def table(self, obs: Observation, locale: str, handed: tuple[int, ...] = ()) -> bytes:
        self.tables.append((obs.winner, handed))
        return super().table(obs, locale, handed)


async def test_the_table_picture_marks_the_seat_of_one_who_left_and_the_ai_s_win_there(
        lb: Loopback, tmp_path: Path, clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bob leaves a running match: the table message's picture is drawn again once, marking
    his seat as the AI's; the AI wins there, and the final table picture, as its replay's
    last step, names that win as the AI's (their jobs carry his seat as handed to the AI), as
    the texts do."""
    jobs = Jobs()
    animated: list[tuple[int, ...]] = []

    def animation(replay: Replay, locale: str, handed: tuple[int, ...] = ()) -> bytes:
        animated.append(handed)
        return b"GIF89a" + b"\0" * 16

    monkeypatch.setattr("bot.discord_side.past.match_animation", animation)
    live = await LiveBot.start(lb, tmp_path / "k.db", jobs, clock=clock)
    try:
        game = named_game(4)
        step = 427  # Bob's seat is to move, no battle on: a table picture
        assert game.moves[step][0] == 1 and game.states[step].battle is None
        tid = await finished_match(live.store, game, upto=step)
        await live.bot.poster.refresh(await live.bot.service.tables.load(tid))
        await live.settle()
        drawn = len(jobs.tables)
        assert drawn and all(job == (None, ()) for job in jobs.tables)  # his own seat
        await live.command(BOB, "leave")
        await live.settle()
        record = await live.bot.service.tables.load(tid)
        assert record.status == "finished" and won_for_person(record)
        # once when the seat changed hands, then the AI's win in it (its battle in between
        # shows in battle pictures)
        assert jobs.tables[drawn:] == [(None, (1,)), (1, (1,))], jobs.tables
        final = live.public()[-1]
        assert [a.filename for a in final.attachments][:1] == ["table.png"]
        assert "\nBob [AI] is the Champion of the Realm!\n" in final.text(), final.text()
        # its replay: the end marks his seat as the AI's, as its text marks the win; its first
        # step shows the seat as it was set up (when the AI took it over is not in the replay)
        replay = live.reply(await live.command(ANN, "replay", id=tid))
        drawn = len(jobs.tables)
        last = next(c for c in replay.custom_ids()
                    if c.startswith("kg:rp:") and c.endswith("last"))
        await live.click(ANN, replay, last)
        assert jobs.tables[drawn:] == [(1, (1,))], jobs.tables
        assert "\nBob [AI] is the Champion of the Realm!" in live.message(replay).text()
        first = next(c for c in live.message(replay).custom_ids()
                     if c.startswith("kg:rp:") and c.endswith("first"))
        await live.click(ANN, live.message(replay), first)
        assert jobs.tables[drawn + 1:] == [(None, ())], jobs.tables
        # its animation, shared: drawn with his seat handed to the AI (its end marks it)
        await live.click(ANN, live.message(replay), ShareButton.id_for(tid))
        assert animated == [(1,)]
    finally:
        await live.stop()
