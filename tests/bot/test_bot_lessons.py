"""The lessons of ``/goblin learn`` without Discord: the seed search script agrees with the seed
in the code, each lesson is read from the seat's observation, names its rule and reads in every
language, in the player's words, and its moves are drawn as primary buttons; the guided match,
played with each lesson's advice, shows every lesson at the decision it speaks of; a guided match
whose learner takes moves back reads the moves that stand."""
from __future__ import annotations

import importlib.util
import os
import random
import re
import subprocess
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

import pytest
from bot_helpers import Clock

from bot.game.guard import question
from bot.game.hints import hint_lines
from bot.game.lessons import (
    CURSE_RULES,
    LESSON_LEVEL,
    LESSON_SEED,
    LESSONS,
    Lesson,
    advised,
    emphasised,
    lesson,
    lesson_now,
    lessons_met,
    situations,
    taught_after,
)
from bot.game.play import Play as PlayService
from bot.game.service import GameService
from bot.game.texts import controls
from bot.storage.records import TableRecord
from bot.storage.sqlite import Store
from bot.workers.thinking import Thinking
from engine import (
    Action,
    DrinkCountercurse,
    DrinkHealing,
    DrinkStrength,
    EndBattle,
    GameConfig,
    GameState,
    Phase,
    SeatConfig,
    SetStacking,
    Undo,
    VisitMerchant,
    apply,
    new_game,
    observe,
    parse,
    replay,
)
from engine.actions import Fight, Play
from engine.agents import make_agent
from engine.catalog import tables
from engine.names import word
from engine.observe import Observation
from engine.position import SeatSetup, position
from i18n import LOCALES, Msg, catalog, msg, texts, translate

ROOT = Path(__file__).resolve().parents[2]
#: The learner's turn every lesson must have come by, following the lessons' advice.
LAST_TURN = 4
#: Words of the rules' engine jargon a lesson never uses: the player is "you".
JARGON = {"en": r"\bseats?\b|\bseat's\b", "fr": r"\bsiège|\bla place\b|\bon paie\b",
          "cs": r"\bhráč"}


@cache
def finder() -> ModuleType:
    """scripts/find_lesson_seed.py as a module."""
    spec = importlib.util.spec_from_file_location("find_lesson_seed",
                                                  ROOT / "scripts" / "find_lesson_seed.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@cache
def guided_match() -> tuple[GameConfig, tuple[Action, ...], tuple[GameState, ...],
                            tuple[tuple[str, ...], ...]]:
    """The guided match on its seed, the learner following each lesson's advice: its config,
    moves, the state before each move (and the last) and the event keys of each move."""
    script = finder()
    config = script.lesson_config(LESSON_SEED)
    moves = tuple(script.play_lesson(LESSON_SEED, horizon=160))
    state = new_game(config)
    states, events = [state], []
    for move in moves:
        state, said = apply(state, move, seat=state.current)
        states.append(state)
        events.append(tuple(e.text.key for e in said))
    return config, moves, tuple(states), tuple(events)


@cache
def taught_before() -> tuple[dict[str, int], ...]:
    """What the learner of :func:`guided_match` was taught before each of its states."""
    _, moves, states, _ = guided_match()
    taught: list[dict[str, int]] = [{}]
    for move, state, after in zip(moves, states, states[1:], strict=False):
        taught.append(taught_after(taught[-1], state, move, after, 0))
    return tuple(taught)


def test_the_search_script_meets_every_lesson_on_the_seed_in_the_code() -> None:
    out = subprocess.run([sys.executable, "scripts/find_lesson_seed.py", "--first",
                          str(LESSON_SEED), "--seeds", "1"], cwd=ROOT, capture_output=True,
                         text=True, timeout=120, check=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}).stdout.splitlines()
    assert out[0] == f"seed {LESSON_SEED}"
    assert [line.split()[0] for line in out[1:]] == list(LESSONS)


def test_a_lesson_comes_from_the_observation_and_reads_in_every_language() -> None:
    state = new_game(GameConfig(seats=(SeatConfig("horan", name="Ann"),
                                       SeatConfig("taia", name="Taia", ai=True)), seed=3))
    seat = state.current
    obs = observe(state, seat)
    assert situations(obs)[0] == "fight"
    assert situations(observe(state, 1 - seat)) == []  # not that seat's decision
    shown = lesson("fight", obs)
    assert shown.rule == "R10"
    assert shown.highlight == {str(a) for a in obs.legal if isinstance(a, Fight)}
    for lc in LOCALES:
        text = translate(shown.text, lc)
        assert text and not text.startswith("learn.")
    styled = {c.notation: c.emphasis for g in emphasised(controls(obs), shown).groups
              for c in g.buttons}
    assert {n for n, s in styled.items() if s == "main"} <= shown.highlight
    assert len([s for s in styled.values() if s == "main"]) >= 5  # lifted out of the menu
    assert lessons_met(state.config, [], seat) == {"fight": 0}
    assert set(advised(obs, shown).legal) == {a for a in obs.legal if isinstance(a, Fight)}


