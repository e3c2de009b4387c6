"""Hints: a legal move, never a take-back, the same for the same observation and for every state
the seat cannot tell apart, chances in order, and a reason in every language."""

from __future__ import annotations

import ast
import importlib.util
import json
import math
import random
import sys
from collections import Counter
from functools import cache
from pathlib import Path

import pytest
from msgspec.structs import replace

from engine import (
    CancelPurchase,
    EndBattle,
    GameConfig,
    GameState,
    Phase,
    Play,
    SeatConfig,
    apply,
    new_game,
    observe,
)
from engine.agents.hint import UNHINTED, Hint, hint, public_seed
from engine.agents.search import HardAgent
from engine.validate import check_state
from i18n import LOCALES, Msg, keys, translate

ROOT = Path(__file__).resolve().parents[2]
HEROES = ("taia", "horan", "xanros", "aderyn")
#: A small search budget: the properties hold for any budget, and the tests stay quick.
ITERATIONS = 12


@cache
def hinted_game(seed: int) -> tuple[tuple[GameState, Hint], ...]:
    """Every decision of seat 0 in a game where seat 0 follows its hints and the others are
    hard agents with a small budget (so they buy, pay and fight as the hint would), up to 400
    moves, each with its hint."""
    state = new_game(GameConfig(seats=tuple(SeatConfig(h) for h in HEROES), abilities=True,
                                seed=seed))
    others = [HardAgent(seed * 8 + i, iterations=4) for i in range(4)]
    out: list[tuple[GameState, Hint]] = []
    while state.phase is not Phase.OVER and state.step < 400:
        view = observe(state, state.current)
        if state.current == 0:
            advice = hint(view, iterations=ITERATIONS)
            out.append((state, advice))
            action = advice.best
        else:
            action = others[state.current].choose(view)
        state, _ = apply(state, action)
    return tuple(out)


def hinted() -> list[tuple[GameState, Hint]]:
    """The hinted decisions of two games."""
    return [*hinted_game(5), *hinted_game(7)]


def test_a_hint_is_a_legal_move_with_its_chances_highest_first() -> None:
    """The suggested move is the one the chances rank first, or one within the estimate's
    margin of it (and the hint says it is close)."""
    phases: Counter[Phase] = Counter()
    close = 0
    for state, advice in hinted():
        legal = observe(state, 0).legal
        assert advice.best in legal
        moves = [a for a, _ in advice.moves]
        chances = [c for _, c in advice.moves]
        assert advice.best in moves and 1 <= len(moves) <= 3
        assert chances == sorted(chances, reverse=True), advice
        assert len(advice.margins) == len(moves)
        assert len(set(moves)) == len(moves) and set(moves) <= set(legal)
        assert all(0.0 <= chance <= 1.0 for chance in chances)
        assert all(0.0 <= margin <= 1.0 for margin in advice.margins)
        mine = moves.index(advice.best)
        if mine:
            close += 1
            assert advice.close()
            assert chances[0] - chances[mine] <= math.hypot(advice.margins[0],
                                                            advice.margins[mine]), advice
        else:
            assert not advice.close()
        phases[state.phase] += 1
    assert {Phase.TURN, Phase.BATTLE, Phase.MERCHANT, Phase.PAY} <= set(phases), phases
    assert close, "no hint whose suggested move is within the margin of a better-ranked one"


def test_a_hint_never_takes_anything_back() -> None:
    """Paying is always hinted over taking the purchase back, and no hinted move is a take-back
    or a stacking preference, though such moves were legal."""
    offered = 0
    for state, advice in hinted():
        legal = observe(state, 0).legal
        offered += CancelPurchase() in legal
        assert all(a.verb not in UNHINTED for a, _ in advice.moves)
    assert offered > 0


def test_the_same_observation_gets_the_same_hint() -> None:
    for state, advice in hinted()[::15]:
        again = hint(observe(state, 0), iterations=ITERATIONS)  # a new observation object
        assert again == advice
        assert public_seed(observe(state, 0)) == public_seed(observe(state, 0))


