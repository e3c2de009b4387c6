"""Complete game states consistent with what one seat has seen: the hidden cards dealt at random.

An AI that searches ahead needs whole states to play on, but its observation hides the order of
its own deck, the other seats' hands and decks, the cavern decks below their face-up tops, the
gatekeepers taken as keys and the generator. A :class:`Sampler` works out once which hidden
places an observation has and which cards nobody shows; each :meth:`Sampler.sample` deals every
hidden card into a place that could hold it, so the sample looks to the seat exactly like the
observation::

    sample = Sampler(observation).sample(seed=7)   # or sample_state(observation, seed=7)
    assert observe(sample, observation.viewer) == observation

The known cards (hand, discards, rows, tops, equipment, pawnshop, the battle) stay where they are.
Each hidden place is filled from the cards that could be there: a seat's own starting cards are
always its own (R32, R40: they never leave it), equipment never sits in a hand or deck (R30), a
level's deck holds only that level's regular monsters (R3). The reward action cards nobody shows
are spread over the cavern decks of their level and the seats' hands and decks; ``holders`` (cards
the caller remembers seeing with a seat, say in its discard before it was reshuffled) keeps those
with their seat when the counts allow. The generator is new: future shuffles are unknown too.
Everything a sample is made of comes from the observation's fields.
A sample keeps no take-back record (N19): it never offers ``undo``, which no agent plays, and
looks to the seat like the observation with ``undo`` left out of its legal actions.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import NamedTuple

from msgspec.structs import replace

from engine import rng
from engine.actions import POTIONS, BuyPawned
from engine.catalog import tables
from engine.observe import Observation, observe
from engine.state import MAX_HP, Battle, GameConfig, GameState, Level, Phase, Seat, SeatConfig


def sample_state(observation: Observation, seed: int,
                 holders: Mapping[str, int] | None = None) -> GameState:
    """A complete state that ``observation``'s viewer cannot tell from the real one (one
    :meth:`Sampler.sample`; a caller dealing many samples of one observation keeps the
    :class:`Sampler`)."""
    return Sampler(observation, holders).sample(seed)


class _LevelDeck(NamedTuple):
    """What may lie under a level's face-up deck top: the unseen monsters that must be there
    (equipment) and the unseen reward cards that may, ``take`` of them."""

    top: str | None
    forced: list[str]
    optional: list[str]
    take: int


class _GateDeck(NamedTuple):
    """A level's gatekeeper deck: its face-up top, the unseen gatekeepers (``below`` of them
    under the top, the rest taken as keys) and the seats holding this level's key."""

    top: str | None
    unseen: list[str]
    below: int
    keyholders: list[int]