@pytest.mark.parametrize("locale", LOCALES)
def test_the_lessons_speak_the_player_s_words(locale: str) -> None:
    lessons = {k: " / ".join(texts(v)) for k, v in catalog(locale).items()
               if k.startswith(("learn.lesson.", "learn.battle.", "learn.reward.",
                                "learn.equipment."))}
    assert len(lessons) >= 20
    jargon = {k: t for k, t in lessons.items() if re.search(JARGON[locale], t, re.IGNORECASE)}
    assert not jargon, jargon
    assert not [k for k, t in lessons.items() if "“" in t or "„" in t]  # no rules quoted


def _learner_steps(states: tuple[GameState, ...]) -> list[int]:
    """The steps at which the learner (seat 0) decides."""
    return [s.step for s in states[:-1] if s.current == 0 and s.phase is not Phase.OVER]


def _holds_reward(obs: Observation) -> bool:
    view = obs.seats[0]
    cards = tables().actions
    return bool(view.weapon or view.armour or view.keys
                or any(cards[c].reward for c in (*obs.hand, *view.discard) if c in cards))


def test_the_guided_match_shows_each_lesson_at_its_moment() -> None:
    """Played with each lesson's advice, every lesson comes in the learner's first turns, at
    the decision it speaks of, and its advice is what the learner does."""
    config, moves, states, events = guided_match()
    notations = [str(m) for m in moves]
    met = lessons_met(config, moves, 0)
    first = finder().first_met(met)
    assert list(first) and set(first) == set(LESSONS), met
    turns = finder().learner_turns(config, list(moves))
    assert max(turns[step] for step in first.values()) <= LAST_TURN, met
    decisions = _learner_steps(states)
    for topic, step in met.items():
        name = topic.split(":")[0]
        state = states[step]
        obs = observe(state, 0)
        shown = lesson_now(state, taught_before()[step], 0)
        assert shown is not None and shown.name == name, (name, step)
        assert notations[step] in shown.highlight or not shown.highlight, (name, step)
        battle = obs.battle
        if name == "fight":
            assert step == decisions[0] and obs.phase is Phase.TURN
        elif name == "curse":
            assert battle is not None and battle.active_curses and not battle.chain
        elif name == "defence":
            assert battle is not None and battle.totals.damage > 0 and not battle.totals.win
            after = observe(states[step + 1], 0).battle
            assert after is not None and after.totals.damage < battle.totals.damage
        elif name == "chain":
            assert battle is not None and battle.chain
        elif name == "win":
            assert battle is not None and battle.totals.win and EndBattle() in obs.legal
            assert not _holds_reward(obs)  # shown before any reward is taken
            end = next(i for i in range(step, len(moves)) if moves[i] == EndBattle())
            assert "event.won" in events[end] and turns[end] == turns[step]
        elif name == "equipment":
            assert obs.phase is Phase.REWARD and obs.pending in tables().equipment
            assert moves[step - 1] == EndBattle()  # right after the battle it was won in
        elif name == "key":
            earlier = [d for d in decisions if d < step
                       and states[d].phase is Phase.TURN]
            assert obs.phase is Phase.TURN and obs.seats[0].keys
            assert not observe(states[earlier[-1]], 0).seats[0].keys  # its first turn with it
        else:
            assert obs.phase is Phase.MERCHANT or VisitMerchant() in obs.legal
        for lc in LOCALES:
            text = translate(shown.text, lc)
            assert "{" not in text and not text.startswith("learn."), (lc, text)


