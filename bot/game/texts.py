"""What the bot shows, without Discord objects: move labels, control groups, text lines.

Controls are built ONLY from ``observe(state, seat).legal``: each legal action becomes one button
or one option of a menu, labelled through i18n.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from bot.game.facts import (
    can_pay,
    fight_monster,
    for_sale,
    joined,
    monster_facts,
    potion_facts,
)
from bot.game.markup import plain_param
from bot.game.seats import won_for_person
from bot.game.spans import HOUR, span
from bot.storage.records import TableRecord
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
    Undo,
    VisitMerchant,
)
from engine.actions import LORD_LEVEL
from engine.catalog import tables
from engine.names import card_name, hero_name, monster_name, word
from i18n import Msg, Param, msg

#: Kinds of moves offered as a menu (many similar choices); the others are buttons.
MENU_KINDS = ("fight", "play", "discard", "keep", "buy", "pay")
#: How a move stands out among the others: the one to look at (``main``), none (``plain``),
#: surely good (``good``) or surely bad (``risky``) for the player.
Emphasis = Literal["main", "plain", "good", "risky"]
#: A menu's name in a custom_id (:func:`menu_key`): its kind, its group, its part.
_MENU_KEY = re.compile(r"([a-z]+)(\d)(\d+)")
ROW_BUTTONS = 5
ROMAN = {1: "I", 2: "II", 3: "III"}
#: The HP a revive brings a seat back to (R7): reviving at it only passes the turn.
REVIVE_HP = 5
#: The group of each kind of move in the hand message, in the order the groups are shown: what
#: a player looks for first comes first, a standing preference last.
GROUP_OF = {
    "fight": "fight", "merchant": "turn", "revive": "turn",
    "play": "cards", "discard": "cards", "keep": "cards",
    "heal": "potions", "strength": "potions", "counter": "potions",
    "end": "end", "reward": "reward",
    "buy": "shop", "pay": "shop", "cancel": "shop", "leave": "shop",
    "stack": "setting", "undo": "undo",
}
#: Taking back a move comes last, grey, away from where a thumb lands by accident.
GROUPS = ("reward", "cards", "potions", "end", "fight", "turn", "shop", "setting", "undo")


@dataclass(frozen=True, slots=True)
class Choice:
    """One legal move as offered: its notation, label, optional description and emphasis
    (``good`` and ``risky`` only where the move is surely good or bad for the player)."""

    notation: str
    label: Msg
    description: Msg | None = None
    emphasis: Emphasis = "plain"


@dataclass(frozen=True, slots=True)
class Menu:
    """A select menu of several moves of one kind."""

    kind: str
    placeholder: Msg
    choices: tuple[Choice, ...]


@dataclass(frozen=True, slots=True)
class Group:
    """The moves of one group of the hand message (cards to play, potions, ...): a title, an
    optional line of explanation, its menus and its buttons."""

    key: str
    title: Msg
    menus: tuple[Menu, ...]
    buttons: tuple[Choice, ...]
    note: Msg | None = None


@dataclass(frozen=True, slots=True)
class Controls:
    """The controls of one decision, in groups."""

    groups: tuple[Group, ...]

    def menus(self) -> dict[str, set[str]]:
        """The moves of each menu, by the name of its first part's custom_id (:func:`menu_key`;
        the Discord side may split a long menu into parts)."""
        return {menu_key(m.kind, g, 0): {c.notation for c in m.choices}
                for g, group in enumerate(self.groups) for m in group.menus}

    def in_menu(self, key: str, notation: str) -> bool:
        """True when move ``notation`` is offered in the menu named ``key`` (any part of it:
        the check is the move's kind and group, whatever the menu's length)."""
        found = _MENU_KEY.fullmatch(key)
        if found is None or int(found[2]) >= len(self.groups):
            return False
        return any(notation == c.notation for m in self.groups[int(found[2])].menus
                   if m.kind == found[1] for c in m.choices)

    def notations(self) -> set[str]:
        """Every move offered."""
        return {c.notation for g in self.groups
                for c in (*g.buttons, *(c for m in g.menus for c in m.choices))}


def menu_key(kind: str, group: int, index: int) -> str:
    """The name of a hand message's menu in its custom_id: the ``index``-th menu of kind
    ``kind`` in group ``group``."""
    return f"{kind}{group}{index}"


def kind_of(action: Action) -> str:
    """The control group of an action (its verb; fights, plays... become menus)."""
    return action.verb


def _card_desc(card: str) -> Msg:
    info = tables().actions.get(card)
    if info is None:
        return msg("bot.move.no_stats")
    return msg("bot.move.card_stats", colour=word("colour", info.colour), attack=info.attack,
               defence=info.defence, draw=info.draw, heal=info.heal)


def describe(action: Action, obs: Observation) -> Choice:
    """The label (and description, emphasis) of one legal action for ``obs``'s viewer."""
    n = str(action)
    if isinstance(action, Fight):
        monster = fight_monster(action, obs) or ""
        facts = monster_facts(monster, obs) if monster else None
        if action.level == LORD_LEVEL:
            return Choice(n, msg("bot.move.fight_lord", monster=monster_name(monster)), facts,
                          "risky")
        if action.slot == 0:
            return Choice(n, msg("bot.move.fight_gate", level=ROMAN[action.level],
                                 monster=monster_name(monster)), facts)
        return Choice(n, msg("bot.move.fight", level=ROMAN[action.level], slot=action.slot,
                             monster=monster_name(monster)), facts)
    if isinstance(action, VisitMerchant):
        return Choice(n, msg("bot.move.merchant"),
                      emphasis="main" if can_pay(obs) and for_sale(obs) else "plain")
    if isinstance(action, Revive):
        me = obs.seats[obs.current]
        return Choice(n, msg("bot.move.rest" if me.hp >= REVIVE_HP else "bot.move.revive"))
    if isinstance(action, SetStacking):
        return Choice(n, msg(f"bot.deck.switch_{action.mode}"))
    if isinstance(action, DrinkHealing):
        return Choice(n, msg("bot.move.heal"), emphasis="good")
    if isinstance(action, Play):
        if action.ability:
            return Choice(n, msg("bot.move.play_ability", card=card_name(action.card),
                                 effect=word("effect", action.ability)), _card_desc(action.card))
        return Choice(n, msg("bot.move.play", card=card_name(action.card)),
                      _card_desc(action.card))
    if isinstance(action, DrinkStrength):
        return Choice(n, msg("bot.move.strength", effect=word("effect", action.effect)),
                      emphasis="main")
    if isinstance(action, DrinkCountercurse):
        return Choice(n, msg("bot.move.counter", curse=word("curse", action.curse)),
                      emphasis="main")
    if isinstance(action, EndBattle):
        totals = obs.battle.totals if obs.battle is not None else None
        emphasis: Emphasis = ("good" if totals is not None and totals.win
                              else "risky" if totals is not None and totals.knocked_out
                              else "plain")
        return Choice(n, msg("bot.move.end"), emphasis=emphasis)
    if isinstance(action, Discard):
        return Choice(n, msg("bot.move.discard", card=card_name(action.card)),
                      _card_desc(action.card))
    if isinstance(action, KeepDrawn):
        return Choice(n, msg("bot.move.keep", card=card_name(action.card)),
                      _card_desc(action.card))
    if isinstance(action, TakeReward):
        won: Param = card_name(obs.pending) if obs.pending else msg("bot.move.the_reward")
        return Choice(n, msg("bot.move.reward_keep" if action.keep else "bot.move.reward_pawn",
                             card=won), emphasis="main" if action.keep else "plain")
    if isinstance(action, BuyPotion):
        return Choice(n, msg("bot.move.buy_potion", potion=word("potion", action.kind)),
                      potion_facts(action.kind))
    if isinstance(action, BuyPawned):
        return Choice(n, msg("bot.move.buy_card", card=card_name(action.card)),
                      _card_desc(action.card))
    if isinstance(action, Pay):
        paid = action.source
        if paid in ("weapon", "armour"):  # the worn card, named as any card paid with
            paid = getattr(obs.seats[obs.current], paid) or paid
        what: Param = word("slot", paid) if paid in ("weapon", "armour") else card_name(paid)
        return Choice(n, msg("bot.move.pay", item=what))
    if isinstance(action, CancelPurchase):
        return Choice(n, msg("bot.move.cancel"))
    if isinstance(action, LeaveMerchant):
        return Choice(n, msg("bot.move.leave"))
    if isinstance(action, Undo):
        return Choice(n, msg("bot.move.undo"))
    return Choice(n, msg("bot.move.other", notation=n))  # pragma: no cover - every kind is listed


