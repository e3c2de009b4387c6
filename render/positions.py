"""Positions to draw, rebuilt deterministically: for the demo, the golden images and the benchmark.

* :func:`battle_position` plays seeded random agents until a battle is under way with cards played
  and equipment on the table (the demo's "mid-game position reached by simulated play").
* :data:`SCENARIOS` are exact positions built with :mod:`engine.position` and a few legal moves.
  Cards are picked by property from the catalogue at build time (never by hard-coded values), and
  moves are the first legal ones of a kind, so a re-tuned catalogue still yields a position.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engine import (
    DrinkCountercurse,
    DrinkStrength,
    GameConfig,
    GameState,
    Phase,
    Play,
    SeatConfig,
    apply,
    legal_actions,
    new_game,
    observe,
)
from engine.agents import make_agent
from engine.catalog import tables
from engine.observe import Observation
from engine.position import SeatSetup, position

HEROES = ("horan", "taia", "argentus", "aderyn")
MAX_STEPS = 4000
DEMO_SEED = 7  # Aderyn, weapon, armour, healing potion, vs a level II gatekeeper cursed twice


class NoPosition(RuntimeError):
    """The simulated game ended before reaching the wanted position."""


def demo_config(seed: int, seats: int = 3, abilities: bool = True) -> GameConfig:
    """The table the simulated demo game is played on."""
    return GameConfig(seats=tuple(SeatConfig(h) for h in HEROES[:seats]), abilities=abilities,
                      seed=seed)


def _battle_with_cards(state: GameState, min_chain: int) -> bool:
    b = state.battle
    if state.phase is not Phase.BATTLE or b is None or len(b.chain) < min_chain:
        return False
    return any(s.weapon or s.armour for s in state.seats)


def _rich(state: GameState) -> bool:
    """A battle worth showing: the fighter has equipment and potions (or drank one) and can play."""
    b = state.battle
    assert b is not None
    seat = state.seats[state.current]
    potions = bool(seat.potions or b.boosted or b.countered)
    can_play = any(isinstance(a, Play) for a in legal_actions(state))
    return bool(seat.weapon or seat.armour) and potions and can_play


def battle_position(seed: int, seats: int = 3, min_chain: int = 2,
                    abilities: bool = True) -> tuple[GameState, list[str]]:
    """Play seeded random agents until a battle with ``min_chain`` cards played and equipment.

    The first such battle where the fighter also has equipment, a potion and a playable card is
    preferred; failing that, the first battle with cards played and equipment anywhere. Returns
    the state and the actions (notation) that reach it from ``demo_config(seed, ...)``.
    """
    state = new_game(demo_config(seed, seats, abilities))
    agents = [make_agent("reach", seed * 31 + i) for i in range(seats)]
    actions: list[str] = []
    fallback: tuple[GameState, list[str]] | None = None
    for _ in range(MAX_STEPS):
        if state.phase is Phase.OVER:
            break
        if _battle_with_cards(state, min_chain):
            if _rich(state):
                return state, actions
            if fallback is None:
                fallback = (state, list(actions))
        action = agents[state.current].choose(observe(state, state.current))
        state, _events = apply(state, action)
        actions.append(str(action))
    if fallback is not None:
        return fallback
    raise NoPosition(f"seed {seed}: no battle with {min_chain} cards played and equipment")


# ---- exact scenarios -----------------------------------------------------------------------


def _equipment(kind: str, level: int, skip: int = 0) -> str:
    t = tables()
    found = [e for e in sorted(t.equipment) if t.equipment[e].kind == kind
             and t.monsters[e].level == level]
    return found[skip % len(found)]


def _reward_actions(level: int, count: int) -> list[str]:
    t = tables()
    return [c for c in sorted(t.actions) if t.actions[c].reward
            and t.monsters[c].level == level][:count]


def _cursed_monster(level: int) -> str:
    """A regular monster of ``level`` with a colour curse (else any curse, else the first)."""
    t = tables()
    regular = t.regular[level]
    colour = [m for m in regular if set(t.monsters[m].curses) & {"green", "blue", "red", "yellow"}]
    cursed = [m for m in regular if t.monsters[m].curses]
    return (colour or cursed or list(regular))[0]


def _first(state: GameState, kind: type) -> object | None:
    options = sorted((a for a in legal_actions(state) if isinstance(a, kind)), key=str)
    return options[0] if options else None


def _moves(state: GameState, kinds: list[type]) -> GameState:
    """Apply, in turn, the first legal action of each kind that has one."""
    for kind in kinds:
        if state.phase is not Phase.BATTLE:
            break
        action = _first(state, kind)
        if action is not None:
            state, _ = apply(state, action)  # type: ignore[arg-type]
    return state


def midgame() -> tuple[GameState, int | None]:
    """Four seats in round 7 with keys, equipment, potions and a pawnshop; a battle against a
    cursed monster with a countercurse drunk, two cards played and a strength potion."""
    pawn = [_equipment("weapon", 1, 1), _equipment("armour", 2, 0), *_reward_actions(1, 3),
            _equipment("weapon", 2, 1)]
    state = position(
        SeatSetup("horan", name="Kateřina", hp=3, weapon=_equipment("weapon", 1),
                  armour=_equipment("armour", 1), keys=[1],
                  potions=["strength", "countercurse"]),
        SeatSetup("taia", hp=1, potions=["healing"], ai=True),
        SeatSetup("argentus", name="François"),
        SeatSetup("aderyn", keys=[1, 2], armour=_equipment("armour", 1, 1)),
        pawnshop=pawn, fight=_cursed_monster(2), abilities=True, round=7, current=0,
    )
    return _moves(state, [DrinkCountercurse, Play, Play, DrinkStrength]), 0


def lord() -> tuple[GameState, int | None]:
    """Two seats; the second, holding all three keys, fights the Lord after one card."""
    state = position(
        SeatSetup("victorius", hp=2),
        SeatSetup("xanros", keys=[1, 2, 3], weapon=_equipment("weapon", 3),
                  armour=_equipment("armour", 2), potions=["strength"]),
        fight="lord", abilities=True, round=12, current=1,
    )
    return _moves(state, [Play]), 1


def taia_draws() -> tuple[GameState, int | None]:
    """Taia plays a card that draws and must keep one of the two cards she drew."""
    t = tables()
    own = t.hero_cards["taia"]
    drawers = [c for c in own if t.actions[c].draw]
    others = [c for c in own if c not in drawers]
    hand = (drawers[:1] + others)[:4]
    state = position(
        SeatSetup("taia", hand=hand), SeatSetup("horan"), SeatSetup("aderyn"),
        fight=t.regular[1][0], abilities=True, round=2, current=0,
    )
    for card in hand:
        if state.phase is not Phase.BATTLE:
            break
        plays = [a for a in legal_actions(state) if isinstance(a, Play) and a.card == card]
        if plays and t.actions[card].draw:
            state, _ = apply(state, plays[0])
    return state, 0


def discard_step() -> tuple[GameState, int | None]:
    """A fight against a monster whose curse takes away the hand-size bonus of the seat's
    equipment, so the seat must discard a card (R23) before the battle."""
    t = tables()
    for item in sorted(t.equipment):
        eq = t.equipment[item]
        if not eq.hand:
            continue
        foes = [m for m in sorted(t.monsters) if eq.kind in t.monsters[m].curses
                and t.monsters[m].level in (1, 2, 3) and m != item
                and not t.monsters[m].gatekeeper]
        if foes:
            hand = [*t.hero_cards["aderyn"][:4], *_reward_actions(1, 1)]
            kind = {eq.kind: item}
            state = position(
                SeatSetup("aderyn", hand=hand, weapon=kind.get("weapon"),
                          armour=kind.get("armour"),
                          keys=list(range(1, t.monsters[foes[0]].level))),
                SeatSetup("victorius"), fight=foes[0], round=9, current=0,
            )
            return state, 0
    raise NoPosition("no equipment with a hand-size bonus meets a monster cursing it")


def xanros() -> tuple[GameState, int | None]:
    """Lord Xanros counts a cursed effect with his ability (R63), then doubles another card
    with a strength potion; his armour heals after the battle."""
    t = tables()
    foe = next(m for m in sorted(t.monsters) if t.monsters[m].curses == ("attack",)
               and t.monsters[m].level == 2 and not t.monsters[m].gatekeeper)
    heal = next(e for e in sorted(t.equipment) if t.equipment[e].kind == "armour"
                and t.equipment[e].heal and t.monsters[e].level == 2)
    state = position(
        SeatSetup("xanros", hp=4, keys=[1], armour=heal, potions=["strength"]),
        SeatSetup("aderyn"), fight=foe, abilities=True, round=6, current=0,
    )
    unlock = sorted((a for a in legal_actions(state) if isinstance(a, Play) and a.ability),
                    key=str)
    if unlock:
        state, _ = apply(state, unlock[0])
    return _moves(state, [Play, DrinkStrength]), 0


def crowded() -> tuple[GameState, int | None]:
    """The fullest table: four seats with long names, all keys, three potions, a weapon and an
    armour with two bonuses each, two-digit decks and discards, and a long pawnshop."""
    t = tables()
    eq = t.equipment

    def two(kind: str) -> list[str]:
        return [e for e in sorted(eq) if eq[e].kind == kind
                and sum(1 for v in (eq[e].attack, eq[e].defence, eq[e].heal, eq[e].hand) if v) > 1]

    weapons, armours = two("weapon"), two("armour")
    rewards = [c for c in sorted(t.actions) if t.actions[c].reward]
    used = set(weapons[:4] + armours[:4])
    pawn = [e for e in sorted(eq) if e not in used] + rewards[36:38]
    potions = ["strength", "healing", "countercurse"]
    names = ("Kateřina Nováková", "", "François-Xavier", "Přemysl")
    heroes = ("horan", "taia", "argentus", "aderyn")
    seats = [SeatSetup(h, name=n, hp=5 - i, keys=[1, 2, 3], weapon=weapons[i],
                       armour=armours[i], potions=potions, ai=(h == "taia"),
                       hand=t.hero_cards[h][:4] if i < 2 else None,
                       deck=rewards[i * 18: i * 18 + 10] if i < 2 else None,
                       discard=[*t.hero_cards[h][4:], *rewards[i * 18 + 10: i * 18 + 18]]
                       if i < 2 else None)
             for i, (h, n) in enumerate(zip(heroes, names, strict=True))]
    taken = used | set(pawn) | set(rewards[:38])
    foe = next(m for lv in (3, 2, 1) for m in t.regular[lv]
               if m not in taken and t.monsters[m].curses)
    state = position(*seats, pawnshop=pawn, potion_piles=(0, 0, 0),
                     fight=foe, abilities=True, round=23, current=0)
    return _moves(state, [Play, Play]), 0


def start() -> tuple[GameState, int | None]:
    """A new two-seat game as a spectator sees it."""
    return new_game(GameConfig(seats=(SeatConfig("argentus"), SeatConfig("victorius")),
                               seed=5)), None


SCENARIOS: dict[str, Callable[[], tuple[GameState, int | None]]] = {
    "midgame": midgame,
    "lord": lord,
    "taia": taia_draws,
    "discard": discard_step,
    "start": start,
    "xanros": xanros,
    "crowded": crowded,
}


@dataclass(frozen=True)
class Scene:
    """A named position with the viewer whose observation is drawn."""

    name: str
    state: GameState
    viewer: int | None

    def observation(self) -> Observation:
        """The viewer's observation of the position."""
        return observe(self.state, self.viewer)


def scene(name: str) -> Scene:
    """Build the scenario ``name``."""
    state, viewer = SCENARIOS[name]()
    return Scene(name, state, viewer)