def test_the_battle_lessons_work_the_hits_and_the_reward_out() -> None:
    """The defence and win lessons say what the monster's attack will cost, with the numbers
    of the battle, and the win lesson names the reward about to be gained."""
    config, moves, states, _ = guided_match()
    met = lessons_met(config, moves, 0)
    for name in ("defence", "win"):
        obs = observe(states[met[name]], 0)
        battle = obs.battle
        assert battle is not None
        text = translate(lesson(name, obs).text, "en")
        totals = battle.totals
        assert f"attack of {totals.monster_attack}" in text, text
        assert f"defence of {totals.defence}" in text, text
        if totals.damage:
            assert f"costs you {totals.damage}\u00a0HP" in text, text
    obs = observe(states[met["win"]], 0)
    assert obs.battle is not None
    text = translate(lesson("win", obs).text, "en")
    assert "the reward on its back is yours" in text or "wins the game" in text
    assert any(isinstance(a, Play) for a in obs.legal) or "end the battle" in text.lower()


async def test_the_lessons_of_a_match_with_take_backs_read_the_moves_that_stand(
        service: GameService) -> None:
    learner = 101
    record = await service.lobby.learn(guild_id=9, channel_id=1, host_id=learner,
                                       host_name="Ann")
    seat = record.seat_of(learner)
    assert seat is not None
    kept: list[str] = []  # the moves that stand, as the players know them
    took_back = shown = 0
    turns: set[tuple[int, int]] = set()
    while record.game.step < 150 and record.game.phase is not Phase.OVER:
        outcome = await service.play.ai_step(record.id)
        if outcome is not None:
            kept.append(str(outcome.action))
            record = outcome.record
            continue
        state = record.game
        assert replay(state.config, kept) == state
        now = await service.play.lesson(record, seat)
        assert now == lesson_now(state, lessons_met(state.config, kept, seat), seat)
        shown += now is not None and took_back > 0
        obs = observe(state, seat)
        action: Action = make_agent("easy", state.step).choose(obs)
        if Undo() in obs.legal and (state.round, state.turn) not in turns:
            turns.add((state.round, state.turn))  # one take-back a turn
            action = Undo()
            kept.pop()
            took_back += 1
        else:
            kept.append(str(action))
        record = (await service.play.act(record.id, learner, record.version, str(action),
                                         sure=True)).record
    assert took_back > 5 and shown > 0
    assert lessons_met(record.game.config, kept, seat)


def test_the_hits_lesson_states_what_ending_the_battle_does_to_the_hp() -> None:
    """R24-R25: the lesson's hits are the HP the engine takes when the battle ends, after the
    armour heals, and hits that take the last HP knock the hero out, never "cost" more HP than
    the hero has."""
    healer = next(e for e, i in tables().equipment.items() if i.kind == "armour" and i.heal > 0)
    monsters = [m for m, i in tables().monsters.items()
                if i.level == 1 and not i.gatekeeper and not i.curses and i.attack >= 2]
    seen = set()
    for armour in (None, healer):
        for monster in monsters:
            for hp in range(1, 6):
                state = position(SeatSetup("horan", name="Ann", hp=hp, armour=armour), "taia",
                                 fight=monster)
                hits = lesson("defence", observe(state, 0)).text.get("hits")
                assert isinstance(hits, Msg)
                after, _ = apply(state, EndBattle())
                left = after.seats[0].hp
                seen.add(hits.key)
                if left == 0:  # R24: the last HP taken, no heal
                    assert hits.key == "learn.battle.hits_knocked_out", (armour, monster, hp)
                elif hits.key == "learn.battle.hits":
                    assert hits.get("count") == hp - left, (armour, monster, hp, left)
                elif hits.key == "learn.battle.hits_healed":  # R25: hit, then healed
                    assert hits.get("hp") == left, (armour, monster, hp, left)
                else:
                    assert hits.key == "learn.battle.no_hits" and left >= hp
                for lc in LOCALES:
                    text = translate(hits, lc)
                    assert "{" not in text and not text.startswith("learn."), (lc, text)
                    if left:
                        assert str(left) in text or hits.key != "learn.battle.hits_healed"
    assert seen >= {"learn.battle.hits", "learn.battle.hits_healed",
                    "learn.battle.hits_knocked_out"}


def test_the_merchant_lesson_waits_for_something_to_pay_with() -> None:
    """R40: the merchant lesson says "you have something to pay with"; a learner who visits the
    merchant holding only starting cards (no equipment, no reward card) is not told so."""
    visit = VisitMerchant()
    for armour in (None, "m1-08"):
        state = position(SeatSetup("horan", name="Ann", armour=armour), "taia")
        assert visit in observe(state, 0).legal
        inside, _ = apply(state, visit)
        obs = observe(inside, 0)
        assert obs.phase is Phase.MERCHANT
        assert not any(tables().actions[c].reward for c in obs.hand)  # starting cards only
        told = "merchant" in situations(obs)
        assert told == (armour is not None), translate(lesson("merchant", obs).text)


