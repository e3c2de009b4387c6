"""Hints on the real bot and the stand-in: the table setting (chosen in /goblin new, else on for
one person against AI seats and off for several people), the Hint button only on the person's
own decision, a private answer naming a legal move with the chances of three moves and a reason,
one hint per decision (a second click, even after a restart, gets the same hint back), the hints
counted in the database, a stale Hint button refused, and a hint never holding up an AI seat's
decision."""

from __future__ import annotations

import asyncio
import copy
import os
import re
import sqlite3
import threading
from collections.abc import AsyncIterator
from contextlib import closing
from pathlib import Path

import pytest
from bot_helpers import Clock, gated_advise, normal_instead
from live_bot import LiveBot, offered, table_id
from players import ANN, BOB, Players, TinyRenderer, finished_match, open_table
from storage.helpers import played

from bot.discord_side.ui.custom_ids import LobbyButton
from bot.game.facts import can_pay, for_sale
from bot.game.hints import HintAnswer, first_met, hint_label, hint_lines
from bot.game.texts import describe
from bot.storage.records import LogRow, TableRecord
from bot.workers.thinking import Thinking, advise
from engine import (
    Action,
    BuyPawned,
    BuyPotion,
    CancelPurchase,
    Fight,
    GameConfig,
    Observation,
    Revive,
    SeatConfig,
    SetStacking,
    Undo,
    VisitMerchant,
    apply,
    new_game,
    observe,
)
from engine.agents.hint import Hint, hint
from i18n import LOCALES, msg, translate
from loopback import Loopback, Message, User

#: A small search budget: the hints stay legal and quick (the hard level's budget is 256).
ITERATIONS = 16
CHANCE = re.compile(r"^(\d+)% (?:±\d+|\(tried only once: no margin known\)) - (.+?)"
                    r"(?: \(suggested\))?$", re.MULTILINE)


def quick() -> Thinking:
    """AI seats at normal level and hints on a small budget, in threads."""
    return Thinking(workers=0, work=normal_instead, hint_iterations=ITERATIONS)


@pytest.fixture
async def h(lb: Loopback, tmp_path: Path, clock: Clock) -> AsyncIterator[LiveBot]:
    live = await LiveBot.start(lb, tmp_path / "k.db", TinyRenderer(), clock=clock,
                               thinking=quick())
    yield live
    await live.stop()


def hint_button(message: Message) -> str | None:
    """The custom_id of a message's Hint button, if it has one."""
    return next((c for c in message.custom_ids() if c.startswith("kg:hint:")), None)


async def whose_turn(h: LiveBot, tid: int, users: list[User]) -> tuple[User, Observation]:
    """The person who must decide at the table, and their observation."""
    rec = await h.bot.service.tables.load(tid)
    seat = rec.game.current
    return next(u for u in users if u.id == rec.seats[seat].user), observe(rec.game, seat)


async def test_one_person_against_the_ai_gets_a_private_hint_once_per_decision(
        lb: Loopback, tmp_path: Path, clock: Clock) -> None:
    h = await LiveBot.start(lb, tmp_path / "k.db", TinyRenderer(), clock=clock,
                            thinking=quick())
    try:
        await h.command(ANN, "new")
        assert "Hints: on if only one person plays, off otherwise." in h.public()[-1].text()
        await h.click(ANN, h.public()[-1], f"kg:lobby:{table_id(h.public()[-1])}:ai")
        tid = table_id(h.public()[-1])
        await h.click(ANN, h.public()[-1], LobbyButton.id_for(tid, "start", None))
        rec = await h.bot.service.tables.load(tid)
        assert rec.hints is True
        assert "Hints are on at this table" in h.last_table_message().text()
        hand = await Players(h, tid, [ANN]).open_hand(ANN)
        button = hint_button(hand)
        assert button == f"kg:hint:{tid}:{rec.version}"
        obs = observe(rec.game, rec.game.current)
        ix = await h.click(ANN, hand, button)
        answer = h.reply(ix)
        assert answer.ephemeral and answer.owner == ANN.id and answer.id != hand.id
        text = answer.text()
        assert not any("Suggested move" in m.text() for m in h.public())
        advice = hint(obs, iterations=ITERATIONS)  # the same hint: a function of what Ann sees
        labels = {translate(hint_label(a, obs), "en"): a for a in obs.legal}
        best = re.search(r"Suggested move: \*\*(.+)\*\*", text)
        assert best is not None and labels[best.group(1)] == advice.best
        chances = CHANCE.findall(text)
        assert len(chances) == len(advice.moves) == 3, text
        assert [labels[name] for _, name in chances] == [a for a, _ in advice.moves]
        assert f"{best.group(1)} (suggested)" in text  # the suggested move among the chances
        assert [int(p) for p, _ in chances] == [round(c * 100) for _, c in advice.moves]
        assert translate(advice.reason, "en") in text
        assert "You have used 1 hint in this game." in text
        assert await h.store.hints_used(tid) == {rec.game.current: 1}

        again = h.reply(await h.click(ANN, hand, button))  # a second click: the same hint
        assert "You already asked for a hint on this move" in again.text()
        assert CHANCE.findall(again.text()) == chances
        await h.stop()
        h = await LiveBot.start(lb, tmp_path / "k.db", TinyRenderer(), clock=clock,
                                thinking=quick())  # a restart forgets nothing
        after = h.reply(await h.click(ANN, hand, button))
        assert "You already asked" in after.text() and CHANCE.findall(after.text()) == chances
        assert await h.store.hints_used(tid) == {rec.game.current: 1}
    finally:
        await h.stop()


