"""N19: a seat takes back its own moves within its turn, step by step, until something hidden is
shown or something is left to chance; the earlier state comes back exactly."""

from __future__ import annotations

import json

import pytest
from msgspec.structs import replace

from engine import (
    BadState,
    GameConfig,
    GameState,
    NotYourTurn,
    Phase,
    SeatConfig,
    Undo,
    anchor_to_json,
    apply,
    legal_actions,
    new_game,
    observe,
    parse,
    replay,
    state_from_json,
    state_to_json,
)
from engine.actions import Play
from engine.agents import make_agent
from engine.agents.search import HardAgent
from engine.position import SeatSetup, position
from engine.serialize import to_data
from engine.state import Event
from engine.undo import closes, revealed
from i18n import msg, translate

from .helpers import T, battle, card, chain, info, legal, mon, name, plain, refused, run

QUIET = [c for c in T.hero_cards["horan"] if not info(c).draw]  # starting cards drawing nothing
DRAWING = [c for c in T.hero_cards["horan"] if info(c).draw]


def quiet_play(state: GameState) -> Play:
    """The first legal play of a card that draws nothing."""
    return next(a for a in legal_actions(state)
                if isinstance(a, Play) and not info(a.card).draw)


def take_back(state: GameState) -> tuple[GameState, list[Event]]:
    """Take back the current seat's last move."""
    return apply(state, Undo())


def turn_start(**seat: object) -> GameState:
    """Horan ("Ann", seat 0) choosing his turn, a monster without curses in row I's first slot,
    Taia waiting; ``seat`` sets up Horan's seat."""
    return position(SeatSetup("horan", name="Ann", **seat), "taia",  # type: ignore[arg-type]
                    rows={1: [plain(1), None, None, None, None]})


def fighting(**seat: object) -> GameState:
    """:func:`turn_start`, then Horan fights the monster of row I's first slot."""
    return run(turn_start(**seat), "fight:1-1")


def test_n19_takes_back_a_played_card_exactly() -> None:
    before = fighting(hand=QUIET[:4])
    play = quiet_play(before)
    after, _ = apply(before, play)
    assert "undo" in legal(after) and legal_actions(after)[-1] == Undo()
    back, events = take_back(after)
    assert back == before and state_to_json(back) == state_to_json(before)
    assert back.step == before.step == after.step - 1
    assert [e.to for e in events] == [None]
    assert translate(events[0].text) == f"Ann takes back {name(play.card)}."
    assert translate(events[0].text, "fr").startswith("Ann annule sa dernière action\u00a0: jouer ")
    assert translate(events[0].text, "cs").startswith("Ann bere zpět zahrání karty ")
    assert back.log == before.log  # the take-back is narrated, never logged in a state


def test_n19_several_take_backs_walk_back_to_the_turn_s_start() -> None:
    fought = fighting(hand=QUIET[:4])
    assert fought.undo is not None and len(fought.undo.moves) == 1
    assert fought.undo.moves[0].startswith("fight:")
    states = [fought.undo.base, fought]  # the turn's start: nothing to take back there
    for _ in range(2):
        states.append(run(states[-1], quiet_play(states[-1])))
    state = states[-1]
    for earlier in reversed(states[:-1]):
        state, events = take_back(state)
        assert state == earlier
    assert state.phase is Phase.TURN
    monster = name(plain(1), monster=True)
    assert translate(events[0].text) == f"Ann takes back the fight against the {monster}."
    refused(state, "undo", "nothing_to_undo", "nothing to take back")


def test_n19_the_same_move_again_is_the_same_game() -> None:
    before = fighting(hand=QUIET[:4])
    play = quiet_play(before)
    after, said = apply(before, play)
    again, said_again = apply(take_back(after)[0], play)
    assert again == after and state_to_json(again) == state_to_json(after)
    assert said_again == said


def test_n19_a_card_drawn_cannot_be_taken_back() -> None:
    state = fighting(hand=[DRAWING[0], *QUIET[:2]], deck=QUIET[2:])
    drawn = run(state, f"play:{DRAWING[0]}")
    assert len(drawn.seats[0].hand) == 3  # it drew a card: shown to its seat alone
    refused(drawn, "undo", "nothing_to_undo")
    later = run(drawn, quiet_play(drawn))  # a later move goes back as far as the draw only
    assert take_back(later)[0] == drawn


def test_n19_a_reshuffle_cannot_be_taken_back() -> None:
    state = fighting(hand=[DRAWING[0], *QUIET[:2]], deck=[], discard=[*QUIET[2:], *DRAWING[1:]])
    shuffled = run(state, f"play:{DRAWING[0]}")
    assert shuffled.rng != state.rng
    refused(shuffled, "undo", "nothing_to_undo")


def test_n19_taia_s_one_card_through_a_rebuilt_deck_cannot_be_taken_back() -> None:
    """Taia (R66) with an empty deck and one card in her discard pile: the pile becomes her deck
    (R17) and she draws its only card alone, which only a public event tells; the rebuilt deck
    closes the take-back all the same, as a card drawn from it does for any seat."""
    target = plain(1)
    drawing = card(lambda a: a.draw == 1, "drawing 1", exclude=(target,))
    state = battle(target, drawing, "tai2", "tai3", "tai4", "tai5", "tai6", hero="taia",
                   abilities=True, deck=[], discard=["tai1"])
    drawn = run(state, f"play:{drawing}")
    assert drawn.phase is Phase.BATTLE and drawn.seats[0].hand[-1] == "tai1"
    assert drawn.seats[0].deck == drawn.seats[0].discard == ()
    refused(drawn, "undo", "nothing_to_undo")