def test_the_win_lesson_points_at_a_card_that_saves_hp() -> None:
    """R16, R18, R24: a battle already won costs the hero HP at its end; a card that heals first
    keeps more of them, so the lesson does not say more cards would change nothing, and
    highlights that card."""
    known = tables()
    healer = next(c for c in known.hero_cards["aderyn"]
                  if known.actions[c].heal > 0 and known.actions[c].defence == 0
                  and known.actions[c].draw == 0)
    weapon = max(known.equipment, key=lambda e: known.equipment[e].attack)
    monster = next(m.id for m in known.monsters.values()
                   if m.level == 1 and not m.curses and not m.gatekeeper and m.attack == 2
                   and m.hp <= known.equipment[weapon].attack)
    state = position(SeatSetup("aderyn", name="Ann", hp=3, weapon=weapon, hand=[healer]),
                     "taia", fight=monster)
    obs = observe(state, 0)
    assert situations(obs)[0] == "win"
    play = next(a for a in obs.legal if isinstance(a, Play) and a.card == healer)
    at_once = apply(state, EndBattle())[0].seats[0].hp
    healed = apply(apply(state, play)[0], EndBattle())[0].seats[0].hp
    assert healed > at_once  # the card keeps an HP the battle's end would take
    shown = lesson("win", obs)
    assert str(play) in shown.highlight
    assert shown.text.key != "learn.battle.win", translate(shown.text)
    for lc in LOCALES:
        text = translate(shown.text, lc)
        assert "{" not in text and not text.startswith("learn."), (lc, text)
    # at full HP the card heals nothing before the hits: ending at once is the advice
    full = position(SeatSetup("aderyn", name="Ann", hp=5, weapon=weapon, hand=[healer]),
                    "taia", fight=monster)
    assert lesson("win", observe(full, 0)).text.key == "learn.battle.win"


def test_the_key_lesson_never_points_at_a_fight_the_1_hp_warning_asks_about() -> None:
    """R11, R24: at 1 HP the hand asks before a fight whose monster would knock the hero out;
    the key lesson highlights only the deeper fights the hero survives, and waits for a later
    turn when every one of them would knock it out."""
    rows = {2: ["m2-07", "m2-03", "m2-17", "m2-12", "m2-18"]}
    gates = {2: ["g2-2"]}
    guarded = position(SeatSetup("xanros", name="Ann", hp=1, keys=[1], armour="m3-01"), "taia",
                       rows=rows, gates=gates)
    obs = observe(guarded, 0)
    assert "key" in situations(obs)
    shown = lesson("key", obs)
    safe = {str(a) for a in obs.legal if isinstance(a, Fight) and a.level == 2
            and question(obs, a) is None}
    assert safe == {"fight:2-2", "fight:2-4"}
    assert shown.highlight == safe
    bare = position(SeatSetup("xanros", name="Ann", hp=1, keys=[1]), "taia", rows=rows,
                    gates=gates)
    assert "key" not in situations(observe(bare, 0))  # every deeper fight knocks out
    rested = position(SeatSetup("xanros", name="Ann", keys=[1]), "taia", rows=rows, gates=gates)
    obs = observe(rested, 0)
    assert "key" in situations(obs)
    assert lesson("key", obs).highlight == {str(a) for a in obs.legal
                                            if isinstance(a, Fight) and a.level == 2}


def test_the_win_lesson_points_at_a_heal_when_the_battle_costs_no_hp() -> None:
    """R16, R18: a battle won whose monster's attack the armour stops costs no HP, yet a card
    that heals still gives HP back to a hurt hero: the lesson does not say more cards would
    change nothing, and highlights that card."""
    known = tables()
    healer = next(c for c in known.hero_cards["xanros"]
                  if known.actions[c].heal > 0 and known.actions[c].defence == 0)
    state = position(SeatSetup("xanros", name="Ann", hp=3, weapon="m3-19", armour="m3-01",
                               hand=[healer]), "taia", fight="m1-03")
    obs = observe(state, 0)
    assert obs.battle is not None and obs.battle.totals.damage == 0
    assert situations(obs)[0] == "win"
    play = next(a for a in obs.legal if isinstance(a, Play) and a.card == healer)
    at_once = apply(state, EndBattle())[0].seats[0].hp
    healed = apply(apply(state, play)[0], EndBattle())[0].seats[0].hp
    assert healed > at_once
    shown = lesson("win", obs)
    assert str(play) in shown.highlight
    assert shown.text.key != "learn.battle.win", translate(shown.text)
    assert shown.text.key == "learn.battle.win_heal"
    for lc in LOCALES:
        text = translate(shown.text, lc)
        assert "{" not in text and not text.startswith("learn."), (lc, text)


