"""A hand opened after others moved starts with what happened since the person's last move
(the narration of those moves, up to a screen, then how many more lines the Log tells); a hand
opened when nothing happened since starts as always."""
from __future__ import annotations

from dataclasses import replace

import pytest
from bot_helpers import Clock
from live_bot import LiveBot
from players import ANN, BOB, Players, open_table
from test_bot_forget import forget_me

import bot.game.play as play_module
from bot.discord_side.away import MAX_LINES, away_lines
from bot.game.away import KEPT_MOVES, Said, since_last_move
from engine import Event, Undo, legal_actions, observe
from engine.replay import Replay
from i18n import msg

SINCE = "Since your last move:"


async def play_a_turn(bot: LiveBot, players: Players, tid: int) -> int:
    """The seat to move plays its whole turn; the seat that played."""
    rec = await bot.bot.service.tables.load(tid)
    turn = (rec.game.round, rec.game.turn)
    seat = rec.game.current
    while True:
        assert await players.step()
        now = (await bot.bot.service.tables.load(tid)).game
        if (now.round, now.turn) != turn:
            return seat


async def test_a_hand_opened_after_others_moved_tells_what_happened(bot: LiveBot) -> None:
    tid = await open_table(bot, ANN, [BOB])
    players = Players(bot, tid, [ANN, BOB])
    first = await play_a_turn(bot, players, tid)
    rec = await bot.bot.service.tables.load(tid)
    mover = ANN if rec.seats[first].user == ANN.id else BOB
    other = BOB if mover is ANN else ANN
    hand = (await players.open_hand(other)).text()
    assert SINCE in hand
    assert hand.index("table #") < hand.index(SINCE)  # under the title, above the rest
    told = hand.split(f"{SINCE}**\n", 1)[1]
    assert told.startswith(f"> {mover.name}")  # the narration of their moves follows
    mine = (await players.open_hand(mover)).text()
    assert SINCE not in mine  # their own move was the last: nothing happened since


def test_a_long_absence_is_cut_to_a_screen_with_the_rest_counted() -> None:
    events = [Event(msg("event.draw", who="Ann", count=2), None) for _ in range(MAX_LINES + 5)]
    lines = away_lines(events, "en")
    assert lines[0] == f"**{SINCE}**"
    assert len(lines) == MAX_LINES + 2
    assert lines[-1] == "*… and 5 more lines: the Log button tells the rest.*"
    assert away_lines([], "en") == []
    assert "et encore 5 lignes" in away_lines(events, "fr")[-1]
    assert "a ještě 5 řádků" in away_lines(events, "cs")[-1]


async def test_the_moves_kept_tell_what_the_stored_log_replays(bot: LiveBot) -> None:
    """Through a match with an AI seat and a take-back, what a hand opened while away tells
    comes from the moves the bot kept when they hold the seat's last move, and it is what the
    stored action log replays to, for every seat at every step."""
    tid = await open_table(bot, ANN, [BOB], ai=1)
    players = Players(bot, tid, [ANN, BOB])
    service = bot.bot.service
    from_kept = took_back = 0
    for _ in range(60):
        if not await players.step():
            break
        rec = await service.tables.load(tid)
        if not took_back and Undo() in observe(rec.game, rec.game.current).legal:
            user = rec.seats[rec.game.current].user
            assert user is not None
            await service.play.act(tid, user, rec.version, str(Undo()))
            await bot.settle()
            players.hand_msgs.clear()  # taken back here, not on the hand: open it anew
            took_back = 1
            assert tid not in service.play._said  # a take-back drops the moves kept
            rec = await service.tables.load(tid)
        said = service.play._said.get(tid)
        for seat in range(len(rec.seats)):
            told = await service.play.since_last_move(rec, seat)
            assert told == await since_last_move(service.store, rec, seat), (rec.version, seat)
            from_kept += said is not None and said.version == rec.version and (
                said.since(seat) is not None)
    assert took_back and from_kept > 20


