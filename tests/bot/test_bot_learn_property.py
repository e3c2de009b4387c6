"""The guided match (``/goblin learn``) played through the real bot by a learner who makes odd
but legal choices, in each language: a seeded random agent that takes moves back, asks for hints,
drinks potions, visits the merchant and the pawnshop, and in the end leaves. Every hand message
it is shown has the lesson of its moment, or a reason for none (each lesson that fits the moment,
each kind of curse for a cursed monster, was shown at an earlier decision that still stands), in
the learner's language with no key or placeholder left; no error is logged (the bot tests' own
check)."""
from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from bot_helpers import Clock
from live_bot import LiveBot, offered, table_id
from players import TinyRenderer

from bot.game.lessons import MAX_STEPS, SAME_DECISION, lessons_met, situations, topics
from bot.storage.records import standing
from bot.workers.thinking import Thinking
from engine import Action, Phase, observe
from engine.actions import (
    BuyPawned,
    BuyPotion,
    DrinkCountercurse,
    DrinkHealing,
    DrinkStrength,
    Pay,
    Undo,
    VisitMerchant,
)
from engine.agents import make_agent
from i18n import msg, normalise_locale, translate
from loopback import Loopback, Message

#: The learner's decisions played per match before they leave.
DECISIONS = 150
#: Text a translation left untranslated: a catalogue key or a placeholder.
LEFT_OVER = re.compile(r"\{[a-z_]+\}|\b(?:learn|bot|hint|event)\.[a-z_]+\.[a-z_]")
DRINKS = (DrinkHealing, DrinkStrength, DrinkCountercurse)


def odd_choice(rng: random.Random, legal: tuple[Action, ...], step: int, obs: object) -> Action:
    """A legal move a curious newcomer might make: a take-back, a potion, the merchant and its
    pawnshop more often than a careful player would, otherwise a random or an easy move."""
    def pick(*kinds: type[Action]) -> list[Action]:
        return [a for a in legal if isinstance(a, kinds)]

    for moves, chance in ((pick(Undo), 0.2), (pick(*DRINKS), 0.5), (pick(BuyPawned), 0.5),
                          (pick(BuyPotion), 0.7), (pick(Pay), 0.8), (pick(VisitMerchant), 0.25)):
        if moves and rng.random() < chance:
            return rng.choice(moves)
    if rng.random() < 0.5:
        return rng.choice(legal)
    choice = make_agent("easy", step).choose(obs)  # type: ignore[arg-type]
    return choice if choice in legal else rng.choice(legal)


def check_hand(hand: Message, lesson_rule: str | None, lesson_text: str | None,
               locale: str) -> None:
    """The hand shows the lesson (its heading and text) when there is one, and no lesson
    heading otherwise, with nothing left untranslated."""
    text = hand.text()
    heading = translate(msg("learn.heading", rule="R"), locale).split("(")[0].strip()
    if lesson_rule is None:
        assert f"**{heading} (" not in text, text
    else:
        assert translate(msg("learn.heading", rule=lesson_rule), locale) in text, text
        assert lesson_text is not None and lesson_text in text, (lesson_text, text)
    assert not LEFT_OVER.search(text), text


@pytest.mark.parametrize(("locale", "seed"), [("en-US", 1), ("fr", 2), ("cs", 1)])
async def test_a_guided_match_played_oddly_always_shows_a_lesson_or_a_reason_for_none(
        lb: Loopback, tmp_path: Path, clock: Clock, locale: str, seed: int) -> None:
    rng = random.Random(seed)
    learner = lb.create_user("Ann", locale=locale)
    lang = normalise_locale(locale)
    h = await LiveBot.start(lb, tmp_path / "k.db", TinyRenderer(), clock=clock,
                            thinking=Thinking(workers=0, hint_iterations=8))
    h.channel = lb.dm(learner)
    hand = h.reply(await h.command(learner, "learn"))
    tid = table_id(h.last_table_message())
    svc = h.bot.service
    shown: set[str] = set()
    hints = took_back = 0
    before: tuple[str | None, Action | None] = (None, None)  # the last lesson, the move after it
    for _ in range(DECISIONS):
        rec = await svc.tables.load(tid)
        if rec.status != "running":
            break
        state = rec.game
        assert state.current == 0, "the AI seats must have played by now"
        if not offered(h.message(hand)):
            hand = h.reply(await h.click(learner, h.last_table_message(), f"kg:hand:{tid}"))
        hand = h.message(hand)
        obs = observe(state, 0)
        assert set(offered(hand)) == {str(a) for a in obs.legal}
        kept = [row.action for row in standing(await svc.store.action_log(tid))]
        lesson = await svc.play.lesson(rec, 0)
        if lesson is not None:  # the lesson of this moment, its moves offered
            shown.add(lesson.name)
            assert lesson.name in situations(obs), lesson.name
            assert lesson.highlight <= {str(a) for a in obs.legal}
            check_hand(hand, lesson.rule, translate(lesson.text, lang), lang)
        elif before[0] in situations(obs) and isinstance(before[1], SAME_DECISION):
            raise AssertionError(f"{before[0]} gone after {before[1]}, which left the decision")
        else:  # the reason for none: each lesson that fits was shown before, or it is late
            met = lessons_met(state.config, kept, 0, state.step)
            assert state.step > MAX_STEPS or all(
                topic in met and met[topic] < state.step
                for name in situations(obs) for topic in topics(name, obs)), (
                situations(obs), met, state.step)
            check_hand(hand, None, None, lang)
        button = next((c for c in hand.custom_ids() if c.startswith(f"kg:hint:{tid}:")), None)
        if button is not None and rng.random() < 0.2:  # a hint now and then, in a private answer
            answer = h.reply(await h.click(learner, hand, button))
            assert answer.ephemeral and not LEFT_OVER.search(answer.text()), answer.text()
            hints += 1
        move = odd_choice(rng, obs.legal, state.step, obs)
        before = (None if lesson is None else lesson.name, move)
        took_back += isinstance(move, Undo)
        await h.play(learner, hand, str(move))
        after = await svc.tables.load(tid)
        assert after.version > rec.version or after.status != "running", move
    assert hints and took_back and "fight" in shown, (hints, took_back, shown)
    # the learner leaves whenever they like: the Leave button, confirmed, closes the table
    rec = await svc.tables.load(tid)
    if rec.status == "running" and rec.game.phase is not Phase.OVER:
        if not offered(h.message(hand)):
            hand = h.reply(await h.click(learner, h.last_table_message(), f"kg:hand:{tid}"))
        await h.click(learner, h.message(hand), f"kg:quit:{tid}")
        ix = await h.click(learner, h.message(hand), f"kg:quit:{tid}:y")
        told = " ".join(h.said(ix))
        assert translate(msg("learn.left_replay", table=tid), lang) in told, told
        assert (await svc.tables.load(tid)).status != "running"
    await h.stop()
