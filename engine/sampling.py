"""Complete game states consistent with what one seat has seen: the hidden cards dealt at random.

An AI that searches ahead needs whole states to play on, but its observation hides the order of
its own deck, the other seats' hands and decks, the cavern decks below their face-up tops, the
gatekeepers taken as keys and the generator. :func:`sample_state` deals every hidden card into
a place that could hold it, so the sample looks to the seat exactly like the observation::

    sample = sample_state(observation, seed=7)
    assert observe(sample, observation.viewer) == observation

The known cards (hand, discards, rows, tops, equipment, pawnshop, the battle) stay where they are.
Each hidden place is filled from the cards that could be there: a seat's own starting cards are
always its own (R32, R40: they never leave it), equipment never sits in a hand or deck (R30), a
level's deck holds only that level's regular monsters (R3). The reward action cards nobody shows
are spread over the cavern decks of their level and the seats' hands and decks; ``holders`` (cards
the caller remembers seeing with a seat, say in its discard before it was reshuffled) keeps those
with their seat when the counts allow. The generator is new: future shuffles are unknown too.
A sample keeps no take-back record (N19): it never offers ``undo``, which no agent plays, and
looks to the seat like the observation with ``undo`` left out of its legal actions.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from engine import rng
from engine.actions import POTIONS, BuyPawned
from engine.catalog import tables
from engine.observe import Observation
from engine.state import MAX_HP, Battle, GameConfig, GameState, Level, Phase, Seat, SeatConfig


def sample_state(observation: Observation, seed: int,
                 holders: Mapping[str, int] | None = None) -> GameState:
    """A complete state that ``observation``'s viewer cannot tell from the real one.

    ``seed`` makes the deal reproducible; ``holders`` maps card ids to seats known to hold them
    in hand or deck (ignored where the observation leaves no room for them).
    """
    obs = observation
    if obs.viewer is None:
        raise ValueError("only a seat's observation can be sampled, not a spectator's")
    state = rng.seed_state(seed ^ 0x5A3D1E)
    holders = holders or {}
    deal = _Deal(obs)
    levels, state = deal.levels(state, holders)
    keys, gates, state = deal.gatekeepers(state)
    hidden, state = deal.seat_cards(state, holders)
    seats: list[Seat] = []
    drawn: tuple[str, ...] = obs.drawn
    for view in obs.seats:
        i = view.index
        cards = hidden[i]
        if i == obs.viewer:
            hand, deck = obs.hand, cards
        else:
            hand, deck = cards[:view.hand_count], cards[view.hand_count:]
            if i == obs.current and deal.hidden_pair:
                drawn, deck = deck[:2], deck[2:]
        seats.append(Seat(hero=view.hero, hp=view.hp, hand=hand, deck=deck, discard=view.discard,
                          weapon=view.weapon, armour=view.armour, keys=keys[i],
                          potions=view.potions, stacking=view.stacking))
    config = GameConfig(
        seats=tuple(SeatConfig(hero=v.hero, name=v.name if isinstance(v.name, str) else "",
                               ai=v.ai) for v in obs.seats),
        abilities=obs.abilities)
    piles = dict(obs.potion_piles)
    sample = GameState(
        config=config, rng=rng.seed_state(seed), seats=tuple(seats), order=obs.order,
        turn=obs.order.index(obs.current), round=obs.round,
        levels=tuple(Level(row=lv.row, deck=deck, gates=g)
                     for lv, deck, g in zip(obs.levels, levels, gates, strict=True)),
        lord=obs.lord, potions=(piles[POTIONS[0]], piles[POTIONS[1]], piles[POTIONS[2]]),
        pawnshop=obs.pawnshop, phase=obs.phase, battle=None, pending=obs.pending,
        bought_pawned=_bought_pawned(obs), winner=obs.winner, step=obs.step, log=obs.events)
    if obs.battle is None and obs.phase is not Phase.REWARD:
        return sample
    return _with_battle(obs, sample, drawn)


class _Deal:
    """The hidden places of an observation and the cards nobody shows."""

    def __init__(self, obs: Observation) -> None:
        self.obs = obs
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
        self.shown = shown
        #: Taia's pending pair when another seat is looking: two more hidden cards of hers.
        self.hidden_pair = obs.phase is Phase.TAIA and obs.viewer != obs.current
        #: Per level, the regular monsters nobody shows; equipment among them must be in its deck.
        self.unseen = {lv: [m for m in t.regular[lv] if not shown[m]] for lv in (1, 2, 3)}

    def levels(self, state: int, holders: Mapping[str, int]
               ) -> tuple[list[tuple[str, ...]], int]:
        """Each level's deck: its face-up top, then monsters that may lie under it, shuffled.
        Unseen equipment must be there; unseen reward cards of the level fill the rest, those
        with a remembered holder only when the others are too few."""
        t = tables()
        decks: list[tuple[str, ...]] = []
        self.loose: list[str] = []  # unseen reward cards left for the seats
        for view in self.obs.levels:
            unseen = self.unseen[view.level]
            below = max(0, view.deck_count - 1)
            forced = [m for m in unseen if t.monsters[m].reward != "action"]
            optional, state = rng.shuffled(state, [m for m in unseen
                                                   if t.monsters[m].reward == "action"])
            optional = tuple(sorted(optional, key=lambda m: m in holders))  # stable: unheld first
            take = below - len(forced)
            if take < 0 or take > len(optional):
                raise ValueError(f"level {view.level}'s deck cannot hold the unseen monsters")
            under, state = rng.shuffled(state, forced + list(optional[:take]))
            self.loose.extend(optional[take:])
            decks.append(((view.deck_top,) + under) if view.deck_top else ())
        return decks, state

    def gatekeepers(self, state: int) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]], int]:
        """Each seat's keys (gatekeepers of the levels it holds) and each level's gatekeeper
        deck (its face-up top, then the unseen gatekeepers not taken as keys)."""
        t = tables()
        keys: list[list[str]] = [[] for _ in self.obs.seats]
        gates: list[tuple[str, ...]] = []
        for view in self.obs.levels:
            unseen, state = rng.shuffled(
                state, [g for g in t.gatekeepers[view.level] if not self.shown[g]])
            below = max(0, view.gate_count - 1)
            gates.append(((view.gate_top,) + unseen[:below]) if view.gate_top else ())
            taken = list(unseen[below:])
            for seat in self.obs.seats:
                if view.level in seat.keys:
                    if not taken:
                        raise ValueError(f"more level {view.level} keys than gatekeepers")
                    keys[seat.index].append(taken.pop())
        return [tuple(k) for k in keys], gates, state

    def seat_cards(self, state: int, holders: Mapping[str, int]
                   ) -> tuple[list[tuple[str, ...]], int]:
        """Each seat's hidden cards in a random order (hand first, then deck, for other seats):
        its unseen starting cards and a share of the loose reward cards."""
        t = tables()
        obs = self.obs
        room: list[int] = []
        own: list[list[str]] = []
        for v in obs.seats:
            mine = [c for c in t.hero_cards[v.hero] if not self.shown[c]]
            size = v.deck_count + (0 if v.index == obs.viewer else v.hand_count)
            if v.index == obs.current and self.hidden_pair:
                size += 2
            if len(mine) > size:
                raise ValueError(f"seat {v.index}'s hand and deck cannot hold its own cards")
            own.append(mine)
            room.append(size - len(mine))
        loose, state = rng.shuffled(state, self.loose)
        if sum(room) != len(loose):
            raise ValueError("the hidden places and the unseen cards do not add up")
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
        me = obs.seat_view(obs.current)
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
    from msgspec.structs import replace

    from engine.observe import observe

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