async def test_a_hint_button_of_a_decision_already_played_is_refused(h: LiveBot) -> None:
    tid = await open_table(h, ANN, [], ai=1)
    players = Players(h, tid, [ANN])
    hand = copy.deepcopy(await players.open_hand(ANN))  # as Ann's screen still shows it
    button = hint_button(hand)
    assert button is not None
    await players.step()  # Ann plays from a fresh hand message
    ix = await h.click(ANN, hand, button)
    assert any("already been played" in t for t in h.said(ix)), h.said(ix)
    assert await h.store.hints_used(tid) == {}
    hand = await players.open_hand(ANN)  # the next decision: another hint, counted
    texts = h.said(await h.click(ANN, hand, hint_button(hand) or ""))
    assert any("Suggested move" in t for t in texts)
    rec = await h.bot.service.tables.load(tid)
    assert await h.store.hints_used(tid) == {rec.seat_of(ANN.id): 1}


async def test_the_first_hint_button_shown_starts_the_hint_workers(h: LiveBot) -> None:
    """The workers start as the Hint button is shown, so the first click does not wait for
    them to start."""
    hints = h.bot.service.thinking.hints
    tid = await open_table(h, ANN, [], ai=1)
    assert not hints.active  # no hand shown yet
    hand = await Players(h, tid, [ANN]).open_hand(ANN)
    assert hint_button(hand) is not None and hints.active


async def test_two_people_get_no_hints_unless_the_host_chose_them(h: LiveBot) -> None:
    tid = await open_table(h, ANN, [BOB], ai=0)
    rec = await h.bot.service.tables.load(tid)
    assert rec.hints is False
    assert "Hints are on" not in h.last_table_message().text()
    user, _ = await whose_turn(h, tid, [ANN, BOB])
    hand = await Players(h, tid, [ANN, BOB]).open_hand(user)
    assert hint_button(hand) is None and "kg:do:" in " ".join(hand.custom_ids())
    assert not h.bot.service.thinking.hints.active  # no Hint button shown: no hint worker
    forged = f"kg:hint:{tid}:{rec.version}"  # a button the hand never showed
    hand.components[0]["components"].append(
        {"type": 1, "components": [{"type": 2, "style": 2, "label": "x", "custom_id": forged}]})
    ix = await h.click(user, hand, forged)
    assert any("Hints are off at this table" in t for t in h.said(ix))
    await h.abandon(ANN)

    tid = await open_table(h, ANN, [BOB], ai=0, hints=True)  # the host's choice is honoured
    rec = await h.bot.service.tables.load(tid)
    assert rec.hints is True  # the lobby message is gone: the table message says so
    assert "Hints are on at this table" in h.last_table_message().text()
    assert not any("kg:lobby:" in " ".join(m.custom_ids()) for m in h.public())
    user, _ = await whose_turn(h, tid, [ANN, BOB])
    other = BOB if user == ANN else ANN
    players = Players(h, tid, [ANN, BOB])
    assert hint_button(await players.open_hand(user)) is not None  # their decision
    assert hint_button(await players.open_hand(other)) is None  # not theirs


async def test_the_host_may_turn_hints_off_against_the_ai(h: LiveBot) -> None:
    tid = await open_table(h, ANN, [], ai=2, hints=False)
    assert "Hints are on" not in h.last_table_message().text()
    rec = await h.bot.service.tables.load(tid)
    assert rec.hints is False
    hand = await Players(h, tid, [ANN]).open_hand(ANN)
    assert hint_button(hand) is None


async def test_an_ai_decision_asked_after_a_hint_is_made_first() -> None:
    started, release = threading.Event(), threading.Event()

    def slow_advise(obs: Observation, iterations: int) -> Hint:
        started.set()
        release.wait(30)
        return hint(obs, iterations=iterations)

    thinking = Thinking(workers=0, work=normal_instead, advise=slow_advise,
                        hint_iterations=ITERATIONS)
    state = new_game(GameConfig(seats=(SeatConfig("horan"), SeatConfig("taia")), seed=3))
    obs = observe(state, state.current)
    try:
        asked = asyncio.get_running_loop().create_task(thinking.hint(obs))
        assert await asyncio.to_thread(started.wait, 30)  # the hint is being worked out...
        move = await thinking.choose("hard", 1, obs)  # ...and the AI's decision is made
        assert move in obs.legal and not asked.done()
        release.set()
        assert (await asked).best in obs.legal
    finally:
        release.set()
        await thinking.close()


