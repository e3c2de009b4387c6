"""Fast read-only views of the card catalogue used by the rules (built once per process), with
the names of its cards and heroes as translatable messages."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from cards import load_catalogue
from cards.models import ActionReward, EquipmentReward
from i18n import Msg


@dataclass(frozen=True, slots=True)
class ActionInfo:
    """An action card's colour, allowed next colours and effects."""

    id: str
    colour: str
    next: frozenset[str]
    attack: int
    defence: int
    draw: int
    heal: int
    reward: bool

    def effect(self, name: str) -> int:
        """The value of effect ``name`` (attack, defence, draw or heal)."""
        return int(getattr(self, name))


@dataclass(frozen=True, slots=True)
class EquipInfo:
    """A weapon or armour's effects."""

    id: str
    kind: str
    attack: int
    defence: int
    heal: int
    hand: int


@dataclass(frozen=True, slots=True)
class MonsterInfo:
    """A monster (or Lord, level 4) with what its back gives."""

    id: str
    level: int
    gatekeeper: bool
    attack: int
    hp: int
    curses: tuple[str, ...]
    reward: str  # "action", "weapon", "armour", "key" or "none" (Lords)


@dataclass(frozen=True, slots=True)
class Tables:
    """All lookup tables of the catalogue."""

    actions: dict[str, ActionInfo]
    equipment: dict[str, EquipInfo]
    monsters: dict[str, MonsterInfo]
    hero_cards: dict[str, tuple[str, ...]]
    regular: dict[int, tuple[str, ...]]
    gatekeepers: dict[int, tuple[str, ...]]
    lords: tuple[str, ...]
    potions_per_kind: int
    #: Each card's name as a seat holds it: a starting card's, or the reward on a monster's back.
    card_names: dict[str, Msg]
    #: Each monster's (and Lord's) name on its front.
    monster_names: dict[str, Msg]
    #: Each hero's name.
    hero_names: dict[str, Msg]


@cache  # the catalogue read once per process: reading the TOML files again would cost milliseconds
def tables() -> Tables:
    """The catalogue as engine lookup tables."""
    cat = load_catalogue()
    actions = {
        cid: ActionInfo(cid, c.colour, frozenset(c.next), c.attack, c.defence, c.draw, c.heal,
                        c.reward)
        for cid, c in cat.action_cards().items()
    }
    equipment = {
        eid: EquipInfo(eid, e.kind, e.attack, e.defence, e.heal, e.hand)
        for eid, e in cat.equipment().items()
    }
    monsters: dict[str, MonsterInfo] = {}
    for m in cat.monsters:
        kind = m.reward.kind
        assert isinstance(m.reward, ActionReward | EquipmentReward) or kind == "key"
        monsters[m.id] = MonsterInfo(m.id, m.level, m.gatekeeper, m.attack, m.hp, m.curses, kind)
    for lord in cat.lords:
        monsters[lord.id] = MonsterInfo(
            lord.id, 4, False, lord.attack, lord.hp, lord.curses, "none")
    backs = {m.id for m in monsters.values() if m.reward in ("action", "weapon", "armour")}
    return Tables(
        actions=actions,
        equipment=equipment,
        monsters=monsters,
        hero_cards={h.id: tuple(c.id for c in h.cards) for h in cat.heroes},
        regular={lv: tuple(m.id for m in cat.monsters if m.level == lv and not m.gatekeeper)
                 for lv in (1, 2, 3)},
        gatekeepers={lv: tuple(m.id for m in cat.monsters if m.level == lv and m.gatekeeper)
                     for lv in (1, 2, 3)},
        lords=tuple(lord.id for lord in cat.lords),
        potions_per_kind=cat.potions_per_kind,
        card_names={card: Msg(f"back.{card}" if card in backs else f"card.{card}")
                    for card in (*actions, *monsters)},
        monster_names={m: Msg(f"card.{m}") for m in monsters},
        hero_names={h.id: Msg(f"hero.{h.id}.name") for h in cat.heroes},
    )
