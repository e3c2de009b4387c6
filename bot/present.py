"""What the bot shows, without Discord objects: move labels, control groups, text lines.

Controls are built ONLY from ``observe(state, seat).legal``: each legal action becomes one button
or one option of a menu, labelled through i18n.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import (
    Action,
    BuyPawned,
    BuyPotion,
    CancelPurchase,
    Discard,
    DrinkCountercurse,
    DrinkHealing,
    DrinkStrength,
    EndBattle,
    Fight,
    KeepDrawn,
    LeaveMerchant,
    Observation,
    Pay,
    Play,
    Revive,
    SetStacking,
    TakeReward,
    VisitMerchant,
)
from engine.actions import LORD_LEVEL
from engine.catalog import tables
from engine.names import card_name, hero_name, monster_name, word
from i18n import Msg, Param, msg

#: Kinds of moves offered as a menu (many similar choices); the others are buttons.
MENU_KINDS = ("fight", "play", "discard", "keep", "buy", "pay")
MENU_SIZE = 25
MAX_ROWS = 5
ROW_BUTTONS = 5
ROMAN = {1: "I", 2: "II", 3: "III"}


@dataclass(frozen=True, slots=True)
class Choice:
    """One legal move as offered: its notation, label, optional description and style."""

    notation: str
    label: Msg
    description: Msg | None = None
    style: str = "secondary"  # primary, secondary, success, danger


@dataclass(frozen=True, slots=True)
class Menu:
    """A select menu of several moves of one kind."""

    kind: str
    placeholder: Msg
    choices: tuple[Choice, ...]


@dataclass(frozen=True, slots=True)
class Controls:
    """The controls of one decision: menus (one row each) and rows of buttons."""

    menus: tuple[Menu, ...]
    buttons: tuple[tuple[Choice, ...], ...]

    def notations(self) -> set[str]:
        """Every move offered."""
        out = {c.notation for m in self.menus for c in m.choices}
        out.update(c.notation for row in self.buttons for c in row)
        return out


def kind_of(action: Action) -> str:
    """The control group of an action (its verb; fights, plays... become menus)."""
    return action.verb


def _monster_desc(monster: str) -> Msg:
    info = tables().monsters[monster]
    return msg("bot.move.monster_stats", attack=info.attack, hp=info.hp)


def _card_desc(card: str) -> Msg:
    info = tables().actions.get(card)
    if info is None:
        return msg("bot.move.no_stats")
    return msg("bot.move.card_stats", colour=word("colour", info.colour), attack=info.attack,
               defence=info.defence, draw=info.draw, heal=info.heal)


def describe(action: Action, obs: Observation) -> Choice:
    """The label (and description, style) of one legal action for ``obs``'s viewer."""
    n = str(action)
    if isinstance(action, Fight):
        if action.level == LORD_LEVEL:
            return Choice(n, msg("bot.move.fight_lord", monster=monster_name(obs.lord)),
                          _monster_desc(obs.lord), "danger")
        level = obs.levels[action.level - 1]
        if action.slot == 0:
            top = level.gate_top or ""
            return Choice(n, msg("bot.move.fight_gate", level=ROMAN[action.level],
                                 monster=monster_name(top)), _monster_desc(top) if top else None)
        card = level.row[action.slot - 1] or ""
        return Choice(n, msg("bot.move.fight", level=ROMAN[action.level], slot=action.slot,
                             monster=monster_name(card)), _monster_desc(card) if card else None)
    if isinstance(action, VisitMerchant):
        return Choice(n, msg("bot.move.merchant"), style="primary")
    if isinstance(action, Revive):
        return Choice(n, msg("bot.move.revive"), style="success")
    if isinstance(action, SetStacking):
        return Choice(n, msg("bot.move.stack", mode=word("stacking", action.mode)))
    if isinstance(action, DrinkHealing):
        return Choice(n, msg("bot.move.heal"), style="success")
    if isinstance(action, Play):
        if action.ability:
            return Choice(n, msg("bot.move.play_ability", card=card_name(action.card),
                                 effect=word("effect", action.ability)), _card_desc(action.card))
        return Choice(n, msg("bot.move.play", card=card_name(action.card)),
                      _card_desc(action.card))
    if isinstance(action, DrinkStrength):
        return Choice(n, msg("bot.move.strength", effect=word("effect", action.effect)),
                      style="primary")
    if isinstance(action, DrinkCountercurse):
        return Choice(n, msg("bot.move.counter", curse=word("curse", action.curse)),
                      style="primary")
    if isinstance(action, EndBattle):
        return Choice(n, msg("bot.move.end"), style="danger")
    if isinstance(action, Discard):
        return Choice(n, msg("bot.move.discard", card=card_name(action.card)),
                      _card_desc(action.card))
    if isinstance(action, KeepDrawn):
        return Choice(n, msg("bot.move.keep", card=card_name(action.card)),
                      _card_desc(action.card))
    if isinstance(action, TakeReward):
        won: Param = card_name(obs.pending) if obs.pending else msg("bot.move.the_reward")
        return Choice(n, msg("bot.move.reward_keep" if action.keep else "bot.move.reward_pawn",
                             card=won), style="success" if action.keep else "secondary")
    if isinstance(action, BuyPotion):
        return Choice(n, msg("bot.move.buy_potion", potion=word("potion", action.kind)))
    if isinstance(action, BuyPawned):
        return Choice(n, msg("bot.move.buy_card", card=card_name(action.card)),
                      _card_desc(action.card))
    if isinstance(action, Pay):
        what: Param = (word("slot", action.source) if action.source in ("weapon", "armour")
                       else card_name(action.source))
        return Choice(n, msg("bot.move.pay", item=what))
    if isinstance(action, CancelPurchase):
        return Choice(n, msg("bot.move.cancel"), style="danger")
    if isinstance(action, LeaveMerchant):
        return Choice(n, msg("bot.move.leave"), style="danger")
    return Choice(n, msg("bot.move.other", notation=n))  # pragma: no cover - every kind is listed