def controls(obs: Observation) -> Controls:
    """The viewer's legal moves (``obs.legal``) in groups (empty when they have nothing to
    decide). Moves of a menu kind go into one menu when there are two or more of them
    (however many: the Discord side splits a long one); everything else is a button."""
    kinds: dict[str, list[Action]] = {}
    for action in obs.legal:
        kinds.setdefault(kind_of(action), []).append(action)
    menus: dict[str, list[Menu]] = {}
    buttons: dict[str, list[Choice]] = {}
    for kind, actions in kinds.items():
        group = GROUP_OF.get(kind, "turn")
        choices = [describe(a, obs) for a in actions]
        if kind in MENU_KINDS and len(actions) > 1:
            menus.setdefault(group, []).append(
                Menu(kind, msg(f"bot.menu.{kind}"), tuple(choices)))
        else:
            buttons.setdefault(group, []).extend(choices)
    groups = [Group(g, msg(f"bot.group.{g}"), tuple(menus.get(g, ())),
                    tuple(buttons.get(g, ())), group_note(g, obs))
              for g in GROUPS if g in menus or g in buttons]
    return Controls(tuple(groups))


def group_note(group: str, obs: Observation) -> Msg | None:
    """A line under a group's title: what a reward is worth, why the merchant sells nothing
    (nothing to pay with, or nothing for sale), which preference is set now."""
    if group == "reward" and obs.pending:
        return card_stats(obs.pending)
    if group == "fight":  # a lone fight is a button, which has no line of its own
        fights = [a for a in obs.legal if isinstance(a, Fight)]
        monster = fight_monster(fights[0], obs) if len(fights) == 1 else None
        return monster_facts(monster, obs) if monster else None
    if group == "shop" and not any(kind_of(a) in ("buy", "pay") for a in obs.legal):
        # R40 nothing to pay with, or R41-R42 nothing left for sale to a seat that could pay
        return msg("bot.hand.nothing_to_pay" if not can_pay(obs) else "bot.hand.nothing_for_sale")
    if group == "shop" and any(isinstance(a, BuyPotion | BuyPawned) for a in obs.legal):
        return msg("bot.facts.price")
    if group == "setting":
        return msg(f"bot.deck.now_{obs.seats[obs.current].stacking}")
    return None