def test_a_battle_won_by_its_first_card_teaches_the_win_before_the_chain() -> None:
    """R19, R24-R27: once the first card wins the battle, the hand teaches what ending it now
    does (the hits, the reward about to be gained) and points at the cards that keep HP, not at
    every card that may follow: the chain lesson waits for a battle where more cards are still
    needed, so the first reward is never taken without the win lesson."""
    known = tables()
    opener = next(c for c in known.hero_cards["xanros"] if known.actions[c].attack == 2
                  and known.actions[c].next & {known.actions[o].colour
                                              for o in known.hero_cards["xanros"]})
    followers = [c for c in known.hero_cards["xanros"]
                 if c != opener and known.actions[c].colour in known.actions[opener].next]
    state = position(SeatSetup("xanros", name="Ann", hand=[opener, *followers]), "taia",
                     fight="m1-05")
    state, _ = apply(state, Play(opener))
    obs = observe(state, 0)
    assert obs.battle is not None and obs.battle.totals.win and obs.battle.chain
    assert any(isinstance(a, Play) for a in obs.legal)
    found = situations(obs)
    assert found and found[0] == "win", found
    assert "chain" not in found


@pytest.mark.parametrize("monster", ["g2-4", "m2-05", "m2-06", "m3-11", "m3-13", "m3-14"])
def test_the_curse_lesson_names_the_curse(monster: str) -> None:
    """R22, R23: the lesson of a monster that curses an effect or an item names which one, as
    the colour curse's lesson names the colour: "an effect" alone leaves the learner to guess
    which of their cards or items counts for nothing."""
    reach = range(1, tables().monsters[monster].level)
    state = position(SeatSetup("xanros", name="Ann", weapon="m2-01", armour="m2-03",
                               keys=reach), "taia", fight=monster)
    obs = observe(state, 0)
    assert obs.battle is not None
    curse = obs.battle.active_curses[0]
    assert "curse" in situations(obs)
    shown = lesson("curse", obs)
    for lc in LOCALES:
        text = translate(shown.text, lc)
        assert translate(word("curse", curse), lc) in text, (lc, text)
        assert "{" not in text, (lc, text)


@pytest.mark.parametrize("locale", LOCALES)
def test_the_end_of_a_guided_match_points_to_a_match_that_counts(locale: str) -> None:
    """The note under a guided match that ended says it counts in no record, and where a
    match that counts starts: the Rematch button under it opens another guided match."""
    note = translate(msg("ratings.note.guided"), locale)
    assert f"/goblin {translate(msg('bot.cmd.name.new'), locale)}" in note, note


def test_a_lesson_stays_while_the_learner_switches_the_deck_stacking() -> None:
    """D5: switching how the discard pile becomes the deck is a standing setting, not a move: it
    leaves the learner at the same decision, so the lesson of that decision stays in the hand
    (the guided match played with each lesson's advice, a switch made at each lesson of a turn,
    and switched back, meets every lesson at the same decisions, none of them swallowed)."""
    config, moves, states, _ = guided_match()
    met = lessons_met(config, moves, 0)
    played: list[str] = []
    taught: dict[str, int] = {}
    state = new_game(config)
    for step, move in enumerate(moves):
        if step in met.values():
            shown = lesson_now(state, taught, 0)
            assert shown is not None
            switch = next((a for a in observe(state, 0).legal if isinstance(a, SetStacking)),
                          None)
            back = SetStacking(state.seats[0].stacking)
            for setting in (switch, back) if switch is not None else ():  # and back again
                after, _ = apply(state, setting, seat=0)
                taught = taught_after(taught, state, setting, after, 0)
                state = after
                played.append(str(setting))
                again = lesson_now(state, taught, 0)
                assert again is not None and again.name == shown.name, (shown.name, again)
                assert again.highlight == shown.highlight
        after, _ = apply(state, move, seat=state.current)
        taught = taught_after(taught, state, move, after, 0)
        state = after
        played.append(str(move))
    assert set(lessons_met(config, played, 0)) == set(met)