def controls(obs: Observation) -> Controls:
    """Menus and button rows for ``obs.legal`` (empty when the viewer has nothing to decide).

    Moves of a menu kind go into a menu when there are two or more of them; everything else is a
    button. At most five rows; a move that would not fit is left out (never seen in practice).
    """
    groups: dict[str, list[Action]] = {}
    for action in obs.legal:
        groups.setdefault(kind_of(action), []).append(action)
    menus: list[Menu] = []
    loose: list[Choice] = []
    for kind, actions in groups.items():
        if kind in MENU_KINDS and len(actions) > 1:
            choices = [describe(a, obs) for a in actions]
            for start in range(0, len(choices), MENU_SIZE):
                menus.append(Menu(kind, msg(f"bot.menu.{kind}"),
                                  tuple(choices[start:start + MENU_SIZE])))
        else:
            loose.extend(describe(a, obs) for a in actions)
    rows = [tuple(loose[i:i + ROW_BUTTONS]) for i in range(0, len(loose), ROW_BUTTONS)]
    menus = menus[:MAX_ROWS - min(len(rows), 1)]
    rows = rows[:MAX_ROWS - len(menus)]
    return Controls(tuple(menus), tuple(rows))


def seat_label(obs: Observation, seat: int) -> Param:
    """What to call a seat in text."""
    return obs.seats[seat].name


def hero_label(hero: str) -> Msg:
    """A hero's name."""
    return hero_name(hero)


def phase_line(obs: Observation) -> Msg:
    """Whose decision it is and what it is about (or who won)."""
    if obs.winner is not None:
        return msg("bot.table.winner", who=seat_label(obs, obs.winner))
    return msg("bot.table.waiting", who=seat_label(obs, obs.current),
               phase=msg(f"phase.{obs.phase.value}"))


def seat_line(obs: Observation, seat: int, ai: bool | None = None) -> Msg:
    """One seat's public summary: name, hero, HP, keys, equipment, potions, hand size (``ai``:
    whether the AI plays the seat now, when the table knows better than the game's setup)."""
    s = obs.seats[seat]
    if ai is None:
        ai = s.ai
    keys = ", ".join(ROMAN.get(k, str(k)) for k in s.keys) or "-"
    kit: list[Param] = []
    if s.weapon:
        kit.append(card_name(s.weapon))
    if s.armour:
        kit.append(card_name(s.armour))
    kit.extend(word("potion", p) for p in s.potions)
    items: Param = msg("list.0")
    for i, part in enumerate(kit):
        items = part if i == 0 else msg("list.more", head=items, tail=part)
    return msg("bot.table.seat", who=s.name, hero=hero_name(s.hero), hp=s.hp, keys=keys,
               items=items, hand=s.hand_count, ai=msg("bot.table.ai") if ai else "")