def test_the_moves_kept_let_the_oldest_go_and_know_when_they_cannot_tell() -> None:
    ann, bob = Event(msg("event.draw", who="Ann", count=1), None), Event(
        msg("event.draw", who="Bob", count=1), None)
    secret = Event(msg("event.draw", who="Bob", count=2), 1)  # only Bob sees it
    said = Said(0, 0).then(1, 0, (ann,)).then(2, 1, (bob, secret))
    assert said.since(0) == (bob,) and said.since(1) == ()
    assert said.since(2) == (ann, bob)  # no move of its own since the start: all it may see
    for version in range(3, KEPT_MOVES + 3):
        said = said.then(version, 1, (bob,))
    assert len(said.moves) == KEPT_MOVES and said.first == 2 and said.version == KEPT_MOVES + 2
    assert said.since(0) is None and said.since(2) is None  # older than what is kept
    assert said.since(1) == ()


async def test_the_moves_kept_are_for_the_tables_moved_here_last(
        bot: LiveBot, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the bot keeps of the moves made here (their events, the versions written one after
    the other) holds the tables moved here last: a table whose end another process wrote is
    forgotten once enough others moved, and the next move there starts it again."""
    monkeypatch.setattr(play_module, "KEPT_TABLES", 2)
    tid = await open_table(bot, ANN, [BOB])
    players = Players(bot, tid, [ANN, BOB])
    assert await players.step()
    play = bot.bot.service.play
    rec = await bot.bot.service.tables.load(tid)
    assert tid in play._said and play.wrote_all(tid, rec.version - 1, rec.version)
    others = [replace(rec, id=rec.id + n) for n in (1, 2)]
    for other in others:  # two other tables move here after it
        moved = replace(other, version=other.version + 1)
        play._moved_on(other, moved, legal_actions(other.game)[0], 0, ())
    assert tid not in play._said and not play.wrote_all(tid, rec.version - 1, rec.version)
    assert all(o.id in play._said and play.wrote_all(o.id, o.version, o.version + 1)
               for o in others)
    assert await players.step()  # a move at the forgotten table keeps it again
    assert tid in play._said and len(play._said) == 2


async def test_a_turn_the_ai_played_for_the_person_is_told_when_they_come_back(
        bot: LiveBot, clock: Clock) -> None:
    """At a 3-day match, a person whose time ran out had their turn played by the AI: the
    hand they open when they come back tells what happened since *their* last move (the
    other's turns and the moves the AI made in their place), from the moves kept here and
    from the stored log alike."""
    tid = await open_table(bot, ANN, [BOB], timer=3 * 86400)
    players = Players(bot, tid, [ANN, BOB])
    service = bot.bot.service
    mover = await play_a_turn(bot, players, tid)  # the first player's turn
    rec = await service.tables.load(tid)
    away = rec.game.current  # the other never moves: the AI plays their turn
    assert rec.deadline is not None and away != mover
    clock.now = rec.deadline + 1
    await bot.bot.scheduler.check_timers()
    await bot.settle()
    await play_a_turn(bot, players, tid)  # the first player's second turn
    rec = await service.tables.load(tid)
    assert rec.game.current == away and not rec.seats[away].ai
    rows = await bot.store.action_log(tid)
    replay = Replay(rec.game.config, [r.action for r in rows])
    everything = tuple(e for step in range(1, len(rows) + 1)
                       for e in replay.events(step, away))  # they made no move themselves
    assert await since_last_move(bot.store, rec, away) == everything
    said = service.play._said[tid]
    assert said.version == rec.version and said.since(away) == everything  # kept here
    assert await service.play.since_last_move(rec, away) == everything


async def test_a_person_forgotten_is_not_named_in_what_happened_while_away(
        bot: LiveBot) -> None:
    """A person forgotten on request while the match goes on is named nowhere any more: the
    others' hands opened afterwards tell their moves made before it with their seat's hero,
    not their name, as the Log and the replay do."""
    tid = await open_table(bot, ANN, [BOB])
    players = Players(bot, tid, [ANN, BOB])
    await play_a_turn(bot, players, tid)
    second = await play_a_turn(bot, players, tid)  # the other's turn: theirs to forget
    rec = await bot.bot.service.tables.load(tid)
    gone = ANN if rec.seats[second].user == ANN.id else BOB
    stays = BOB if gone is ANN else ANN
    assert f"> {gone.name}" in (await players.open_hand(stays)).text()

    assert "deleted" in await forget_me(bot, gone)
    await bot.settle()
    players.hand_msgs.clear()
    hand = (await players.open_hand(stays)).text()
    assert SINCE in hand and gone.name not in hand, hand