def _wandering_learner(seed: int, steps: int) -> tuple[list[str], list[GameState]]:
    """The guided match with the learner making random legal moves (the easy agent now and
    then, settings and take-backs aside) and the AI seats as the bot plays them: the moves and
    the state before each."""
    rng = random.Random(seed)
    config = finder().lesson_config(LESSON_SEED)
    state = new_game(config)
    moves: list[str] = []
    states: list[GameState] = []
    while state.phase is not Phase.OVER and state.step < steps:
        obs = observe(state, state.current)
        if state.current == 0:
            legal = [a for a in obs.legal if not isinstance(a, (Undo, SetStacking))]
            action = (rng.choice(legal) if rng.random() < 0.7
                      else make_agent("easy", state.step).choose(obs))
        else:
            action = make_agent(LESSON_LEVEL, PlayService.seed_for(LESSON_SEED, state.step)
                                ).choose(obs)
        states.append(state)
        moves.append(str(action))
        state, _ = apply(state, action, seat=state.current)
    return moves, states


def test_a_lesson_stays_while_the_learner_drinks_a_potion() -> None:
    """R33-R35: a potion drunk leaves the learner at the same decision (the same battle to
    fight on, the same monsters to choose from), so the lesson of that decision stays in the
    hand, worked out again for the HP or the battle the potion changed, while it still fits."""
    drinks = (DrinkHealing, DrinkStrength, DrinkCountercurse)
    tried = 0
    for seed in range(60):
        moves, states = _wandering_learner(seed, 120)
        taught: dict[str, int] = {}
        for step, state in enumerate(states):
            if step:
                taught = taught_after(taught, states[step - 1], parse(moves[step - 1]), state, 0)
            if state.current != 0:
                continue
            shown = lesson_now(state, taught, 0)
            potions = [a for a in observe(state, 0).legal if isinstance(a, drinks)]
            if shown is None or not potions:
                continue
            for potion in potions:
                after, _ = apply(state, potion, seat=0)
                again = lesson_now(after, taught_after(taught, state, potion, after, 0), 0)
                if shown.name in situations(observe(after, 0)):
                    assert again is not None and again.name == shown.name, (seed, step, potion)
                    assert again == lesson(shown.name, observe(after, 0))
                    tried += 1
        if tried:
            break
    assert tried


TWO_CURSES = sorted(m for m, i in tables().monsters.items() if len(i.curses) == 2)


@pytest.mark.parametrize("monster", TWO_CURSES)
def test_the_curse_lesson_explains_every_curse_of_the_monster(monster: str) -> None:
    """R21-R23, R33: a monster with two curses has both explained, each by its rule (two colours
    named together, two kinds each in a sentence of its own); once a countercurse lifts one, the
    lesson speaks of the one left."""
    curses = tables().monsters[monster].curses
    reach = range(1, tables().monsters[monster].level)
    state = position(SeatSetup("xanros", name="Ann", weapon="m2-01", armour="m2-03",
                               keys=reach, potions=["countercurse"]), "taia", fight=monster)
    obs = observe(state, 0)
    assert obs.battle is not None and set(obs.battle.active_curses) == set(curses)
    assert "curse" in situations(obs)
    shown = lesson("curse", obs)
    rules = {CURSE_RULES[_kind(c)] for c in curses}
    assert shown.rule == ", ".join(sorted(rules)), shown.rule
    for lc in LOCALES:
        text = translate(shown.text, lc)
        for curse in curses:
            assert translate(word("curse", curse), lc) in text, (lc, text)
        assert "{" not in text and not text.startswith("learn."), (lc, text)
    lifted, _ = apply(state, DrinkCountercurse(curses[0]), seat=0)
    if lifted.phase is Phase.DISCARD or lifted.battle is not None:
        left = lesson("curse", observe(lifted, 0))
        assert left.rule == CURSE_RULES[_kind(curses[1])]
        for lc in LOCALES:
            text = translate(left.text, lc)
            assert translate(word("curse", curses[1]), lc) in text, (lc, text)
            assert translate(word("curse", curses[0]), lc) not in text, (lc, text)


def _kind(curse: str) -> str:
    return ("colour" if curse in {"green", "blue", "red", "yellow"}
            else "equipment" if curse in {"weapon", "armour"} else "effect")


