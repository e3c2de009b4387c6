"""Helpers of the rules scenario tests: pick catalogue cards by property, apply, expect refusals,
and build the battles several scenario files share (two attack cards in a row, Aderyn on her
last HP).

Card values are re-tuned in cards/data/*.toml, so tests never name a card by number: they ask for
"a green reward card whose next colours exclude red" and read every value from the catalogue.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import pytest

from engine import Action, GameState, IllegalAction, apply, legal_actions, parse
from engine.catalog import ActionInfo, EquipInfo, MonsterInfo, tables
from engine.validate import check_state

T = tables()
COLOURS = ("green", "blue", "red", "yellow")
HEROES = ("argentus", "horan", "xanros", "aderyn", "victorius", "taia")


def reward_cards() -> list[ActionInfo]:
    """Every reward action card (a monster's back), catalogue order."""
    return [a for a in T.actions.values() if a.reward]


def cards(pred: Callable[[ActionInfo], bool], *, hero: str | None = None,
          exclude: Iterable[str] = ()) -> list[str]:
    """Action cards matching ``pred``: the hero's starting cards (if given), then reward cards."""
    pool = [T.actions[c] for c in T.hero_cards[hero]] if hero else []
    pool += reward_cards()
    skip = set(exclude)
    return [a.id for a in pool if a.id not in skip and pred(a)]


def card(pred: Callable[[ActionInfo], bool], what: str, *, hero: str | None = None,
         exclude: Iterable[str] = ()) -> str:
    """The first action card matching ``pred`` (``what`` describes it if none exists)."""
    found = cards(pred, hero=hero, exclude=exclude)
    if not found:
        pytest.fail(f"the catalogue has no action card that is {what}")
    return found[0]


def monsters(pred: Callable[[MonsterInfo], bool], *, level: int | None = None,
             exclude: Iterable[str] = ()) -> list[str]:
    """Monsters (regular, gatekeeper or Lord) matching ``pred``, catalogue order."""
    skip = set(exclude)
    return [m.id for m in T.monsters.values()
            if (level is None or m.level == level) and m.id not in skip and pred(m)]


def monster(pred: Callable[[MonsterInfo], bool], what: str, *, level: int | None = None,
            exclude: Iterable[str] = ()) -> str:
    """The first monster matching ``pred``."""
    found = monsters(pred, level=level, exclude=exclude)
    if not found:
        pytest.fail(f"the catalogue has no monster that is {what}")
    return found[0]


def regular(level: int, pred: Callable[[MonsterInfo], bool] = lambda m: True,
            what: str = "regular", exclude: Iterable[str] = ()) -> str:
    """A regular (row) monster of ``level`` matching ``pred``."""
    return monster(lambda m: not m.gatekeeper and pred(m), what, level=level, exclude=exclude)


def plain(level: int = 1, pred: Callable[[MonsterInfo], bool] = lambda m: True,
          exclude: Iterable[str] = ()) -> str:
    """A regular monster without curses (and matching ``pred``)."""
    return regular(level, lambda m: not m.curses and pred(m), "without curses", exclude)


def cursed(curse: str, pred: Callable[[MonsterInfo], bool] = lambda m: True,
           exclude: Iterable[str] = ()) -> str:
    """A regular monster (any level) whose only curse is ``curse``, else any monster with it."""
    only = monsters(lambda m: m.curses == (curse,) and m.level < 4 and not m.gatekeeper
                    and pred(m), exclude=exclude)
    if only:
        return only[0]
    return monster(lambda m: curse in m.curses and pred(m), f"cursing {curse}", exclude=exclude)


def gear(kind: str, pred: Callable[[EquipInfo], bool], what: str,
         exclude: Iterable[str] = ()) -> str:
    """A weapon or armour matching ``pred``."""
    skip = set(exclude)
    for e in T.equipment.values():
        if e.kind == kind and e.id not in skip and pred(e):
            return e.id
    pytest.fail(f"the catalogue has no {kind} that is {what}")


def info(cid: str) -> ActionInfo:
    """An action card's catalogue entry."""
    return T.actions[cid]


def mon(mid: str) -> MonsterInfo:
    """A monster's catalogue entry."""
    return T.monsters[mid]


def run(state: GameState, *actions: Action | str) -> GameState:
    """Apply the actions in turn (objects or notation) and check the state stays consistent."""
    for a in actions:
        action = parse(a) if isinstance(a, str) else a
        state, _ = apply(state, action)
    check_state(state)
    return state


def legal(state: GameState) -> set[str]:
    """The notations of the current seat's legal actions."""
    return {str(a) for a in legal_actions(state)}


def refused(state: GameState, action: Action | str, code: str, *words: str,
            seat: int | None = None) -> IllegalAction:
    """Assert ``action`` is refused with reason ``code``; the sentence names each of ``words``."""
    act = parse(action) if isinstance(action, str) else action
    if seat is None:
        assert str(act) not in legal(state), f"{act} is listed as legal"
    with pytest.raises(IllegalAction) as caught:
        apply(state, act, seat=seat)
    err = caught.value
    assert err.code == code, f"{act}: code {err.code!r} ({err}), expected {code!r}"
    text = str(err)
    assert text and "{" not in text, text
    for w in words:
        assert w.lower() in text.lower(), f"{w!r} not in reason {text!r}"
    return err


def other_hero(hero: str) -> str:
    """A second hero for the table, not ``hero``."""
    return "taia" if hero != "taia" else "horan"


def battle(target: str, *hand: str, hero: str = "horan", abilities: bool = False,
           **seat: object) -> GameState:
    """A two-seat position where ``hero`` (seat 0) holds ``hand`` and fights ``target``.

    Extra keyword arguments go to the seat (deck, discard, hp, weapon, armour, potions, keys...).
    Level II/III targets give the seat the keys it needs unless ``keys`` is given.
    """
    from engine.position import SeatSetup, position

    level = T.monsters[target].level
    seat.setdefault("keys", list(range(1, min(level, 4))))
    spec = SeatSetup(hero, hand=list(hand), **seat)  # type: ignore[arg-type]
    return position(spec, other_hero(hero), abilities=abilities, fight=target,
                    lord=target if level == 4 else None)


def name(text_id: str, *, monster: bool = False) -> str:
    """The English name of a card (its back for a reward card unless ``monster``)."""
    from engine.names import card_name, monster_name
    from i18n import translate

    return translate(monster_name(text_id) if monster else card_name(text_id))


def chain(target: str, *, attack: int = 0, defence: int = 0, hero: str | None = None,
          exclude: Iterable[str] = (), max_len: int = 6) -> list[str]:
    """A legal chain of cards against ``target`` reaching the totals; fails the test if none."""
    found = maybe_chain(target, attack=attack, defence=defence, hero=hero, exclude=exclude,
                        max_len=max_len)
    if found is None:
        pytest.fail(f"no chain of cards reaches attack {attack} and defence {defence} "
                    f"against {target}")
    return found


def maybe_chain(target: str, *, attack: int = 0, defence: int = 0, hero: str | None = None,
                exclude: Iterable[str] = (), max_len: int = 6) -> list[str] | None:
    """A legal chain of cards (play order) against ``target`` reaching the given card totals.

    Cursed colours are avoided and cursed effects do not count, as the rules say; the search is a
    small depth-first walk over the hero's starting cards and the reward cards.
    """
    curses = T.monsters[target].curses
    pool = [T.actions[c] for c in
            cards(lambda a: a.colour not in curses, hero=hero, exclude=(target, *exclude))]
    count_att = "attack" not in curses
    count_def = "defence" not in curses
    budget = [30000]

    def walk(done: list[ActionInfo], att: int, dfn: int) -> list[str] | None:
        if att >= attack and dfn >= defence:
            return [a.id for a in done]
        if len(done) >= max_len or budget[0] <= 0:
            return None
        budget[0] -= 1
        need_att = attack - att > 0
        options = [a for a in pool if a not in done
                   and (not done or a.colour in done[-1].next)]
        options.sort(key=lambda a: -(a.attack if need_att else a.defence) * 10
                     - (a.defence if need_att else a.attack) - len(a.next))
        for a in options:
            found = walk(done + [a], att + a.attack * count_att, dfn + a.defence * count_def)
            if found is not None:
                return found
        return None

    return walk([], 0, 0)


def attack_pair(target: str) -> tuple[str, str]:
    """Two attack cards (not ``target``), the second following the first's colours."""
    for a in cards(lambda x: x.attack > 0, exclude=(target,)):
        follow = cards(lambda x, a=a: x.attack > 0 and x.colour in info(a).next,
                       exclude=(target, a))
        if follow:
            return a, follow[0]
    raise AssertionError("no two attack cards in a row")


def aderyn_case(abilities: bool, *, lord: bool = False, healing_armour: bool = False,
                equipment: bool = False, potions: Iterable[str] = (),
                ) -> tuple[str, GameState]:
    """Aderyn in a battle she wins on attack while the hits take exactly her last HP
    (``equipment``: against a monster whose reward is a weapon or an armour; ``potions``: the
    potions she holds)."""
    weapon = max((e for e in T.equipment.values() if e.kind == "weapon"), key=lambda e: e.attack)
    armours: list[str | None] = [e.id for e in T.equipment.values() if e.kind == "armour"
                                 and (e.heal > 0 or not healing_armour)]
    if not healing_armour:
        armours.insert(0, None)
    targets = list(T.lords) if lord else [m for lv in (1, 2, 3) for m in T.regular[lv]
                                          if not mon(m).curses
                                          and (not equipment or m in T.equipment)]
    for target in targets:
        m = mon(target)
        w_att = 0 if (not lord or "weapon" in m.curses) else weapon.attack
        for armour in armours:
            if armour == target:
                continue
            play = maybe_chain(target, attack=m.hp - w_att, hero="aderyn",
                               exclude=[armour or "", weapon.id], max_len=5)
            if play is None:
                continue
            defence = sum(info(c).defence for c in play) * ("defence" not in m.curses)
            a_def = T.equipment[armour].defence if armour else 0
            hp = m.attack - defence - a_def
            if 1 <= hp <= 5:
                seat: dict[str, object] = {"armour": armour, "potions": list(potions)}
                if lord:
                    seat["weapon"] = weapon.id
                state = battle(target, *play, hero="aderyn", abilities=abilities, hp=hp, **seat)
                return target, run(state, *(f"play:{c}" for c in play))
    raise AssertionError("no battle where the hits take exactly Aderyn's last HP")