class Sampler:
    """The hidden places of one seat's observation and the cards nobody shows, worked out once;
    :meth:`sample` deals them anew for each seed."""

    def __init__(self, observation: Observation,
                 holders: Mapping[str, int] | None = None) -> None:
        """``holders`` maps card ids to seats known to hold them in hand or deck (ignored where
        the observation leaves no room for them). Raises ``ValueError`` for a spectator's
        observation or one whose counts no deal can meet."""
        obs = observation
        if obs.viewer is None:
            raise ValueError("only a seat's observation can be sampled, not a spectator's")
        self.obs = obs
        self.holders = dict(holders or {})
        t = tables()
        shown: Counter[str] = Counter(obs.hand)
        shown.update(obs.pawnshop)
        shown.update(obs.drawn)
        for v in obs.seats:
            shown.update(v.discard)
            shown.update(c for c in (v.weapon, v.armour) if c)
        for lv in obs.levels:
            shown.update(c for c in lv.row if c)
            shown.update(c for c in (lv.deck_top, lv.gate_top) if c)
        if obs.battle is not None:
            shown.update(obs.battle.chain)
        if obs.phase is Phase.REWARD and obs.pending:
            shown[obs.pending] += 1
        #: Taia's pending pair when another seat is looking: two more hidden cards of hers.
        self.hidden_pair = obs.phase is Phase.TAIA and obs.viewer != obs.current
        self.decks = [self._level_deck(lv.level, lv.deck_top, lv.deck_count, shown)
                      for lv in obs.levels]
        self.gates = []
        for lv in obs.levels:
            unseen = [g for g in t.gatekeepers[lv.level] if not shown[g]]
            below = max(0, lv.gate_count - 1)
            keyholders = [seat.index for seat in obs.seats if lv.level in seat.keys]
            if len(keyholders) > max(0, len(unseen) - below):
                raise ValueError(f"more level {lv.level} keys than gatekeepers")
            self.gates.append(_GateDeck(lv.gate_top, unseen, below, keyholders))
        self.own: list[list[str]] = []  # each seat's unseen starting cards
        self.room: list[int] = []  # each seat's hidden places left for loose reward cards
        for v in obs.seats:
            mine = [c for c in t.hero_cards[v.hero] if not shown[c]]
            size = v.deck_count + (0 if v.index == obs.viewer else v.hand_count)
            if v.index == obs.current and self.hidden_pair:
                size += 2
            if len(mine) > size:
                raise ValueError(f"seat {v.index}'s hand and deck cannot hold its own cards")
            self.own.append(mine)
            self.room.append(size - len(mine))
        loose = sum(len(deck.optional) - deck.take for deck in self.decks)
        if sum(self.room) != loose:
            raise ValueError("the hidden places and the unseen cards do not add up")
        self.config = GameConfig(
            seats=tuple(SeatConfig(hero=v.hero, name=v.name if isinstance(v.name, str) else "",
                                   ai=v.ai) for v in obs.seats),
            abilities=obs.abilities)
        piles = dict(obs.potion_piles)
        self.potions = (piles[POTIONS[0]], piles[POTIONS[1]], piles[POTIONS[2]])
        self.bought_pawned = _bought_pawned(obs)

    def _level_deck(self, level: int, top: str | None, count: int,
                    shown: Counter[str]) -> _LevelDeck:
        """A level's deck: unseen equipment must be under its top; unseen reward cards fill
        the rest."""
        t = tables()
        unseen = [m for m in t.regular[level] if not shown[m]]
        forced = [m for m in unseen if t.monsters[m].reward != "action"]
        optional = [m for m in unseen if t.monsters[m].reward == "action"]
        take = max(0, count - 1) - len(forced)
        if take < 0 or take > len(optional):
            raise ValueError(f"level {level}'s deck cannot hold the unseen monsters")
        return _LevelDeck(top, forced, optional, take)

    def sample(self, seed: int) -> GameState:
        """A complete state the viewer cannot tell from the real one; ``seed`` makes the deal
        reproducible."""
        obs = self.obs
        state = rng.seed_state(seed ^ 0x5A3D1E)
        levels, loose, state = self._levels(state)
        keys, gates, state = self._gatekeepers(state)
        hidden, state = self._seat_cards(state, loose)
        seats: list[Seat] = []
        drawn: tuple[str, ...] = obs.drawn
        for view in obs.seats:
            i = view.index
            cards = hidden[i]
            if i == obs.viewer:
                hand, deck = obs.hand, cards
            else:
                hand, deck = cards[:view.hand_count], cards[view.hand_count:]
                if i == obs.current and self.hidden_pair:
                    drawn, deck = deck[:2], deck[2:]
            seats.append(Seat(hero=view.hero, hp=view.hp, hand=hand, deck=deck,
                              discard=view.discard, weapon=view.weapon, armour=view.armour,
                              keys=keys[i], potions=view.potions, stacking=view.stacking))
        sample = GameState(
            config=self.config, rng=rng.seed_state(seed), seats=tuple(seats), order=obs.order,
            turn=obs.order.index(obs.current), round=obs.round,
            levels=tuple(Level(row=lv.row, deck=deck, gates=g)
                         for lv, deck, g in zip(obs.levels, levels, gates, strict=True)),
            lord=obs.lord, potions=self.potions, pawnshop=obs.pawnshop, phase=obs.phase,
            battle=None, pending=obs.pending, bought_pawned=self.bought_pawned,
            winner=obs.winner, step=obs.step, log=obs.events)
        if obs.battle is None and obs.phase is not Phase.REWARD:
            return sample
        return _with_battle(obs, sample, drawn)

    def _levels(self, state: int) -> tuple[list[tuple[str, ...]], list[str], int]:
        """Each level's deck (its face-up top, then monsters that may lie under it, shuffled)
        and the unseen reward cards left for the seats: those with a remembered holder go
        under a top only when the others are too few."""
        holders = self.holders
        decks: list[tuple[str, ...]] = []
        loose: list[str] = []
        for deck in self.decks:
            optional, state = rng.shuffled(state, deck.optional)
            optional = tuple(sorted(optional, key=lambda m: m in holders))  # stable: unheld first
            under, state = rng.shuffled(state, deck.forced + list(optional[:deck.take]))
            loose.extend(optional[deck.take:])
            decks.append(((deck.top,) + under) if deck.top else ())
        return decks, loose, state

    def _gatekeepers(self, state: int
                     ) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]], int]:
        """Each seat's keys (gatekeepers of the levels it holds) and each level's gatekeeper
        deck (its face-up top, then the unseen gatekeepers not taken as keys)."""
        keys: list[list[str]] = [[] for _ in self.obs.seats]
        gates: list[tuple[str, ...]] = []
        for deck in self.gates:
            unseen, state = rng.shuffled(state, deck.unseen)
            gates.append(((deck.top,) + unseen[:deck.below]) if deck.top else ())
            taken = list(unseen[deck.below:])
            for seat in deck.keyholders:
                keys[seat].append(taken.pop())
        return [tuple(k) for k in keys], gates, state

    def _seat_cards(self, state: int, loose_cards: list[str]
                    ) -> tuple[list[tuple[str, ...]], int]:
        """Each seat's hidden cards in a random order (hand first, then deck, for other seats):
        its unseen starting cards and a share of the loose reward cards."""
        holders = self.holders
        own = [list(cards) for cards in self.own]
        room = list(self.room)
        loose, state = rng.shuffled(state, loose_cards)
        rest: list[str] = []
        for card in loose:  # remembered holders first, while they have room
            seat = holders.get(card)
            if seat is not None and 0 <= seat < len(room) and room[seat] > 0:
                own[seat].append(card)
                room[seat] -= 1
            else:
                rest.append(card)
        for i, free in enumerate(room):
            own[i].extend(rest[:free])
            rest = rest[free:]
        out: list[tuple[str, ...]] = []
        for cards in own:
            mixed, state = rng.shuffled(state, cards)
            out.append(mixed)
        return out, state