def broken_advise(obs: Observation, iterations: int) -> Hint:
    """A hint worker that fails."""
    raise RuntimeError("no hint today")


async def test_a_hint_that_fails_is_told_and_not_counted(lb: Loopback, tmp_path: Path,
                                                         clock: Clock) -> None:
    thinking = Thinking(workers=0, work=normal_instead, advise=broken_advise)
    h = await LiveBot.start(lb, tmp_path / "k.db", TinyRenderer(), clock=clock,
                            thinking=thinking)
    try:
        tid = await open_table(h, ANN, [], ai=1)
        hand = await Players(h, tid, [ANN]).open_hand(ANN)
        ix = await h.click(ANN, hand, hint_button(hand) or "")
        assert any("could not be worked out" in t for t in h.said(ix)), h.said(ix)
        assert await h.store.hints_used(tid) == {}
        thinking.advise = advise  # the worker is back: asking again works
        texts = h.said(await h.click(ANN, hand, hint_button(hand) or ""))
        assert any("Suggested move" in t and "already asked" not in t for t in texts)
    finally:
        await h.stop()


async def test_a_hint_is_worked_out_in_a_worker_process() -> None:
    thinking = Thinking(workers=1, hint_iterations=ITERATIONS, hint_workers=1)
    state = new_game(GameConfig(seats=(SeatConfig("horan"), SeatConfig("taia")), seed=3))
    obs = observe(state, state.current)
    try:
        assert await thinking.hint(obs) == hint(obs, iterations=ITERATIONS)
        assert thinking.hints.started == 1 and thinking.pool.started == 0
    finally:
        await thinking.close()


