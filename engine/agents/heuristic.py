"""The heuristic agent: plans each battle by searching the card sequences it can play, picks the
monster with the best reward it can beat, buys and revives sensibly. It sees only its observation.
"""

from __future__ import annotations

from typing import NamedTuple

from msgspec import Struct

from engine.actions import (
    LORD_LEVEL,
    Action,
    BuyPawned,
    BuyPotion,
    Discard,
    DrinkCountercurse,
    DrinkHealing,
    DrinkStrength,
    EndBattle,
    Fight,
    KeepDrawn,
    LeaveMerchant,
    Pay,
    Play,
    Revive,
    SetStacking,
    TakeReward,
    VisitMerchant,
)
from engine.agents.offered import without_undo
from engine.agents.planner import DRAW_VALUE, Outcome, Situation, best_plans
from engine.catalog import EquipInfo, tables
from engine.observe import Observation, SeatView
from engine.state import MAX_HP, Phase


class Forecast(Struct, frozen=True, gc=False):
    """How a plan would end against a monster."""

    win: bool
    damage: int
    knocked: bool
    margin: float  # expected attack minus monster HP
    score: float


class Context(NamedTuple):
    """What a forecast needs besides the plan: the monster, the seat's equipment, its ability."""

    monster_attack: int
    monster_hp: int
    equip_attack: int
    equip_defence: int
    equip_heal: int
    aderyn: bool  # R64 lets the battle be won on the last HP
    draw_value: float  # attack one card a draw effect brings is expected to add


#: Taia's draws (R66) keep the better of two cards: a card that chains and hits is found about
#: half again as often as with one card (1 - (1 - p)^2 against p, for p about one half).
TAIA_DRAW_VALUE = DRAW_VALUE * 1.5


def _equip_totals(me: SeatView, curses: frozenset[str]) -> tuple[int, int, int]:
    eq = tables().equipment
    att = dfn = heal = 0
    for slot in ("weapon", "armour"):
        item = getattr(me, slot)
        if item and slot not in curses:
            att += eq[item].attack
            dfn += eq[item].defence
            heal += eq[item].heal
    return att, dfn, heal


def card_value(card: str) -> float:
    """How good an action card is to keep (attack counts most, then draw, defence, heal)."""
    c = tables().actions[card]
    return c.attack * 1.0 + c.draw * 1.2 + c.defence * 0.7 + c.heal * 0.5 + len(c.next) * 0.15


def equip_value(item: str | None) -> float:
    """How good a weapon or armour is."""
    if item is None:
        return 0.0
    e: EquipInfo = tables().equipment[item]
    return e.attack * 1.2 + e.defence * 1.0 + e.heal * 0.8 + e.hand * 1.5


#: The round from which a game counts as stalled (self-play games end by round 26 in 95 of 100,
#: docs/balance.md; before this rule the longest finished game took 66 rounds, and one of 10,000
#: never ended), and how much more potions are then worth.
STALL_ROUND = 40
STALL_POTION_BOOST = 3.0


def _knock_penalty(win: bool) -> float:
    """What losing the last HP costs: the next turn spent reviving (R50) and, unless the battle is
    still won (Aderyn, R64), the battle itself."""
    return 12.0 if win else 60.0