def test_n19_the_next_monster_turned_over_closes_the_take_back() -> None:
    """Winning equipment refills its row slot from the level's deck: when that turns the next
    card over, the reward decision cannot be taken back; from a deck of one card (its top was
    face up) or no deck at all, nothing was shown and it can."""
    target = "m1-10"
    assert mon(target).reward in ("weapon", "armour")
    cards_ = chain(target, attack=mon(target).hp, defence=mon(target).attack)
    under = [m for m in T.regular[1] if m != target][:2]
    for deck, shown in ((under[:2], True), (under[:1], False), ([], False)):
        state = position(SeatSetup("horan", hand=cards_), "taia", decks={1: deck},
                         exact_decks=(1,), fight=target)
        won = run(state, *(f"play:{c}" for c in cards_), "end")
        assert won.phase is Phase.REWARD
        assert ("undo" in legal(won)) is not shown, deck
        if not shown:
            assert take_back(won)[0].phase is Phase.BATTLE


def test_n19_a_card_put_into_a_deck_shows_nothing() -> None:
    """A pawned reward card bought goes on top of the buyer's deck (D2): it can be taken back."""
    bought = card(lambda a: a.reward, "a reward card")
    state = position(SeatSetup("horan", name="Ann", hand=QUIET[:4], weapon="m1-10"), "taia",
                     pawnshop=[bought])
    paying = run(state, "merchant", f"buy:card:{bought}")
    paid = run(paying, "pay:weapon")
    assert paid.seats[0].deck[0] == bought
    back, events = take_back(paid)
    assert back == paying
    assert translate(events[0].text) == f"Ann takes back the payment with {name('m1-10')}."


def test_n19_never_across_a_turn_nor_by_another_seat() -> None:
    state = fighting(hand=QUIET[:4])
    with pytest.raises(NotYourTurn):
        apply(state, Undo(), seat=1)
    ended = run(position(SeatSetup("horan", hp=3), "taia"), "revive")
    assert ended.current == 1
    refused(ended, "undo", "nothing_to_undo")


def test_n19_what_closes_the_take_back() -> None:
    state = fighting(hand=QUIET[:4])
    assert not revealed(state, state, [])
    assert revealed(state, replace(state, rng=state.rng + 1), [])
    assert revealed(state, state, [Event(msg("event.draw_private", cards="x"), to=0)])
    horan, taia = state.seats
    assert not revealed(state, state.with_seat(0, replace(horan, hand=horan.hand[1:])), [])
    assert revealed(state, state.with_seat(1, replace(taia, hand=taia.hand[1:])), [])
    assert revealed(state, state.with_seat(0, replace(horan, deck=horan.deck[1:])), [])
    assert not revealed(state, state.with_seat(0, replace(horan, deck=("hor1", *horan.deck))),
                        [])
    level = state.levels[1]
    assert revealed(state, replace(state, levels=(state.levels[0], replace(
        level, deck=level.deck[1:]), state.levels[2])), [])
    assert closes(state, replace(state, phase=Phase.OVER, winner=0), [])
    assert closes(state, replace(state, turn=1), [])


def test_n19_the_record_is_never_observed() -> None:
    state = fighting(hand=QUIET[:4])
    assert state.undo is not None
    bare = replace(state, undo=None)
    for viewer in (0, 1, None):
        view = observe(state, viewer)
        assert "undo" not in to_data(view)
        if viewer != 0:
            assert view == observe(bare, viewer)
    assert observe(state, 0).legal == (*observe(bare, 0).legal, Undo())


def test_n19_saved_games_keep_the_record_and_older_ones_load_without() -> None:
    state = fighting(hand=QUIET[:4])
    state = run(state, quiet_play(state))
    anchor = anchor_to_json(state)
    assert state_from_json(state_to_json(state), anchor) == state
    doc = json.loads(state_to_json(state))
    del doc["state"]["undo"]
    assert state_from_json(json.dumps(doc)) == replace(state, undo=None)
    assert state.undo is not None
    moves = state.undo.moves
    with pytest.raises(BadState, match="take-back record"):
        state_from_json(state_to_json(replace(state, undo=replace(
            state.undo, moves=("fly", *moves[1:])))), anchor)
    for bad in (replace(state.undo, moves=moves[:-1]),  # not the moves from the anchor to here
                replace(state.undo, base=replace(state.undo.base, turn=1))):
        assert state_from_json(state_to_json(replace(state, undo=bad)), anchor_to_json(
            replace(state, undo=bad))) == replace(state, undo=None)


def test_n19_replay_takes_back_too() -> None:
    config = GameConfig((SeatConfig("horan"), SeatConfig("taia")), seed=4)
    state, moves = new_game(config), []
    agents = [make_agent("reach", i) for i in range(2)]
    while len(moves) < 120:
        action = agents[state.current].choose(observe(state, state.current))
        if state.undo is not None and len(moves) % 3 == 0:
            action = Undo()
        state, _ = apply(state, action)
        moves.append(str(action))
    assert "undo" in moves
    assert replay(config, moves) == state
    assert replay(config, [parse(m) for m in moves]) == state


@pytest.mark.parametrize("kind", ["random", "reach", "heuristic", "easy", "hard"])
def test_n19_agents_never_take_back(kind: str) -> None:
    state = fighting(hand=QUIET[:4])
    view = observe(state, 0)
    assert Undo() in view.legal
    for seed in range(40 if kind != "hard" else 3):
        agent = HardAgent(seed, iterations=16) if kind == "hard" else make_agent(kind, seed)
        assert agent.choose(view) != Undo()