async def test_a_hint_in_a_guided_match_never_contradicts_its_lesson(store: Store,
                                                                     clock: Clock) -> None:
    """A lesson highlights the moves that show its rule at work; the hint weighs the chance to
    win. Asked at a lesson's decision, a hint that suggests a move the lesson does not highlight
    (a level I fight where the key lesson points deeper) says that the lesson shows a rule and
    both choices are allowed, and the key and merchant lessons say the other choice may be
    worth more now; a hint that agrees with the lesson says nothing of the kind."""
    service = GameService(store, clock=clock, thinking=Thinking(workers=0))
    learner = 101
    record = await service.lobby.learn(guild_id=9, channel_id=1, host_id=learner,
                                       host_name="Ann")
    seat = record.seat_of(learner)
    assert seat == 0 and record.hints
    config, moves, _, _ = guided_match()
    taught = lessons_met(config, moves, 0)  # each lesson, the curse lesson once a kind
    last = max(taught.values())
    asked, differ = 0, set()
    while record.game.step <= last:
        outcome = await service.play.ai_step(record.id)
        if outcome is not None:
            record = outcome.record
            continue
        move = str(moves[record.game.step])
        shown = await service.play.lesson(record, seat)
        if shown is not None:
            answer = await service.hints.ask(record.id, learner, record.version)
            assert answer.lesson == shown.highlight
            agrees = str(answer.advice.best) in shown.highlight
            told = "bot.hint.answer.lesson" in [line.key for line in hint_lines(answer)]
            assert agrees != told, (shown.name, answer.advice.best)
            asked += 1
            if not agrees:
                differ.add(shown.name)
                for lc in LOCALES:
                    assert not translate(msg("bot.hint.answer.lesson"), lc).startswith("bot.")
        record = (await service.play.act(record.id, learner, record.version, move,
                                         sure=True)).record
    assert asked == len(taught)
    assert "key" in differ, differ  # the hint weighs a level I fight against the key lesson
    for name in differ & {"key", "merchant"}:  # lessons of a choice: they say so themselves
        text = translate(msg(f"learn.lesson.{name}"), "en")
        assert "may be the better choice" in text or "may still be worth more" in text, text


def _first_decision_cursing(curse: str) -> int:
    """The step of the learner's first decision in :func:`guided_match` against a monster
    that curses ``curse``."""
    _, _, states, _ = guided_match()
    for state in states:
        battle = observe(state, 0).battle if state.current == 0 else None
        if battle is not None and curse in battle.active_curses:
            return state.step
    raise AssertionError(f"no monster curses {curse}")


async def _guided_up_to(service: GameService, step: int) -> tuple[int, dict[int, object]]:
    """The guided match of :func:`guided_match` played through ``service`` up to ``step``
    (its learner following each lesson's advice): its table id and the lesson of the learner's
    hand at each of the learner's decisions on the way."""
    _, moves, _, _ = guided_match()
    record = await service.lobby.learn(guild_id=9, channel_id=1, host_id=101, host_name="Ann")
    shown: dict[int, object] = {}
    while record.game.step < step:
        outcome = await service.play.ai_step(record.id)
        if outcome is not None:
            record = outcome.record
            continue
        shown[record.game.step] = await service.play.lesson(record, 0)
        record = (await service.play.act(record.id, 101, record.version,
                                         str(moves[record.game.step]), sure=True)).record
    return record.id, shown


async def test_each_new_kind_of_curse_is_explained_the_first_time_the_learner_meets_it(
        store: Store, clock: Clock) -> None:
    """R21-R23: the first cursed monster (green cards, a colour) has its curse explained; a later
    one whose curse is of the same kind (blue cards) is not explained again, and the first whose
    curse is of another kind (card healing, an effect) is, once, in the learner's language as a
    whole sentence; a process that did not follow the match (after a restart) shows the same."""
    service = GameService(store, clock=clock, thinking=Thinking(workers=0))
    _, _, states, _ = guided_match()
    assert _first_decision_cursing("green") == 1
    effect = _first_decision_cursing("heal")
    tid, shown = await _guided_up_to(service, effect + 1)
    curses = {step: now for step, now in shown.items()
              if isinstance(now, Lesson) and now.name == "curse"}
    assert sorted(curses) == [1, effect], curses  # green cards, then card healing
    cursed = [step for step in shown if "curse" in situations(observe(states[step], 0))]
    assert len(cursed) > len(curses)  # blue cards in between, and card healing fought on
    for step, key, curse in ((1, "learn.lesson.curse_colour", "green"),
                             (effect, "learn.lesson.curse_effect", "heal")):
        now = curses[step]
        assert now.text.key == key and now.rule == CURSE_RULES[_kind(curse)]
        for lc in LOCALES:
            text = translate(now.text, lc)
            assert translate(word("curse", curse), lc) in text, (lc, text)
            assert "{" not in text and text.endswith("."), (lc, text)
    record = await service.tables.load(tid)  # card healing still cursed, taught already
    now = await service.play.lesson(record, 0)
    assert record.game.step == effect + 1 and (now is None or now.name != "curse"), now
    restarted = GameService(store, clock=clock, thinking=Thinking(workers=0))
    assert await restarted.play.lesson(record, 0) == now