def _bought_pawned(obs: Observation) -> bool:
    """Whether the seat at the merchant bought a pawnshop card this visit (R42): its legal
    actions say so when it could pay, its events otherwise."""
    if obs.phase not in (Phase.MERCHANT, Phase.PAY):
        return False
    if obs.phase is Phase.MERCHANT and obs.legal and obs.pawnshop:
        me = obs.seats[obs.current]
        actions = tables().actions
        if me.weapon or me.armour or any(actions[c].reward for c in obs.hand):  # R40
            return not any(isinstance(a, BuyPawned) for a in obs.legal)
    bought = False
    for event in obs.events:
        key = event.text.key
        if key == "event.merchant":
            bought = False
        elif key == "event.bought":
            item = event.text.get("item")
            bought = bought or not (getattr(item, "key", "")).startswith("potion.")
    return bought


def _with_battle(obs: Observation, sample: GameState, drawn: tuple[str, ...]) -> GameState:
    """The sample with its battle: what the battle view shows, plus Taia's pending draws and,
    while won equipment waits (REWARD), the HP before the hits that the totals imply."""
    view = obs.battle
    if view is None:  # REWARD without a battle cannot happen; keep the sample as it is
        return sample
    battle = Battle(level=view.level, slot=view.slot, monster=view.monster, chain=view.chain,
                    boosted=view.boosted, countered=view.countered,
                    ability_used=view.ability_used, unlocked=view.unlocked,
                    horan_bonus=view.horan_bonus, drawn=drawn,
                    draws_left=_draws_left(obs) if drawn else 0)
    if obs.phase is not Phase.REWARD:
        return replace(sample, battle=battle)
    for hp in range(MAX_HP + 1):
        candidate = replace(sample, battle=replace(battle, hp_before=hp))
        seen = observe(candidate, obs.viewer).battle
        if seen is not None and seen.totals == view.totals:
            return candidate
    return replace(sample, battle=replace(battle, hp_before=sample.seats[obs.current].hp))


def _draws_left(obs: Observation) -> int:
    """Taia's draws still owed after the pending pair (R66): the last card's draw effect, less
    the pairs she already chose from since it was played (her own events say how many)."""
    view = obs.battle
    assert view is not None
    t = tables()
    last = len(view.chain) - 1
    info = t.actions[view.chain[last]]
    counted = "draw" not in view.active_curses or (last, "draw") in view.unlocked
    owed = info.draw if counted else 0
    kept = 0
    for event in obs.events:
        if event.text.key == "event.play":
            kept = 0
        elif event.text.key == "event.taia_kept":
            kept += 1
    return max(0, owed - kept - 1)