async def test_two_hints_asked_at_once_are_worked_out_side_by_side(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """While one hint worker is held, the other works out the second hint."""
    gate = tmp_path / "gate"
    gate.mkdir()
    os.mkfifo(gate / "go")
    (gate / "armed").touch()
    monkeypatch.setenv("KARAK_TEST_GATE", str(gate))  # the spawned workers inherit it
    thinking = Thinking(workers=1, advise=gated_advise, hint_iterations=ITERATIONS,
                        hint_workers=2)
    state = new_game(GameConfig(seats=(SeatConfig("horan"), SeatConfig("taia")), seed=3))
    obs = observe(state, state.current)
    expected = hint(obs, iterations=ITERATIONS)
    try:
        asked = [asyncio.ensure_future(thinking.hint(obs)) for _ in range(2)]
        done, held = await asyncio.wait(asked, return_when=asyncio.FIRST_COMPLETED)
        assert len(held) == 1 and [d.result() for d in done] == [expected]
        await asyncio.to_thread((gate / "go").write_text, "go")  # the held worker goes on
        assert await held.pop() == expected
        assert thinking.hints.started == 2 and thinking.pool.started == 0
    finally:
        await thinking.close()


async def test_a_suggested_move_ranked_below_another_is_said_to_be_within_the_margin(
        h: LiveBot) -> None:
    """The chances are listed highest first, each with its margin, the suggested move marked;
    when another move ranks above it the answer says why (within the estimate's margin), and
    every move is named with a verb, as the hand names it."""
    tid = await open_table(h, ANN, [], ai=1)
    rec = await h.bot.service.tables.load(tid)
    seat = rec.seat_of(ANN.id)
    assert seat is not None
    obs = observe(rec.game, seat)
    fights = [a for a in obs.legal if isinstance(a, Fight) and a.slot]
    suggested, higher = fights[3], fights[1]
    advice = Hint(suggested, ((higher, 0.24), (suggested, 0.23)), msg("hint.best"), (0.03, 0.02))
    text = "\n".join(translate(line, "en") for line in
                     hint_lines(HintAnswer(rec, seat, obs, advice, False, 1)))
    name = translate(describe(suggested, obs).label, "en")
    other = translate(describe(higher, obs).label, "en")
    assert re.match(r"Fight the .+, level\u00a0I, place\u00a0\d$", name), name
    assert f"Suggested move: **{name}**" in text
    assert text.index(f"24% ±3 - {other}\n") < text.index(f"23% ±2 - {name} (suggested)\n")
    assert f"**{other}** is estimated a little higher" in text
    assert "within the estimate's margin" in text
    assert translate(msg("hint.best"), "en") not in text  # it would say "the best chance"
    for lc in LOCALES:  # every line reads in every language
        assert not [t for t in (translate(line, lc) for line in hint_lines(
            HintAnswer(rec, seat, obs, advice, False, 1))) if t.startswith("bot.")]

    kept = Hint(suggested, ((suggested, 0.23), (higher, 0.24)), msg("hint.best"))  # no margins
    lines = [translate(line, "en") for line in hint_lines(HintAnswer(rec, seat, obs, kept,
                                                                     True, 1))]
    assert lines.index(f"24% - {other}") < lines.index(f"23% - {name} (suggested)")
    assert any("is estimated a little higher" in line for line in lines)
    alone = Hint(higher, ((higher, 0.24), (suggested, 0.23)), msg("hint.best"), (0.03, 1.0))
    text = "\n".join(translate(line, "en") for line in
                     hint_lines(HintAnswer(rec, seat, obs, alone, False, 1)))
    assert "little higher" not in text
    assert f"23% (tried only once: no margin known) - {name}" in text


async def test_reviving_at_full_hp_is_named_short_inside_a_hint_s_answer(h: LiveBot) -> None:
    """The hand explains reviving at full HP after a colon; inside a hint's answer (the
    suggestion, the chances, the note on a higher estimate) it has a short name instead."""
    tid = await open_table(h, ANN, [], ai=1)
    rec = await h.bot.service.tables.load(tid)
    seat = rec.seat_of(ANN.id)
    assert seat is not None
    obs = observe(rec.game, seat)
    rest = next(a for a in obs.legal if isinstance(a, Revive))
    fight = next(a for a in obs.legal if isinstance(a, Fight))
    assert describe(rest, obs).label.key == "bot.move.rest"
    advice = Hint(fight, ((rest, 0.26), (fight, 0.25)), msg("hint.best"), (0.02, 0.02))
    for lc in LOCALES:
        lines = [translate(line, lc) for line in
                 hint_lines(HintAnswer(rec, seat, obs, advice, False, 1))]
        short = translate(msg("bot.hint.short.rest"), lc)
        assert any(line.endswith(f" {short}") for line in lines), lines
        assert any(f"**{short}**" in line for line in lines), lines
        assert translate(describe(rest, obs).label, lc) not in "\n".join(lines)


async def test_a_hint_for_a_decision_made_says_it_no_longer_applies(h: LiveBot) -> None:
    tid = await open_table(h, ANN, [], ai=1)
    players = Players(h, tid, [ANN])
    hand = await players.open_hand(ANN)
    ix = await h.click(ANN, hand, hint_button(hand) or "")
    answer = h.reply(ix)
    assert "Suggested move" in answer.text()
    rec = await h.bot.service.tables.load(tid)
    move = next(a for a in observe(rec.game, rec.game.current).legal
                if not isinstance(a, SetStacking))  # a setting leaves the decision as it was
    await h.play(ANN, hand, str(move))  # Ann makes the decision from her hand message
    after = h.lb.message(answer.id)
    assert "no longer applies" in after.text() and "Suggested move" not in after.text()
    assert after.ephemeral and after.owner == ANN.id


async def test_a_hint_whose_decision_the_turn_timer_made_says_it_no_longer_applies(
        h: LiveBot, clock: Clock) -> None:
    await h.command(ANN, "new", timer=60)
    lobby = h.public()[-1]
    tid = table_id(lobby)
    await h.click(ANN, lobby, LobbyButton.id_for(tid, "ai", None))
    await h.click(ANN, lobby, LobbyButton.id_for(tid, "start", None))
    hand = await Players(h, tid, [ANN]).open_hand(ANN)
    answer = h.reply(await h.click(ANN, hand, hint_button(hand) or ""))
    assert "Suggested move" in answer.text()
    rec = await h.bot.service.tables.load(tid)
    assert rec.deadline is not None
    clock.now = rec.deadline + 1
    await h.bot.scheduler.check_timers()  # the AI plays Ann's turn
    await h.settle()
    assert "no longer applies" in h.lb.message(answer.id).text()


async def test_a_hint_whose_decision_the_ai_made_after_its_person_left_no_longer_applies(
        h: LiveBot) -> None:
    """The person to play asks for a hint, then leaves the match: the AI makes the decision
    in their place, so the hint's answer says it no longer applies, as when their turn timer
    ran out."""
    tid = await open_table(h, ANN, [BOB], hints=True)
    user, _ = await whose_turn(h, tid, [ANN, BOB])
    hand = await Players(h, tid, [ANN, BOB]).open_hand(user)
    answer = h.reply(await h.click(user, hand, hint_button(hand) or ""))
    assert "Suggested move" in answer.text()
    await h.command(user, "leave")  # the AI plays the rest of the turn
    await h.settle()
    rec = await h.bot.service.tables.load(tid)
    assert rec.seats[rec.seat_of(user.id) or 0].ai
    after = h.lb.message(answer.id).text()
    assert "no longer applies" in after and "Suggested move" not in after, after


async def until_a_move_may_be_taken_back(players: Players) -> tuple[TableRecord, Action]:
    """``players`` play until the person to play may make a move they could take back: the
    table then, and such a move."""
    for _ in range(400):
        rec = await players.h.bot.service.tables.load(players.tid)
        state = rec.game
        opening = [a for a in observe(state, state.current).legal
                   if a != Undo() and apply(state, a, seat=state.current)[0].undo is not None]
        if opening:
            return rec, opening[0]
        assert await players.step(), "the game ended first"
    raise AssertionError("never reached")


async def test_a_decision_met_again_after_a_take_back_gets_its_hint_back(h: LiveBot) -> None:
    """Ann asks for a hint, plays a move and takes it back: the decision in front of her is the
    one she asked about, so her next click gets that hint back (given again), not a second hint
    counted against her."""
    tid = await open_table(h, ANN, [], ai=1)
    players = Players(h, tid, [ANN])
    service = h.bot.service
    rec, move = await until_a_move_may_be_taken_back(players)
    hand = await players.open_hand(ANN)
    first = h.reply(await h.click(ANN, hand, hint_button(hand) or ""))
    chances = CHANCE.findall(first.text())
    assert "You have used 1 hint in this game." in first.text() and chances
    await h.play(ANN, hand, str(move))
    await h.play(ANN, h.message(hand), str(Undo()))
    back = await service.tables.load(tid)
    assert back.game == rec.game and back.version == rec.version + 2  # the same decision
    hand = h.message(hand)
    again = h.reply(await h.click(ANN, hand, hint_button(hand) or "")).text()
    assert "You already asked for a hint on this move" in again, again
    assert CHANCE.findall(again) == chances
    assert "You have used 1 hint in this game." in again
    assert await h.store.hints_used(tid) == {rec.game.current: 1}


async def test_a_hint_s_answer_applies_again_once_a_take_back_returns_to_its_decision(
        h: LiveBot) -> None:
    """Ann asks for a hint, plays a move (the answer says it no longer applies) and takes it
    back: the decision is in front of her again, so the answer shows the hint again, as it
    would had she never moved; once she decides again it no longer applies."""
    tid = await open_table(h, ANN, [], ai=1)
    players = Players(h, tid, [ANN])
    rec, move = await until_a_move_may_be_taken_back(players)
    hand = await players.open_hand(ANN)
    answer = h.reply(await h.click(ANN, hand, hint_button(hand) or ""))
    shown = answer.text()
    assert "Suggested move" in shown
    await h.play(ANN, hand, str(move))
    assert "no longer applies" in h.lb.message(answer.id).text()
    await h.play(ANN, h.message(hand), str(Undo()))
    assert (await h.bot.service.tables.load(tid)).game == rec.game
    assert h.lb.message(answer.id).text() == shown
    await h.play(ANN, h.message(hand), str(move))
    assert "no longer applies" in h.lb.message(answer.id).text()
    assert await h.store.hints_used(tid) == {rec.game.current: 1}


async def test_a_hint_s_answer_applies_again_once_its_move_is_played_again(h: LiveBot) -> None:
    """Ann plays a move, asks for a hint on the decision that follows, takes the move back (the
    answer says it no longer applies) and plays it again: the same decision is in front of her,
    so the answer shows the hint again, and asking again gives it back, not a second hint."""
    tid = await open_table(h, ANN, [], ai=1)
    players = Players(h, tid, [ANN])
    rec, move = await until_a_move_may_be_taken_back(players)
    hand = await players.open_hand(ANN)
    await h.play(ANN, hand, str(move))
    after = await h.bot.service.tables.load(tid)
    hand = h.message(hand)
    answer = h.reply(await h.click(ANN, hand, hint_button(hand) or ""))
    shown = answer.text()
    assert "Suggested move" in shown
    await h.play(ANN, h.message(hand), str(Undo()))
    assert "no longer applies" in h.lb.message(answer.id).text()
    await h.play(ANN, h.message(hand), str(move))
    assert (await h.bot.service.tables.load(tid)).game == after.game
    assert h.lb.message(answer.id).text() == shown
    hand = h.message(hand)
    again = h.reply(await h.click(ANN, hand, hint_button(hand) or "")).text()
    assert "You already asked for a hint on this move" in again, again
    assert await h.store.hints_used(tid) == {rec.game.current: 1}


async def test_a_hint_button_drawn_before_a_take_back_says_so(h: LiveBot) -> None:
    """A Hint button of a hand message drawn before a move was taken back is refused as the
    move buttons beside it are: it was drawn before a move was taken back (not played)."""
    tid = await open_table(h, ANN, [], ai=1)
    players = Players(h, tid, [ANN])
    rec, move = await until_a_move_may_be_taken_back(players)
    hand = await players.open_hand(ANN)
    old = copy.deepcopy(hand)  # as Ann's screen still shows it
    await h.play(ANN, hand, str(move))
    await h.play(ANN, h.message(hand), str(Undo()))
    said = " ".join(h.said(await h.click(ANN, old, hint_button(old) or "")))
    assert "before a move was taken back" in said and "already" not in said, said
    assert await h.store.hints_used(tid) == {}
    for lc in LOCALES:
        assert translate(msg("bot.hint.taken_back"), lc) != translate(msg("bot.hint.stale"), lc)


async def test_a_deck_stacking_choice_leaves_the_decision_and_its_hint_as_they_were(
        h: LiveBot) -> None:
    """Ann asks for a hint at the start of her turn, then changes her deck stacking preference
    (a standing setting, which does not end the decision): the answer still applies, and the
    Hint button of the hand as it is now gives the same hint back, not a second one counted
    against her."""
    tid = await open_table(h, ANN, [], ai=1)
    players = Players(h, tid, [ANN])
    for _ in range(400):
        rec = await h.bot.service.tables.load(tid)
        obs = observe(rec.game, rec.game.current)
        stack = next((a for a in obs.legal if isinstance(a, SetStacking)), None)
        if stack is not None:
            break
        assert await players.step(), "the game ended first"
    else:
        raise AssertionError("never reached")
    hand = await players.open_hand(ANN)
    answer = h.reply(await h.click(ANN, hand, hint_button(hand) or ""))
    shown = answer.text()
    assert "Suggested move" in shown
    await h.play(ANN, hand, str(stack))
    assert h.lb.message(answer.id).text() == shown  # the decision is still in front of her
    hand = h.message(hand)
    again = h.reply(await h.click(ANN, hand, hint_button(hand) or "")).text()
    assert "You already asked for a hint on this move" in again, again
    assert CHANCE.findall(again) == CHANCE.findall(shown)
    assert "You have used 1 hint in this game." in again
    assert await h.store.hints_used(tid) == {rec.game.current: 1}


async def test_a_purchase_cancelled_puts_the_merchant_s_decision_and_its_hint_back(
        h: LiveBot) -> None:
    """Ann asks for a hint at the merchant, picks something to buy (the answer no longer
    applies) and cancels the purchase before paying: the merchant's decision is in front of her
    again, as after a take-back, so the answer shows its hint again and asking gives it back,
    not a second hint counted against her."""
    tid = await open_table(h, ANN, [], ai=1)
    players = Players(h, tid, [ANN])
    for _ in range(600):
        rec = await h.bot.service.tables.load(tid)
        obs = observe(rec.game, rec.game.current)
        buy = next((a for a in obs.legal if isinstance(a, BuyPotion | BuyPawned)), None)
        if buy is not None:
            break
        if VisitMerchant() in obs.legal and can_pay(obs) and for_sale(obs):
            await h.play(ANN, await players.open_hand(ANN), str(VisitMerchant()))
            continue
        assert await players.step(), "the game ended first"
    else:
        raise AssertionError("never reached")
    hand = await players.open_hand(ANN)
    answer = h.reply(await h.click(ANN, hand, hint_button(hand) or ""))
    shown = answer.text()
    assert "Suggested move" in shown
    await h.play(ANN, hand, str(buy))
    assert "no longer applies" in h.lb.message(answer.id).text()
    await h.play(ANN, h.message(hand), str(CancelPurchase()))
    assert h.lb.message(answer.id).text() == shown
    hand = h.message(hand)
    again = h.reply(await h.click(ANN, hand, hint_button(hand) or "")).text()
    assert "You already asked for a hint on this move" in again, again
    assert "You have used 1 hint in this game." in again
    assert await h.store.hints_used(tid) == {rec.game.current: 1}


def test_a_decision_is_first_met_where_the_same_moves_stood() -> None:
    """Versions 0..6 of a log ``a b undo b undo undo c``: a take-back returns to the version the
    same moves stood at first; a move played again after a take-back reaches one met too."""
    log = [LogRow(step=0, seat=0, user_id=1, by_ai=False, action=a, at=0.0)
           for a in ("a", "b", "undo", "b", "undo", "undo", "c")]
    assert [first_met(log, v) for v in range(8)] == [0, 1, 2, 1, 2, 1, 0, 7]


def test_a_deck_stacking_choice_is_no_new_decision() -> None:
    """Versions 0..6 of a log ``a stack:top b undo undo c``: the decision after a stacking
    choice is the one before it, also once a take-back returns past it."""
    log = [LogRow(step=0, seat=0, user_id=1, by_ai=False, action=a, at=0.0)
           for a in ("a", "stack:top", "b", "undo", "undo", "c")]
    assert [first_met(log, v) for v in range(7)] == [0, 1, 1, 3, 1, 1, 6]


def test_a_purchase_cancelled_returns_to_the_decision_before_it() -> None:
    """Versions 0..6 of a log ``visit buy cancel buy undo undo``: a purchase cancelled
    returns to the merchant's decision before it, and taking the cancel back to the payment's."""
    log = [LogRow(step=0, seat=0, user_id=1, by_ai=False, action=a, at=0.0)
           for a in ("visit", "buy:potion:healing", "cancel", "buy:potion:healing", "undo",
                     "undo")]
    assert [first_met(log, v) for v in range(7)] == [0, 1, 2, 1, 2, 1, 2]


async def test_a_hint_older_than_its_click_s_token_is_left_as_it_is(h: LiveBot,
                                                                    clock: Clock) -> None:
    """Ann thinks for more than Discord's 15 minutes after a hint: the click's token that
    would edit the hint's answer has expired, so the bot leaves it as it is instead of using
    it (Discord answers 401 and counts it against the bot)."""
    tid = await open_table(h, ANN, [], ai=1)
    players = Players(h, tid, [ANN])
    hand = await players.open_hand(ANN)
    answer = h.reply(await h.click(ANN, hand, hint_button(hand) or ""))
    assert "Suggested move" in answer.text()
    h.lb.clock.advance(16 * 60)
    clock.now += 16 * 60
    await players.step()  # Ann decides at last
    assert "Suggested move" in h.lb.message(answer.id).text()
    assert not h.lb.breaches, h.lb.breaches


async def test_a_hint_worked_out_after_its_decision_was_made_says_it_no_longer_applies(
        lb: Loopback, tmp_path: Path, clock: Clock) -> None:
    """Ann asks for a hint and, while it is still being worked out, makes the decision: the
    answer that arrives afterwards says the hint no longer applies, as it would had it come
    first."""
    started, release = threading.Event(), threading.Event()

    def slow_advise(obs: Observation, iterations: int) -> Hint:
        started.set()
        release.wait(30)
        return hint(obs, iterations=iterations)

    thinking = Thinking(workers=0, work=normal_instead, advise=slow_advise,
                        hint_iterations=ITERATIONS)
    h = await LiveBot.start(lb, tmp_path / "k.db", TinyRenderer(), clock=clock,
                            thinking=thinking)
    try:
        tid = await open_table(h, ANN, [], ai=1)
        hand = await Players(h, tid, [ANN]).open_hand(ANN)
        asked = await lb.click(ANN, hand, hint_button(hand) or "")
        assert await asyncio.to_thread(started.wait, 30)  # the hint is being worked out...
        rec = await h.bot.service.tables.load(tid)
        obs = observe(rec.game, rec.game.current)
        move = next(a for a in obs.legal if isinstance(a, Fight))
        cid, value = offered(hand)[str(move)]
        played = (await lb.click(ANN, hand, cid) if value is None
                  else await lb.select(ANN, hand, cid, [value]))
        await played.answered(20)  # ...and Ann fights meanwhile
        assert (await h.bot.service.tables.load(tid)).version > rec.version
        release.set()
        answer = h.reply(await h.handled(asked))
        assert "no longer applies" in answer.text(), answer.text()
        assert "Suggested move" not in answer.text()
    finally:
        release.set()
        await h.stop()


async def test_a_hint_worked_out_after_its_decision_was_taken_back_to_shows_the_hint(
        lb: Loopback, tmp_path: Path, clock: Clock) -> None:
    """Ann asks for a hint and, while it is still being worked out, plays a move and takes it
    back: the answer that arrives afterwards is for the decision in front of her again, so it
    shows the hint; once she decides it no longer applies."""
    started, release = threading.Event(), threading.Event()

    def slow_advise(obs: Observation, iterations: int) -> Hint:
        started.set()
        release.wait(30)
        return hint(obs, iterations=iterations)

    thinking = Thinking(workers=0, work=normal_instead, advise=slow_advise,
                        hint_iterations=ITERATIONS)
    h = await LiveBot.start(lb, tmp_path / "k.db", TinyRenderer(), clock=clock,
                            thinking=thinking)
    try:
        tid = await open_table(h, ANN, [], ai=1)
        players = Players(h, tid, [ANN])
        release.set()  # the AI's turns and any earlier hint go at once
        rec, move = await until_a_move_may_be_taken_back(players)
        started.clear()
        release.clear()
        hand = await players.open_hand(ANN)
        asked = await lb.click(ANN, hand, hint_button(hand) or "")
        assert await asyncio.to_thread(started.wait, 30)  # the hint is being worked out...
        for action in (move, Undo()):  # ...and Ann moves and takes it back meanwhile
            hand = h.message(hand)
            cid, value = offered(hand)[str(action)]
            done = (await lb.click(ANN, hand, cid) if value is None
                    else await lb.select(ANN, hand, cid, [value]))
            await done.answered(20)
        back = await h.bot.service.tables.load(tid)
        assert back.game == rec.game and back.version == rec.version + 2
        release.set()
        answer = h.reply(await h.handled(asked))
        assert "Suggested move" in answer.text() and "no longer applies" not in answer.text()
        await h.play(ANN, h.message(hand), str(move))
        assert "no longer applies" in h.lb.message(answer.id).text()
    finally:
        release.set()
        await h.stop()


async def test_a_hint_for_the_move_that_wins_the_game_says_it_no_longer_applies(
        h: LiveBot) -> None:
    """Ann asks for a hint on her last decision and makes the move that wins the game: the
    hint's answer says it no longer applies, as after any other decision."""
    game = played(2)  # Ann's seat makes its last move
    assert game.moves[-1][0] == 0
    tid = await finished_match(h.store, game, upto=len(game.moves) - 1, hints=True)
    await h.bot.poster.refresh(await h.bot.service.tables.load(tid))
    await h.settle()
    hand = await Players(h, tid, [ANN, BOB]).open_hand(ANN)
    answer = h.reply(await h.click(ANN, hand, hint_button(hand) or ""))
    assert "Suggested move" in answer.text()
    await h.play(ANN, h.message(hand), game.moves[-1][1])
    assert (await h.bot.service.tables.load(tid)).status == "finished"
    after = h.lb.message(answer.id)
    assert "no longer applies" in after.text(), after.text()


async def test_the_end_of_a_match_tells_how_many_hints_each_person_used(bot: LiveBot) -> None:
    """The hints a person used are kept with the match and told under its final table, by
    seat (nothing when nobody used one)."""
    from bot.discord_side.standings import end_lines

    tid = await finished_match(bot.store, played(2))  # Ann, Bob and an easy AI
    record = await bot.bot.service.tables.load(tid)
    assert "Hints used" not in await end_lines(bot.bot.service, record)
    await bot.store.record_hint(tid, 3, BOB.id, 1, b"one", 1.0)
    await bot.store.record_hint(tid, 7, BOB.id, 1, b"two", 2.0)
    await bot.store.record_hint(tid, 5, ANN.id, 0, b"three", 3.0)
    assert "Hints used: Ann 1, Bob 2." in await end_lines(bot.bot.service, record)



async def test_a_hint_button_of_a_seat_the_ai_took_over_says_the_ai_plays_it(
        h: LiveBot) -> None:
    """The person to play leaves the match and clicks the Hint button of the hand message
    they opened before: the AI plays their seat now, as the move buttons beside it say (not
    a move played, to ask about the next one from a new hand)."""
    tid = await open_table(h, ANN, [BOB], hints=True)
    user, _ = await whose_turn(h, tid, [ANN, BOB])
    old = copy.deepcopy(await Players(h, tid, [ANN, BOB]).open_hand(user))
    await h.command(user, "leave")  # the AI plays the rest of the turn
    await h.settle()
    rec = await h.bot.service.tables.load(tid)
    assert rec.status == "running" and rec.seats[rec.seat_of(user.id) or 0].ai
    ai_says = translate(msg("bot.error.seat_is_ai"), "en")
    said = " ".join(h.said(await h.click(user, old, hint_button(old) or "")))
    moved = h.reply(await h.play(user, old, next(iter(offered(old))), sure=False))
    assert moved.text().strip() == ai_says, moved.text()
    assert ai_says in said, said
    assert await h.store.hints_used(tid) == {}


@pytest.mark.parametrize("answer", ["garbled", b"\xc1garbled"])
async def test_a_damaged_hint_is_worked_out_again(h: LiveBot, tmp_path: Path,
                                                  answer: object) -> None:
    """A hint kept damaged in the database (a word where its bytes belong, or bytes that are
    no hint): a click on its Hint button works the hint out again (it is counted once), and
    the hint kept is the new one."""
    tid = await open_table(h, ANN, [], ai=1)
    hand = await Players(h, tid, [ANN]).open_hand(ANN)
    button = hint_button(hand) or ""
    first = h.reply(await h.click(ANN, hand, button)).text()
    with closing(sqlite3.connect(tmp_path / "k.db")) as con, con:  # the bot's database
        con.execute("UPDATE hints SET answer = ? WHERE table_id = ?", (answer, tid))
    texts = h.said(await h.click(ANN, hand, button))
    assert any(CHANCE.findall(t) == CHANCE.findall(first) for t in texts), texts
    assert list((await h.store.hints_used(tid)).values()) == [1]
    again = h.reply(await h.click(ANN, hand, button)).text()
    assert "You already asked" in again and CHANCE.findall(again) == CHANCE.findall(first)