def card_stats(card: str) -> Msg:
    """What a card is worth, in a line: an equipment's slot and bonuses, or an action card's
    colour and values."""
    equipment = tables().equipment.get(card)
    if equipment is not None:
        return msg("bot.card.equipment", name=card_name(card), kind=word("slot", equipment.kind),
                   attack=equipment.attack, defence=equipment.defence, heal=equipment.heal,
                   hand=equipment.hand)
    return msg("bot.move.card_named", card=card_name(card), stats=_card_desc(card))


def seat_label(obs: Observation, seat: int) -> Param:
    """What to call a seat in text (a person's name as they typed it)."""
    return plain_param(obs.seats[seat].name)


def phase_line(obs: Observation) -> Msg:
    """Whose decision it is and what it is about (or who won)."""
    if obs.winner is not None:
        return msg("bot.table.winner", who=seat_label(obs, obs.winner))
    return msg(f"bot.prompt.waiting.{obs.phase.value}", who=seat_label(obs, obs.current))


#: The texts of a table that name its winner: who won, and the rules' narration of the last
#: battle, against the Lord of All Monsters (and its replay's bookmark).
WINNER_TEXTS = frozenset({"bot.table.winner", "event.champion", "replay.bookmark.champion"})


def winner_named(text: Msg, record: TableRecord) -> Msg:
    """``text``, a line of table ``record`` (its narration, who won, its replay's bookmarks),
    naming the winner as the
    end's post does: a person's seat the AI won for them marked as the AI's ("Bob [AI]"), not
    as though they had played it out; any other line as it is."""
    if text.key not in WINNER_TEXTS or not won_for_person(record):
        return text
    return Msg(text.key, tuple((key, msg("bot.table.ai_played", who=value) if key == "who"
                                else value) for key, value in text.params))


def seat_line(obs: Observation, seat: int, ai: bool | None = None) -> Msg:
    """One seat's public summary: name, hero, HP, keys, equipment, potions, hand size (``ai``:
    whether the AI plays the seat now, when the table knows better than the game's setup)."""
    s = obs.seats[seat]
    if ai is None:
        ai = s.ai
    keys: Param = (", ".join(ROMAN.get(k, str(k)) for k in s.keys)
                   or msg("bot.facts.no_keys"))
    kit: list[Param] = []
    if s.weapon:
        kit.append(card_name(s.weapon))
    if s.armour:
        kit.append(card_name(s.armour))
    kit.extend(word("potion", p) for p in s.potions)
    items: Param = joined(kit) if kit else msg("bot.facts.no_items")
    # an AI seat is called by its hero's name: the hero is not named twice
    key = "bot.table.seat" if s.name != hero_name(s.hero) else "bot.table.seat_hero"
    return msg(key, who=plain_param(s.name), hero=hero_name(s.hero), hp=s.hp, keys=keys,
               items=items, count=s.hand_count, ai=msg("bot.table.ai") if ai else "")


def on_off(value: bool) -> Msg:
    """A setting switched on or off, as a word."""
    return msg("bot.lobby.on" if value else "bot.lobby.off")


def timer_text(seconds: int) -> Msg:
    """A turn timer as words."""
    if seconds <= 0:
        return msg("bot.lobby.no_timer")
    if seconds % HOUR == 0:  # hours and days: "8 h", "3 days"
        return span(seconds)
    if seconds % 60 == 0:
        return msg("bot.lobby.minutes", n=seconds // 60)
    return msg("bot.lobby.seconds", n=seconds)