async def test_a_take_back_across_the_curse_lesson_teaches_it_once(
        service: GameService) -> None:
    """N19: a move taken back returns the learner to the decision before it, with its lesson.
    The fight against the first monster that curses card healing taken back, the lesson of that
    curse goes with the battle and comes back with the fight chosen again; a card played after
    the lesson taken back leaves it taught: it is not shown again in that battle."""
    _, moves, _, _ = guided_match()
    effect = _first_decision_cursing("heal")

    async def step(record: TableRecord, move: str) -> TableRecord:
        return (await service.play.act(record.id, 101, record.version, move, sure=True)).record

    tid, _ = await _guided_up_to(service, effect)
    record = await service.tables.load(tid)
    taught = await service.play.lesson(record, 0)
    assert taught is not None and taught.text.key == "learn.lesson.curse_effect"
    record = await step(record, "undo")  # the fight taken back: a turn's choice again
    assert record.game.step == effect - 1 and isinstance(moves[effect - 1], Fight)
    before = await service.play.lesson(record, 0)
    assert before is None or before.name != "curse"
    record = await step(record, str(moves[effect - 1]))  # the same fight chosen again
    assert await service.play.lesson(record, 0) == taught
    for move in moves[effect:effect + 2]:
        record = await step(record, str(move))
    record = await step(record, "undo")  # a card played after the lesson, taken back
    assert record.game.step == effect + 1
    while record.game.current == 0 and record.game.battle is not None:
        now = await service.play.lesson(record, 0)
        assert now is None or now.name != "curse", (record.game.step, now)
        record = await step(record, str(moves[record.game.step]))


def test_a_take_back_forgets_only_what_was_taught_after_the_decision_it_returns_to() -> None:
    """What the learner was taught, worked out move by move, is what the moves that stand
    teach: a take-back forgets the lessons taught after the decision it returns to, and that
    decision's own lesson is shown there again."""
    config, moves, states, _ = guided_match()
    taught = taught_before()
    step = next(s for s in range(1, len(states)) if states[s].current == 0
                and Undo() in observe(states[s], 0).legal and taught[s] != taught[s - 1])
    back, _ = apply(states[step], Undo(), seat=0)
    assert back == states[step - 1]
    kept = taught_after(taught[step], states[step], Undo(), back, 0)
    assert kept == {t: s for t, s in taught[step].items() if s <= step - 1}
    assert lesson_now(back, kept, 0) == lesson_now(states[step - 1], taught[step - 1], 0)
    assert kept.items() >= lessons_met(config, moves[:step - 1], 0, step - 2).items()


MIXED_CURSES = [m for m in TWO_CURSES
                if len({_kind(c) for c in tables().monsters[m].curses}) == 2]


@pytest.mark.parametrize("monster", MIXED_CURSES)
def test_a_monster_with_a_curse_of_a_kind_already_taught_explains_only_the_other(
        monster: str) -> None:
    """R21-R23: a monster with curses of two kinds, one of them taught in an earlier battle,
    has the new kind explained by its rule and the other named as a kind the learner knows, in
    whole sentences of every language; with both kinds taught, no curse lesson is shown."""
    curses = tables().monsters[monster].curses
    reach = range(1, tables().monsters[monster].level)
    state = position(SeatSetup("xanros", name="Ann", weapon="m2-01", armour="m2-03",
                               keys=reach), "taia", fight=monster)
    obs = observe(state, 0)
    assert "curse" in situations(obs)
    known, new = curses
    taught = {f"curse:{_kind(known)}": state.step - 1}
    shown = lesson_now(state, taught, 0)
    assert shown is not None and shown.name == "curse"
    assert shown.rule == CURSE_RULES[_kind(new)]
    assert shown.text.key == "learn.lesson.curse_two"
    for lc in LOCALES:
        text = translate(shown.text, lc)
        assert translate(msg(f"learn.curse.{_kind(new)}", curse=word("curse", new)), lc) in text
        assert translate(msg(f"learn.curse.known_{_kind(known)}", curse=word("curse", known)),
                         lc) in text, (lc, text)
        assert "{" not in text and text.endswith("."), (lc, text)
    both = {**taught, f"curse:{_kind(new)}": state.step - 1}
    now = lesson_now(state, both, 0)
    assert now is None or now.name != "curse"
