"""Building an exact game position for tests, renderer previews and bot fixtures.

:func:`position` sets up a :class:`~engine.state.GameState` card by card. Whatever is not placed
explicitly goes to a sensible default zone, so every physical card ends up in exactly one place and
the result passes :func:`engine.validate.check_state`:

* a seat's starting cards not placed: the first four into its hand when ``hand`` is not given, the
  rest to the bottom of its deck (or into its discard pile when ``deck`` is given but ``discard``
  is not);
* regular monsters not placed: into the free slots of their level's row (when ``rows`` does not
  give that level) and then to the bottom of their level's regular deck, catalogue order; for a
  level listed in ``exact_decks`` they go to the pawnshop instead (as if won and pawned earlier),
  so that deck is exactly as given;
* gatekeepers not placed or held as keys: to the bottom of their level's gatekeeper deck.

Example::

    from engine.position import SeatSetup, advance, position

    state = position(
        SeatSetup("horan", hand=["hor1", "hor2"], hp=3, weapon="m1-10", keys=[1]),
        SeatSetup("taia"),
        rows={2: ["m2-04", None, "m2-05", None, None]},
        fight="m2-04",  # start a battle against it (row II slot 1)
    )
    state = advance(state, "play:hor1")  # then any actions, checked by the rules

Cards are catalogue ids (``hor1``, ``m1-03``, ``g2-1``, ``lord-2``); a reward card (a monster's
back) keeps its monster's id. Every mistake (unknown card, a card placed twice, a starting card of
another hero, a key of a level given twice...) raises :class:`PositionError` with the reason.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from msgspec.structs import replace

from engine import events, rng
from engine.actions import LORD_LEVEL, POTIONS, STACK_MODES, Action, Fight, parse
from engine.catalog import tables
from engine.errors import BadState
from engine.names import seat_name
from engine.state import MAX_HP, GameConfig, GameState, Level, Phase, Seat, SeatConfig

ROW_SLOTS = 5


class PositionError(ValueError):
    """A position that cannot be built: the message says which card or value is wrong."""


@dataclass(frozen=True)
class SeatSetup:
    """One seat of a position. ``None`` for a zone means "fill it with the defaults".

    ``deck`` is top first. ``keys`` holds levels (1-3) or gatekeeper ids; ``potions`` holds
    potion kinds (``strength``, ``healing``, ``countercurse``).
    """

    hero: str
    hand: Sequence[str] | None = None
    deck: Sequence[str] | None = None
    discard: Sequence[str] | None = None
    hp: int = MAX_HP
    weapon: str | None = None
    armour: str | None = None
    keys: Iterable[int | str] = ()
    potions: Iterable[str] = ()
    stacking: str = "shuffle"
    name: str = ""
    ai: bool = False


@dataclass
class _Places:
    """Bookkeeping of placed cards while a position is built."""

    where: dict[str, str] = field(default_factory=dict)

    def put(self, card: str, zone: str) -> None:
        if card in self.where:
            raise PositionError(f"card {card!r} placed twice: {self.where[card]} and {zone}")
        self.where[card] = zone


def _as_fight(target: str | Fight) -> Fight | str:
    """A fight target as a Fight action, or a monster id to locate later."""
    if isinstance(target, Fight):
        return target
    if target in tables().monsters:
        return target
    text = target if target.startswith("fight:") else f"fight:{target}"
    action = parse(text)
    assert isinstance(action, Fight)
    return action


def position(
    *seats: SeatSetup | str,
    rows: Mapping[int, Sequence[str | None]] | None = None,
    decks: Mapping[int, Sequence[str]] | None = None,
    gates: Mapping[int, Sequence[str]] | None = None,
    exact_decks: Collection[int] = (),
    lord: str | None = None,
    potion_piles: tuple[int, int, int] | None = None,
    pawnshop: Sequence[str] = (),
    current: int = 0,
    order: Sequence[int] | None = None,
    round: int = 1,
    abilities: bool = False,
    seed: int = 0,
    fight: str | Fight | None = None,
) -> GameState:
    """Build the exact position described; see the module docstring for defaults.

    ``seats`` are :class:`SeatSetup` values or bare hero names. ``rows`` maps a level to its 5 row
    slots (``None`` = empty slot); ``decks`` and ``gates`` map a level to the top cards of its
    regular and gatekeeper decks (top first). ``potion_piles`` (strength, healing, countercurse)
    defaults to what the seats do not hold. ``current`` is the seat whose turn it is; ``order`` the
    turn order (default seat order). ``fight`` starts a battle for the current seat, by monster id
    (``"m1-03"``, ``"g1-2"``, the lord's id) or by target (``"1-3"``, ``"2-gate"``, ``"lord"``, a
    :class:`~engine.actions.Fight`); a monster id not placed explicitly is put into its row's
    first slot (or on top of its gatekeeper deck). The battle starts through the rules, so an
    equipment curse that takes away a hand-size bonus leads to the discard step (R23), and an
    illegal target raises :class:`PositionError`. The position has nothing to take back.
    """
    t = tables()
    specs = tuple(SeatSetup(s) if isinstance(s, str) else s for s in seats)
    if not 2 <= len(specs) <= 4:
        raise PositionError(f"a position needs 2 to 4 seats, not {len(specs)}")
    heroes = [s.hero for s in specs]
    for h in heroes:
        if h not in t.hero_cards:
            raise PositionError(f"unknown hero {h!r}")
    if len(set(heroes)) != len(heroes):
        raise PositionError("each hero may be taken by one seat only")
    lord_id = lord if lord is not None else t.lords[0]
    if lord_id not in t.lords:
        raise PositionError(f"{lord_id!r} is not a Lord")
    rows = dict(rows or {})
    decks = dict(decks or {})
    gates = dict(gates or {})
    for name, table in (("rows", rows), ("decks", decks), ("gates", gates)):
        for level in table:
            if level not in (1, 2, 3):
                raise PositionError(f"{name}: no level {level!r} (levels are 1, 2, 3)")
    for level in exact_decks:
        if level not in (1, 2, 3):
            raise PositionError(f"exact_decks: no level {level!r}")

    target = _as_fight(fight) if fight is not None else None
    places = _Places()

    # ---- explicit placements in the caverns
    for level, row in rows.items():
        if len(row) != ROW_SLOTS:
            raise PositionError(f"row {level} needs {ROW_SLOTS} slots, got {len(row)}")
        for card in row:
            if card is not None:
                _check_monster(card, level, gatekeeper=False, zone=f"row {level}")
                places.put(card, f"row {level}")
    for level, deck in decks.items():
        for card in deck:
            _check_monster(card, level, gatekeeper=False, zone=f"deck {level}")
            places.put(card, f"deck {level}")
    for level, pile in gates.items():
        for card in pile:
            _check_monster(card, level, gatekeeper=True, zone=f"gatekeepers {level}")
            places.put(card, f"gatekeepers {level}")
    for card in pawnshop:
        if card not in t.equipment and not (card in t.actions and t.actions[card].reward):
            raise PositionError(f"{card!r} cannot be in the pawnshop (only won equipment or "
                                "reward cards are)")
        places.put(card, "pawnshop")

    # ---- explicit placements on the seats
    for i, spec in enumerate(specs):
        own = set(t.hero_cards[spec.hero])
        for zone in ("hand", "deck", "discard"):
            for card in getattr(spec, zone) or ():
                info = t.actions.get(card)
                if info is None:
                    raise PositionError(f"seat {i} {zone}: {card!r} is not an action card")
                if not info.reward and card not in own:
                    raise PositionError(f"seat {i} {zone}: {card!r} is not a starting card of "
                                        f"{spec.hero}")
                places.put(card, f"seat {i} {zone}")
        for slot in ("weapon", "armour"):
            item = getattr(spec, slot)
            if item is not None:
                if item not in t.equipment or t.equipment[item].kind != slot:
                    raise PositionError(f"seat {i}: {item!r} is not a {slot}")
                places.put(item, f"seat {i} {slot}")
        if not 0 <= spec.hp <= MAX_HP:
            raise PositionError(f"seat {i}: HP {spec.hp} is not 0-{MAX_HP}")
        if spec.stacking not in STACK_MODES:
            raise PositionError(f"seat {i}: unknown stacking {spec.stacking!r}")
        potions = tuple(spec.potions)
        if set(potions) - set(POTIONS) or len(set(potions)) != len(potions):
            raise PositionError(f"seat {i}: potions {potions!r} (at most one of each kind)")
        for key in spec.keys:
            if isinstance(key, str):
                _check_monster(key, t.monsters[key].level if key in t.monsters else 0,
                               gatekeeper=True, zone=f"seat {i} keys")
                places.put(key, f"seat {i} keys")

    # ---- the fight target, when given by monster id and not placed
    first_in_row: dict[int, str] = {}
    if isinstance(target, str) and target not in places.where and target != lord_id:
        mon = t.monsters[target]
        if mon.level == LORD_LEVEL:
            raise PositionError(f"{target!r} is not this position's Lord ({lord_id!r})")
        if mon.gatekeeper:
            gates[mon.level] = (target, *gates.get(mon.level, ()))
            places.put(target, f"gatekeepers {mon.level}")
        elif mon.level in rows:
            raise PositionError(f"fight target {target!r} is not in row {mon.level}")
        else:
            first_in_row[mon.level] = target
            places.put(target, f"row {mon.level}")

    # ---- keys given by level: the first free gatekeeper of that level
    seat_keys: list[list[str]] = []
    for i, spec in enumerate(specs):
        keys: list[str] = []
        for key in spec.keys:
            if isinstance(key, str):
                keys.append(key)
                continue
            if key not in (1, 2, 3):
                raise PositionError(f"seat {i}: no level {key!r} key")
            free = [g for g in t.gatekeepers[key] if g not in places.where]
            if not free:
                raise PositionError(f"seat {i}: no gatekeeper of level {key} left for a key")
            places.put(free[-1], f"seat {i} keys")
            keys.append(free[-1])
        if len({t.monsters[k].level for k in keys}) != len(keys):
            raise PositionError(f"seat {i}: two keys of one level")
        seat_keys.append(keys)

    # ---- the caverns with their defaults
    levels: list[Level] = []
    spare_pawned: list[str] = []
    for level in (1, 2, 3):
        loose = [m for m in t.regular[level] if m not in places.where]
        row_in = rows.get(level)
        if row_in is None:
            slots: list[str | None] = [first_in_row.get(level)] + [None] * (ROW_SLOTS - 1)
            for s in range(ROW_SLOTS):
                if slots[s] is None and loose:
                    slots[s] = loose.pop(0)
            row = tuple(slots)
        else:
            row = tuple(row_in)
        deck = tuple(decks.get(level, ()))
        if level in exact_decks:
            spare_pawned.extend(loose)
        else:
            deck += tuple(loose)
        pile = tuple(gates.get(level, ()))
        pile += tuple(g for g in t.gatekeepers[level]
                      if g not in places.where and g not in pile)
        for card in (*(c for c in row if c), *deck):
            places.where.setdefault(card, f"level {level}")
        levels.append(Level(row=row, deck=deck, gates=pile))

    # ---- the seats with their defaults
    built: list[Seat] = []
    for i, spec in enumerate(specs):
        loose = [c for c in t.hero_cards[spec.hero] if c not in places.where]
        hand = list(spec.hand) if spec.hand is not None else []
        if spec.hand is None:
            hand, loose = hand + loose[:4], loose[4:]
        deck = list(spec.deck) if spec.deck is not None else []
        discard = list(spec.discard) if spec.discard is not None else []
        if spec.deck is None:
            deck += loose
        elif spec.discard is None:
            discard += loose
        elif loose:
            raise PositionError(f"seat {i}: starting cards {loose} are not placed (hand, deck "
                                "and discard are all given)")
        built.append(Seat(
            hero=spec.hero, hp=spec.hp, hand=tuple(hand), deck=tuple(deck),
            discard=tuple(discard), weapon=spec.weapon, armour=spec.armour,
            keys=tuple(seat_keys[i]), potions=tuple(spec.potions), stacking=spec.stacking,
        ))

    # ---- merchant, order, turn
    held = [sum(kind in s.potions for s in built) for kind in POTIONS]
    if potion_piles is None:
        piles = tuple(t.potions_per_kind - h for h in held)
        if any(p < 0 for p in piles):
            raise PositionError("more potions held than exist")
        potion_piles = (piles[0], piles[1], piles[2])
    n = len(specs)
    turn_order = tuple(order) if order is not None else tuple(range(n))
    if sorted(turn_order) != list(range(n)):
        raise PositionError(f"order {turn_order!r} is not an order of seats 0-{n - 1}")
    if current not in turn_order:
        raise PositionError(f"current seat {current!r} is not at the table")
    config = GameConfig(
        seats=tuple(SeatConfig(s.hero, name=s.name, ai=s.ai, stacking=s.stacking)
                    for s in specs),
        abilities=abilities, seed=seed,
    )
    state = GameState(
        config=config, rng=rng.seed_state(seed), seats=tuple(built), order=turn_order,
        turn=turn_order.index(current), round=round, levels=tuple(levels), lord=lord_id,
        potions=potion_piles, pawnshop=tuple(pawnshop) + tuple(spare_pawned), phase=Phase.TURN,
    )
    state = replace(state, log=(events.turn(seat_name(state, current), round),))
    from engine.validate import check_state

    try:
        check_state(state)
    except BadState as exc:
        raise PositionError(f"inconsistent position: {exc}") from exc
    if target is not None:
        state = _start_fight(state, target)
    return state


def _check_monster(card: str, level: int, *, gatekeeper: bool, zone: str) -> None:
    info = tables().monsters.get(card)
    kind = "gatekeeper" if gatekeeper else "regular monster"
    if info is None or info.level != level or info.gatekeeper != gatekeeper:
        raise PositionError(f"{zone}: {card!r} is not a level {level} {kind}")


def _start_fight(state: GameState, target: Fight | str) -> GameState:
    """Start the battle through the rules (so R23's discard step applies); the position begins
    there, so the fight is not one its seat may take back (N19)."""
    from engine.errors import IllegalAction
    from engine.rules import apply

    if isinstance(target, str):
        target = locate(state, target)
    try:
        state, _ = apply(state, target)
    except IllegalAction as exc:
        raise PositionError(f"cannot fight {target}: {exc}") from exc
    return replace(state, undo=None)


def locate(state: GameState, monster: str) -> Fight:
    """The fight action that targets ``monster`` where it lies now (row slot, gatekeeper top, Lord).

    Raises :class:`PositionError` when the monster cannot be targeted (e.g. it is inside a deck).
    """
    if monster == state.lord:
        return Fight(LORD_LEVEL, 0)
    for level, lv in enumerate(state.levels, start=1):
        if monster in lv.row:
            return Fight(level, lv.row.index(monster) + 1)
        if lv.gates and lv.gates[0] == monster:
            return Fight(level, 0)
    raise PositionError(f"{monster!r} is not face up in a row nor on top of a gatekeeper deck")


def advance(state: GameState, *actions: Action | str) -> GameState:
    """Apply ``actions`` (objects or notation) in turn through the rules and return the result.

    An illegal action raises :class:`~engine.errors.IllegalAction` with its reason, as in play.
    """
    from engine.rules import apply

    for action in actions:
        state, _ = apply(state, parse(action) if isinstance(action, str) else action)
    return state