class HeuristicAgent:
    """A planning agent strong enough to finish games and to balance the catalogue with."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    # ------------------------------------------------------------------ evaluation

    def _context(self, obs: Observation, monster: str, curses: frozenset[str],
                 level: int) -> Context:
        """Monster attack and HP, uncursed equipment totals, whether Aderyn's ability helps and
        what one card a draw effect brings is worth to this seat."""
        m = tables().monsters[monster]
        me = obs.seats[obs.current]
        eq_att, eq_def, eq_heal = _equip_totals(me, curses)
        aderyn = obs.abilities and me.hero == "aderyn" and level != LORD_LEVEL
        taia = obs.abilities and me.hero == "taia"
        return Context(m.attack, m.hp, eq_att, eq_def, eq_heal, aderyn,
                       TAIA_DRAW_VALUE if taia else DRAW_VALUE)

    @staticmethod
    def _forecast(ctx: Context, outcome: Outcome, base_att: int,
                  base_def: int, hp: int, strength: bool) -> Forecast:
        m_att, m_hp, eq_att, eq_def, eq_heal, aderyn, draw_value = ctx
        att = base_att + outcome.attack + eq_att
        dfn = base_def + outcome.defence + eq_def
        if strength:
            gain_a = outcome.best_attack_card
            gain_d = outcome.best_defence_card
            if att < m_hp <= att + gain_a or gain_a >= gain_d:
                att += gain_a
            else:
                dfn += gain_d
        hp_now = min(MAX_HP, hp + outcome.heal)
        damage = max(0, m_att - dfn)
        knocked = damage >= hp_now and damage > 0
        expected = att + draw_value * outcome.draws
        win = att >= m_hp and (not knocked or aderyn)
        knock = _knock_penalty(win) if knocked else 0.0
        score = (100.0 if win else -10.0 * max(0.0, m_hp - expected)) - 6.0 * damage \
            - knock - 0.3 * len(outcome.cards) + 0.5 * eq_heal
        return Forecast(win, damage, knocked, expected - m_hp, score)

    def _target_value(self, obs: Observation, fight: Fight, monster: str) -> float:
        t = tables()
        m = t.monsters[monster]
        me = obs.seats[obs.current]
        if fight.level == LORD_LEVEL:
            return 1000.0
        if m.reward == "key":
            return 60.0 + 10 * m.level
        if m.reward == "action":
            return 6.0 + 5.0 * m.level + card_value(monster)
        kind = t.equipment[monster].kind
        gain = equip_value(monster) - equip_value(getattr(me, kind))
        return 4.0 + 3.0 * m.level + max(0.0, gain) * 6.0

    def _monster_at(self, obs: Observation, fight: Fight) -> str:
        card = obs.target(fight)
        assert card is not None
        return card

    def _best_against(self, obs: Observation, fight: Fight
                      ) -> tuple[Forecast, Outcome, str | None]:
        me = obs.seats[obs.current]
        monster = self._monster_at(obs, fight)
        m = tables().monsters[monster]
        hero = me.hero if obs.abilities else ""
        options: list[str | None] = [None]
        if "countercurse" in me.potions:
            options += list(m.curses)
        best: tuple[Forecast, Outcome, str | None] | None = None
        for counter in options:
            curses = frozenset(c for c in m.curses if c != counter)
            ctx = self._context(obs, monster, curses, fight.level)
            strength = "strength" in me.potions
            for outcome in best_plans(obs.hand, Situation(hero=hero, curses=curses)):
                f = self._forecast(ctx, outcome, 0, 0, me.hp, strength)
                score = f.score - (3.0 if counter else 0.0)
                if best is None or score > best[0].score:
                    best = (Forecast(f.win, f.damage, f.knocked, f.margin, score), outcome,
                            counter)
        assert best is not None
        return best

    # ------------------------------------------------------------------ decisions

    def choose(self, observation: Observation) -> Action:
        """Pick an action for the observing seat."""
        obs = without_undo(observation)
        legal = list(obs.legal)
        phase = obs.phase
        if phase is Phase.TURN:
            return self._turn(obs, legal)
        if phase is Phase.BATTLE:
            return self._battle(obs, legal)
        if phase is Phase.DISCARD:
            counters = [a for a in legal if isinstance(a, DrinkCountercurse)]
            if counters and obs.battle and obs.battle.curses:
                eq = [a for a in counters if a.curse in ("weapon", "armour")]
                if eq:
                    return eq[0]
            discards = [a for a in legal if isinstance(a, Discard)]
            return min(discards, key=lambda a: card_value(a.card))
        if phase is Phase.TAIA:
            keeps = [a for a in legal if isinstance(a, KeepDrawn)]
            return max(keeps, key=lambda a: (self._battle_score(obs, obs.hand + (a.card,)),
                                             card_value(a.card)))
        if phase is Phase.REWARD:
            me = obs.seats[obs.current]
            assert obs.pending is not None
            kind = tables().equipment[obs.pending].kind
            keep = equip_value(obs.pending) > equip_value(getattr(me, kind))
            return TakeReward(keep)
        if phase is Phase.MERCHANT:
            return self._merchant(obs, legal)
        if phase is Phase.PAY:
            return self._payment(obs, legal)
        return legal[0]

    def _turn(self, obs: Observation, legal: list[Action]) -> Action:
        me = obs.seats[obs.current]
        if SetStacking("top") in legal:
            return SetStacking("top")
        fights = [a for a in legal if isinstance(a, Fight)]
        if not fights and VisitMerchant() not in legal:
            return Revive()
        ranked: list[tuple[float, Fight, Forecast]] = []
        for fight in fights:
            forecast, _, _ = self._best_against(obs, fight)
            value = self._target_value(obs, fight, self._monster_at(obs, fight))
            rank = (value + forecast.score) if forecast.win else forecast.score - 200.0
            ranked.append((rank, fight, forecast))
        ranked.sort(key=lambda r: -r[0])
        if ranked and ranked[0][2].win:
            if DrinkHealing() in legal and ranked[0][2].knocked:
                return DrinkHealing()
            return ranked[0][1]
        if me.hp <= 2:
            if DrinkHealing() in legal:
                return DrinkHealing()
            return Revive()
        shop = self._shopping_list(obs)
        if shop and VisitMerchant() in legal:
            return VisitMerchant()
        safe = [r for r in ranked if not r[2].knocked]
        if safe:
            # Nothing can be beaten now: fight the most promising monster to cycle the hand.
            return max(safe, key=lambda r: r[2].margin - r[2].damage)[1]
        if me.hp < MAX_HP:
            return Revive()
        return ranked[0][1] if ranked else Revive()

    def _battle_score(self, obs: Observation, hand: tuple[str, ...]) -> float:
        """The best forecast score the current battle could reach with ``hand``."""
        battle = obs.battle
        assert battle is not None
        me = obs.seats[obs.current]
        curses = frozenset(battle.active_curses)
        where = Situation(hero=me.hero if obs.abilities else "", curses=curses,
                          prev=battle.chain[-1] if battle.chain else None,
                          length=len(battle.chain), ability_used=battle.ability_used,
                          horan_bonus=battle.horan_bonus)
        base_att = battle.totals.attack_cards + battle.totals.attack_ability
        ctx = self._context(obs, battle.monster, curses, battle.level)
        return max(self._forecast(ctx, o, base_att, battle.totals.defence_cards, me.hp,
                                  "strength" in me.potions).score
                   for o in best_plans(hand, where))

    def _battle(self, obs: Observation, legal: list[Action]) -> Action:
        battle = obs.battle
        assert battle is not None
        me = obs.seats[obs.current]
        hero = me.hero if obs.abilities else ""
        curses = frozenset(battle.active_curses)
        counters = [a for a in legal if isinstance(a, DrinkCountercurse)]
        base_att = battle.totals.attack_cards + battle.totals.attack_ability
        base_def = battle.totals.defence_cards
        where = Situation(hero=hero, curses=curses,
                          prev=battle.chain[-1] if battle.chain else None,
                          length=len(battle.chain), ability_used=battle.ability_used,
                          horan_bonus=battle.horan_bonus)
        outcomes = best_plans(obs.hand, where)
        strength = "strength" in me.potions

        def best_of(outs: tuple[Outcome, ...], cs: frozenset[str], with_strength: bool
                    ) -> tuple[Forecast, Outcome]:
            ctx = self._context(obs, battle.monster, cs, battle.level)
            scored = [(self._forecast(ctx, o, base_att, base_def, me.hp, with_strength), o)
                      for o in outs]
            return max(scored, key=lambda s: s[0].score)

        here = self._context(obs, battle.monster, curses, battle.level)

        best_f, best_o = best_of(outcomes, curses, strength)
        if counters and not best_f.win:
            for counter in counters:
                cs = frozenset(c for c in curses if c != counter.curse)
                alt = best_plans(obs.hand, Situation(hero, cs, where.prev, where.length,
                                                         where.ability_used, where.horan_bonus))
                f, _ = best_of(alt, cs, strength)
                if f.win:
                    return counter
        strengths = [a for a in legal if isinstance(a, DrinkStrength)]
        if strengths:
            now_f, _ = best_of(outcomes, curses, False)
            if not now_f.win or now_f.knocked:
                for drink in strengths:
                    idx = len(battle.chain) - 1
                    last = tables().actions[battle.chain[idx]]
                    gain = last.effect(drink.effect)
                    if drink.effect in curses and (idx, drink.effect) not in battle.unlocked:
                        continue
                    ba = base_att + (gain if drink.effect == "attack" else 0)
                    bd = base_def + (gain if drink.effect == "defence" else 0)
                    scored = max((self._forecast(here, o, ba, bd, me.hp, False)
                                  for o in outcomes), key=lambda f: f.score)
                    if scored.score > now_f.score + 5:
                        return drink
        if best_o.cards:
            card, unlock = best_o.cards[0]
            play = Play(card, unlock)
            if play in legal:
                return play
        final = self._forecast(here, Outcome((), 0, 0, 0, 0, 0, 0, False), base_att, base_def,
                               me.hp, False)
        if final.knocked and DrinkHealing() in legal:
            return DrinkHealing()
        plays = [a for a in legal if isinstance(a, Play)]
        if plays and not final.win and final.damage == 0:
            return max(plays, key=lambda a: card_value(a.card))  # nothing to lose: dig deeper
        return EndBattle()

    def _payments(self, obs: Observation) -> list[tuple[float, str]]:
        me = obs.seats[obs.current]
        actions = tables().actions
        out = [(card_value(c) + 1.0, c) for c in obs.hand if actions[c].reward]
        out += [(equip_value(getattr(me, s)) * 2.0, s) for s in ("weapon", "armour")
                if getattr(me, s)]
        return sorted(out)

    def _shopping_list(self, obs: Observation) -> list[Action]:
        me = obs.seats[obs.current]
        pay = self._payments(obs)
        if not pay:
            return []
        cheapest = pay[0][0]
        wants: list[tuple[float, Action]] = []
        piles = dict(obs.potion_piles)
        # A game still going this late has stalled (every seat stuck before a monster it cannot
        # beat): potions, even paid with a good card, are then the way out.
        boost = STALL_POTION_BOOST if obs.round >= STALL_ROUND else 1.0
        for kind, worth in (("strength", 4.0), ("countercurse", 3.0), ("healing", 3.0)):
            worth *= boost
            if kind not in me.potions and piles.get(kind, 0) > 0 and worth > cheapest:
                wants.append((worth - cheapest, BuyPotion(kind)))  # type: ignore[arg-type]
        eq = tables().equipment
        for card in dict.fromkeys(obs.pawnshop):
            if card in eq:
                gain = equip_value(card) - equip_value(getattr(me, eq[card].kind))
                if gain * 2.0 > cheapest:
                    wants.append((gain * 2.0 - cheapest, BuyPawned(card)))
            elif card_value(card) > cheapest + 1.5:
                wants.append((card_value(card) - cheapest, BuyPawned(card)))
        wants.sort(key=lambda w: -w[0])
        return [w[1] for w in wants]

    def _merchant(self, obs: Observation, legal: list[Action]) -> Action:
        for want in self._shopping_list(obs):
            if want in legal:
                return want
        if DrinkHealing() in legal and obs.seats[obs.current].hp <= 2:
            return DrinkHealing()
        return LeaveMerchant()

    def _payment(self, obs: Observation, legal: list[Action]) -> Action:
        pays = [a for a in legal if isinstance(a, Pay)]
        ranked = {source: worth for worth, source in self._payments(obs)}
        pending = obs.pending or ""
        eq = tables().equipment
        if pending in eq:  # paying with the slot being replaced costs nothing extra
            slot = eq[pending].kind
            if Pay(slot) in pays:
                return Pay(slot)
        return min(pays, key=lambda a: ranked.get(a.source, 99.0))