def with_hidden_cards_moved(state: GameState, viewer: int, seed: int) -> GameState:
    """``state`` with what ``viewer`` cannot see dealt anew: each other seat's hand and deck
    mixed (its hand swapped with cards from its deck), ``viewer``'s own deck order, the caverns'
    decks and gatekeepers under their face-up tops, and the generator."""
    rnd = random.Random(seed)

    def mixed(cards: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(rnd.sample(cards, len(cards)))

    seats = []
    for i, seat in enumerate(state.seats):
        if i == viewer:
            seats.append(replace(seat, deck=mixed(seat.deck)))
        else:
            cards = mixed(seat.hand + seat.deck)
            seats.append(replace(seat, hand=cards[:len(seat.hand)], deck=cards[len(seat.hand):]))
    levels = tuple(replace(lv, deck=lv.deck[:1] + mixed(lv.deck[1:]),
                           gates=lv.gates[:1] + mixed(lv.gates[1:])) for lv in state.levels)
    return replace(state, seats=tuple(seats), levels=levels, rng=rnd.getrandbits(64))


def test_a_hint_does_not_depend_on_what_the_seat_cannot_see() -> None:
    moved = 0
    for state, advice in hinted()[::6]:
        twin = with_hidden_cards_moved(state, 0, seed=state.step)
        check_state(twin)
        assert observe(twin, 0) == observe(state, 0)
        moved += twin.seats[1].hand != state.seats[1].hand
        assert hint(observe(twin, 0), iterations=ITERATIONS) == advice
    assert moved > 3  # the hidden cards really moved in most positions


def test_the_seed_and_the_budget_change_the_search_not_its_rules() -> None:
    """Another seed deals other cards (some chance differs), a clock budget still hints a
    legal move."""
    states = [s for s, _ in hinted() if s.phase is Phase.TURN][:6]
    differ = 0
    for state in states:
        view = observe(state, 0)
        differ += hint(view, iterations=ITERATIONS, seed=1).moves != hint(
            view, iterations=ITERATIONS).moves
        assert hint(view, iterations=ITERATIONS, seconds=0.0).best in view.legal
    assert differ > 0


def test_a_hint_needs_the_deciding_seat() -> None:
    state = hinted()[0][0]
    for viewer in (1, None):
        with pytest.raises(ValueError, match="the seat that must decide"):
            hint(observe(state, viewer))


def reason_keys_in_code() -> set[str]:
    """Every ``hint.*`` key the reasons module names."""
    tree = ast.parse((ROOT / "engine/agents/hint_reasons.py").read_text())
    return {str(node.args[0].value) for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "msg" and node.args and isinstance(node.args[0], ast.Constant)
            and str(node.args[0].value).startswith("hint.")}


def test_every_reason_is_a_sentence_in_every_language() -> None:
    named = reason_keys_in_code()
    assert len(named) >= 15
    for locale in LOCALES:
        assert {k for k in keys(locale) if k.startswith("hint.")} == named, locale
    given = Counter(advice.reason.key for _, advice in hinted())
    assert len(given) >= 8, given  # the games reach many of the reasons
    seen: set[Msg] = set()
    for _, advice in hinted():
        if advice.reason in seen:
            continue
        seen.add(advice.reason)
        texts = {locale: translate(advice.reason, locale) for locale in LOCALES}
        for locale, text in texts.items():
            assert text[:1].isupper() and text.endswith("."), (locale, text)
            assert "{" not in text and "hint." not in text, (locale, text)
        assert len(set(texts.values())) == len(LOCALES), texts


def test_reasons_follow_their_rules() -> None:
    """A reason about the battle in progress comes with the move it explains."""
    for state, advice in hinted():
        key = advice.reason.key
        battle = observe(state, 0).battle
        if key == "hint.win_now":
            assert advice.best == EndBattle() and battle is not None and battle.totals.win
        elif key in ("hint.enough_attack", "hint.keeps_hp"):
            assert battle is not None and advice.best != EndBattle()
        elif key == "hint.chain":
            assert isinstance(advice.best, Play)
        elif key == "hint.last_key":
            assert len(observe(state, 0).seats[0].keys) == 2


def test_the_hint_benchmark_prints_its_figures(capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    spec = importlib.util.spec_from_file_location("bench_hint",
                                                  ROOT / "benchmarks/hint_strength.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, bench)
    spec.loader.exec_module(bench)
    assert bench.main(["--games", "1", "--seed", "3", "--iterations", "2", "--workers", "1",
                       "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["games"] == 1 and figures["errors"] == 0 and figures["seeds"] == [3, 3]
    assert figures["wins"] in (0, 1)
    assert figures["decision_ms"]["hint"]["p50"] > 0


def test_the_hp_reason_states_the_hp_the_move_brings_back() -> None:
    """A card that heals 1 HP (R18) at 1 HP brings the seat to 2, not to 5: the reason says the
    HP the engine leaves the seat with at the end of its turn."""
    from engine.agents.hint_reasons import outcome, reason
    from engine.catalog import tables
    from engine.position import SeatSetup, position

    known = tables()
    healer = next(c for c in known.hero_cards["horan"]
                  if known.actions[c].heal > 0 and known.actions[c].attack == 0)
    armour = max(known.equipment, key=lambda e: known.equipment[e].defence)
    monster = next(m.id for m in known.monsters.values()
                   if m.level == 1 and not m.curses and not m.gatekeeper
                   and m.attack <= known.equipment[armour].defence and m.hp > 0)
    state = position(SeatSetup("horan", name="Ann", hp=1, armour=armour, hand=[healer]),
                     "taia", fight=monster)
    obs = observe(state, 0)
    play = Play(healer, "")
    assert play in obs.legal
    left = outcome(state, play, 0).seat.hp
    assert 1 < left < 5  # healed by the card, not all the way
    said = reason(obs, play, [state])
    assert said.key == "hint.heal"
    for locale in LOCALES:
        text = translate(said, locale)
        assert str(left) in text and "5" not in text, (locale, text)


def test_a_move_that_only_saves_the_last_hp_is_not_said_to_bring_the_attack_up() -> None:
    """R24, R35: a seat at 1 HP whose weapon already beats the monster's HP loses the battle only
    because the hits knock it out; the healing potion wins it without adding any attack, so the
    reason says it keeps the last HP, not that it brings the attack to what it already was."""
    from engine import DrinkHealing
    from engine.agents.hint_reasons import reason
    from engine.catalog import tables
    from engine.position import SeatSetup, position

    known = tables()
    weapon = max(known.equipment, key=lambda e: known.equipment[e].attack)
    monster = next(m.id for m in known.monsters.values()
                   if m.level == 1 and not m.curses and not m.gatekeeper
                   and 2 <= m.attack < 5 and m.hp <= known.equipment[weapon].attack)
    state = position(SeatSetup("horan", name="Ann", hp=1, weapon=weapon, potions=("healing",)),
                     "taia", fight=monster)
    obs = observe(state, 0)
    assert obs.battle is not None
    before = obs.battle.totals
    assert before.attack >= before.monster_hp and before.knocked_out and not before.win
    drink = DrinkHealing()
    assert drink in obs.legal
    after = observe(apply(state, drink)[0], 0).battle
    assert after is not None and after.totals.win and after.totals.attack == before.attack
    said = reason(obs, drink, [state])
    assert said.key == "hint.keeps_hp", translate(said)
