"""The facts a player weighs at the moment of choice, worked out from their own observation
alone: what a fight's monster brings (attack, HP, curses) and whether the hand they hold could
beat it at all, which cards of the hand can pay the merchant, what a potion does.

"Cannot beat it" is said only when it is sure: the best attack the hand could reach (every card
of a colour not cursed, its attack unless cursed, a potion of strength on the strongest card,
the uncursed equipment, Horan's bonus, a countercurse potion lifting the curse that hurts most)
stays below the monster's HP. A hand that could draw more cards, or Xanros (who may unlock a
curse), is never marked.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine import Fight, Observation
from engine.actions import LORD_LEVEL
from engine.catalog import tables
from engine.names import card_name, monster_name, word
from engine.observe import SeatView
from i18n import Msg, Param, msg


def joined(parts: Sequence[Param]) -> Param:
    """``parts`` as one list in a sentence ("a, b and c"; "nothing" when empty)."""
    if not parts:
        return msg("list.0")
    out: Param = parts[0]
    for i, part in enumerate(parts[1:], start=2):
        out = msg("list.last" if i == len(parts) else "list.more", head=out, tail=part)
    return out


def fight_monster(action: Fight, obs: Observation) -> str | None:
    """The monster a fight action faces (None when the place is empty)."""
    if action.level == LORD_LEVEL:
        return obs.lord
    level = obs.levels[action.level - 1]
    if action.slot == 0:
        return level.gate_top
    return level.row[action.slot - 1]


def _me(obs: Observation) -> SeatView:
    """The viewer's seat (the seat to play for a spectator's view)."""
    return obs.seats[obs.viewer if obs.viewer is not None else obs.current]


def best_attack(obs: Observation, curses: tuple[str, ...]) -> int | None:
    """The most attack the viewer's hand could reach against ``curses`` (None: no sure bound,
    as when a card could draw more or Xanros could unlock a curse)."""
    t = tables()
    me = _me(obs)
    if obs.abilities and me.hero == "xanros":
        return None
    cards = [t.actions[c] for c in obs.hand if c in t.actions]
    cards = [c for c in cards if c.colour not in curses]
    if "draw" not in curses and any(c.draw for c in cards):
        return None
    attacks = [] if "attack" in curses else [c.attack for c in cards]
    total = sum(attacks)
    if "strength" in me.potions and attacks:
        total += max(attacks)
    for slot in ("weapon", "armour"):
        item = getattr(me, slot)
        if item and slot not in curses:
            total += t.equipment[item].attack
    if obs.abilities and me.hero == "horan":
        total += 1
    return total


def hand_cannot_win(obs: Observation, monster: str) -> bool:
    """True when the viewer's hand surely cannot beat ``monster``'s HP under its curses (a
    countercurse potion held lifts whichever one curse helps most)."""
    info = tables().monsters[monster]
    ways = [info.curses]
    if "countercurse" in _me(obs).potions:
        ways += [tuple(c for c in info.curses if c != lifted) for lifted in info.curses]
    bounds = [best_attack(obs, curses) for curses in ways]
    return all(b is not None and b < info.hp for b in bounds)


def monster_facts(monster: str, obs: Observation | None = None) -> Msg:
    """A monster's attack, HP and curses in a line, marked when ``obs``'s hand cannot beat it."""
    hopeless = obs is not None and obs.hand != () and hand_cannot_win(obs, monster)
    return monster_line(monster, hopeless)


def monster_line(monster: str, hopeless: bool) -> Msg:
    """A monster's attack, HP and curses in a line; ``hopeless`` adds that the hand cannot beat
    it (a sentence whose pronoun agrees with the monster's name)."""
    info = tables().monsters[monster]
    suffix = "_hopeless" if hopeless else ""
    if not info.curses:
        return msg(f"bot.facts.monster{suffix}", attack=info.attack, hp=info.hp,
                   monster=monster_name(monster))
    return msg(f"bot.facts.monster_cursed{suffix}", attack=info.attack, hp=info.hp,
               curses=joined([word("curse", c) for c in info.curses]),
               monster=monster_name(monster))


def reward_cards(obs: Observation) -> tuple[str, ...]:
    """The cards of the viewer's hand that can pay the merchant (reward cards, R32, R40)."""
    actions = tables().actions
    return tuple(c for c in obs.hand if c in actions and actions[c].reward)


def can_pay(obs: Observation) -> bool:
    """True when the viewer holds something the merchant accepts (R40)."""
    me = _me(obs)
    return bool(me.weapon or me.armour or reward_cards(obs))


def for_sale(obs: Observation) -> bool:
    """True when the merchant has something the viewer may buy (paying aside): a potion of a
    kind they do not hold whose pile is not empty (R41), or a card in the pawnshop (R42)."""
    held = _me(obs).potions
    return bool(obs.pawnshop) or any(left > 0 and kind not in held
                                     for kind, left in obs.potion_piles)


def payable_line(obs: Observation) -> Msg | None:
    """The hand's reward cards named in a line (None when it holds none)."""
    cards = reward_cards(obs)
    if not cards:
        return None
    return msg("bot.facts.reward_cards", count=len(cards),
               cards=joined([card_name(c) for c in cards]))


def potion_facts(potion: str) -> Msg:
    """What a potion does and what it costs, in a line."""
    return msg(f"bot.facts.potion_{potion}")


__all__ = ["best_attack", "can_pay", "fight_monster", "for_sale", "hand_cannot_win", "joined",
           "monster_facts", "monster_line", "payable_line", "potion_facts", "reward_cards"]
