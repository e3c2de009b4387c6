"""The guided first match (``/goblin learn``): which rule the learner's hand message explains,
and which of its moves it highlights.

A lesson is met at the learner's first decision where its situation arises, read from what the seat
sees (its observation) and nothing else, and it speaks of that decision: the first choice of a
monster to fight (R10); a cursed monster, each of its curses explained (R21 to R23), and again at
the first monster whose curse is of a kind not explained yet (a colour, an effect, equipment),
that kind explained; a battle the
monster would make you lose HP in, with a card that adds defence in hand (R24); a card that must
follow the colours of the card before it, in a battle not yet won (R15); a battle already won if you
end it now, with the hits you will take and the reward you will gain (R19, R24 to R27: the reward
lesson comes before the reward is taken, even when there is nothing to decide about it); a first
weapon or armour won, to keep or send to the pawnshop (R27, R30); a key held (R11) and a visit to
the merchant with something to pay (R40); the key lesson waits for a turn with a deeper fight that
does not knock the hero out. One lesson at a time, in that order of preference; a lesson that is not
shown at its first chance waits for the next one. A lesson stays shown while the learner switches
their deck stacking or drinks a potion, moves that leave the decision in front of them
(:data:`SAME_DECISION`). What the learner was taught, and when (:data:`Taught`), is brought up to
date one move at a time from the move's two states (:func:`taught_after`), with nothing replayed;
:func:`lessons_met` folds it over a whole match's moves. A take-back forgets what was taught
after the decision it returns to, whose lesson is then shown again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

import msgspec

from bot.game.guard import question
from bot.game.texts import Choice, Controls
from engine import Action, GameConfig, GameState, Phase, apply, new_game, observe, parse
from engine.actions import (
    BuyPawned,
    BuyPotion,
    Discard,
    DrinkCountercurse,
    DrinkHealing,
    DrinkStrength,
    EndBattle,
    Fight,
    Play,
    SetStacking,
    TakeReward,
    Undo,
    VisitMerchant,
)
from engine.agents import AiLevel
from engine.battle import Totals
from engine.catalog import tables
from engine.names import ROMAN, card_name, monster_name, word
from engine.observe import Observation
from engine.state import MAX_HP
from i18n import Msg, msg

#: The lessons, in the order a moment that fits several of them picks one.
LESSONS = ("fight", "curse", "defence", "chain", "win", "equipment", "key", "merchant")
#: The rule each lesson explains (docs/rules.md); a curse's rule depends on its kind.
RULES = {"fight": "R10", "defence": "R24", "chain": "R15", "win": "R19, R24-R27",
         "equipment": "R27, R30", "key": "R11", "merchant": "R40"}
CURSE_RULES = {"colour": "R21", "effect": "R22", "equipment": "R23"}
COLOURS = frozenset({"green", "blue", "red", "yellow"})
EQUIPMENT = frozenset({"weapon", "armour"})
#: The learner's moves read back from the log at most (the lessons come in the first turns).
MAX_STEPS = 600
#: The seed of every ``/goblin learn`` match, found by ``scripts/find_lesson_seed.py``: with the
#: learner following each lesson's advice (the easy agent otherwise), every lesson comes within
#: the learner's first turns.
LESSON_SEED = 669
#: The AI seats of a ``/goblin learn`` match, and their level.
LESSON_AI_SEATS = 2
LESSON_LEVEL: AiLevel = "easy"
#: A lesson's moves from a menu shown as buttons at most (a level's row and its gatekeeper).
LIFTED = 6
#: The moves that leave the learner at the decision they were at: a standing setting (D5) and a
#: potion drunk (R33-R35), which changes the HP or the battle but asks nothing new. The lesson of
#: that decision stays shown across them while its situation still holds.
SAME_DECISION = (SetStacking, DrinkHealing, DrinkStrength, DrinkCountercurse)


@dataclass(frozen=True, slots=True)
class Lesson:
    """One lesson as the hand message shows it: its name, rule id, text and the moves it
    highlights (notations)."""

    name: str
    rule: str
    text: Msg
    highlight: frozenset[str]


def _curse_kind(curse: str) -> str:
    if curse in COLOURS:
        return "colour"
    return "equipment" if curse in EQUIPMENT else "effect"


def _can_pay(obs: Observation, seat: int) -> bool:
    """True when the seat holds something the merchant takes (R40): equipment or a reward
    card in its hand."""
    view = obs.seats[seat]
    cards = tables().actions
    return (view.weapon is not None or view.armour is not None
            or any(cards[c].reward for c in obs.hand if c in cards))


def _defence_plays(obs: Observation) -> frozenset[str]:
    """The legal plays of a card whose defence counts in the battle in progress."""
    battle = obs.battle
    if battle is None or "defence" in battle.active_curses:
        return frozenset()
    cards = tables().actions
    return frozenset(str(a) for a in obs.legal
                     if isinstance(a, Play) and a.card in cards and cards[a.card].defence > 0)


def _saving_plays(obs: Observation) -> frozenset[str]:
    """The legal plays of a card that leaves the seat more HP at the battle's end than ending it
    now does: its defence lowers the hits, or its heal, taken at once, keeps HP the hits would
    take (R16, R18, R22, R24-R25; a cursed effect counts only when Xanros unlocks it)."""
    battle = obs.battle
    if battle is None:
        return frozenset()
    totals, curses = battle.totals, battle.active_curses
    hp = obs.seats[battle.seat].hp
    cards = tables().actions
    out = set()
    for a in obs.legal:
        if not isinstance(a, Play) or a.card not in cards:
            continue
        info = cards[a.card]
        defence = info.defence if "defence" not in curses or a.ability == "defence" else 0
        heal = info.heal if "heal" not in curses or a.ability == "heal" else 0
        before = min(hp + heal, MAX_HP)
        hits = max(0, totals.monster_attack - totals.defence - defence)
        if hits < before and min(before - hits + totals.heal_after, MAX_HP) > totals.hp_after:
            out.add(str(a))
    return frozenset(out)


def _hurts(obs: Observation) -> bool:
    """True when ending the battle now would cost the seat HP."""
    return obs.battle is not None and obs.battle.totals.damage > 0


def _wins(obs: Observation) -> bool:
    """True when ending the battle now wins it (the seat keeps an HP, the attack is enough)."""
    battle = obs.battle
    return (battle is not None and battle.totals.win and not battle.totals.knocked_out
            and EndBattle() in obs.legal)


def _deeper_fights(obs: Observation) -> frozenset[str]:
    """The legal fights deeper than level I that the hand does not ask about first: none that
    the 1-HP warning says would knock the hero out (R11, R24)."""
    return frozenset(str(a) for a in obs.legal
                     if isinstance(a, Fight) and a.level > 1 and question(obs, a) is None)


def _first_equipment(obs: Observation) -> bool:
    """True when the seat decides about a weapon or armour it won, having none of that kind."""
    item = tables().equipment.get(obs.pending or "") if obs.phase is Phase.REWARD else None
    return item is not None and getattr(obs.seats[obs.current], item.kind) is None


def situations(obs: Observation) -> list[str]:
    """The lessons whose situation the seat is in now (none unless it is the seat's
    decision), in :data:`LESSONS` order."""
    seat = obs.viewer
    if seat is None or not obs.legal or obs.current != seat:
        return []
    battle = obs.battle
    in_battle = obs.phase is Phase.BATTLE and battle is not None
    found = {
        "fight": obs.phase is Phase.TURN and any(isinstance(a, Fight) for a in obs.legal),
        "defence": (in_battle and _hurts(obs) and not _wins(obs)
                    and bool(_defence_plays(obs))),
        "chain": (in_battle and battle is not None and bool(battle.chain) and not _wins(obs)
                  and any(isinstance(a, Play) for a in obs.legal)),
        "curse": (obs.phase in (Phase.BATTLE, Phase.DISCARD) and battle is not None
                  and bool(battle.active_curses)),
        "win": in_battle and _wins(obs),
        "equipment": _first_equipment(obs),
        "key": (bool(obs.seats[seat].keys) and obs.phase is Phase.TURN
                and bool(_deeper_fights(obs))),
        "merchant": ((obs.phase is Phase.MERCHANT
                      or obs.phase is Phase.TURN and VisitMerchant() in obs.legal)
                     and _can_pay(obs, seat)),
    }
    return [name for name in LESSONS if found[name]]


def _highlight(name: str, obs: Observation) -> frozenset[str]:
    """The moves a lesson points at (their buttons emphasised as the main ones)."""
    def kinds(*types: type[Action]) -> frozenset[str]:
        return frozenset(str(a) for a in obs.legal if isinstance(a, types))

    if name == "fight":
        return kinds(Fight)
    if name == "defence":
        return _defence_plays(obs)
    if name == "win":
        return _saving_plays(obs) or kinds(EndBattle)
    if name == "equipment":
        return frozenset(str(a) for a in obs.legal if isinstance(a, TakeReward) and a.keep)
    if name == "chain":
        return kinds(Play)
    if name == "curse":
        return kinds(Play, Discard)
    if name == "key":
        return _deeper_fights(obs)
    return kinds(VisitMerchant, BuyPotion, BuyPawned)


def lesson(name: str, obs: Observation, teaching: frozenset[str] | None = None) -> Lesson:
    """Lesson ``name`` as shown to ``obs``'s viewer now; ``teaching``: what of it is taught
    (:func:`topics`; None: all of it), for the curse lesson the kinds of curse it explains."""
    highlight = _highlight(name, obs)
    if name == "curse":
        assert obs.battle is not None
        active = obs.battle.active_curses
        curses = tuple(c for c in active
                       if teaching is None or f"curse:{_curse_kind(c)}" in teaching)
        rule = ", ".join(sorted({CURSE_RULES[_curse_kind(c)] for c in curses},
                                key=lambda r: int(r[1:])))
        known = tuple(c for c in active if c not in curses)
        return Lesson(name, rule, _curse_text(curses, known), highlight)
    rule = RULES[name]
    if name in ("defence", "win"):
        return Lesson(name, rule, _battle_text(name, obs, highlight), highlight)
    if name == "equipment":
        return Lesson(name, rule, _equipment_text(obs), highlight)
    inside = name == "merchant" and obs.phase is Phase.MERCHANT  # the visit already chosen
    key = "merchant_inside" if inside else name
    return Lesson(name, rule, msg(f"learn.lesson.{key}", rule=rule), highlight)


def _curse_text(curses: Sequence[str], known: Sequence[str] = ()) -> Msg:
    """The lesson of a monster's curses that count in the battle (R21-R23; a countercurse lifts
    one): each kind said once, its curses named, the colours cursed together; a monster with
    curses of two kinds has both explained, or, when the learner was taught one of them in an
    earlier battle (``known``), the new one explained and the other named as one they know."""
    kinds: dict[str, list[str]] = {}
    for curse in curses:
        kinds.setdefault(_curse_kind(curse), []).append(curse)
    said = []
    for kind, same in kinds.items():
        named: Msg = word("curse", same[0])
        for other in same[1:]:  # two colours: "green cards and blue cards"
            named = msg("learn.curse.and", first=named, second=word("curse", other))
        said.append((kind, named))
    if len(said) == 1 and known:  # a monster has two curses at most
        (kind, named), other = said[0], known[0]
        return msg("learn.lesson.curse_two", first=msg(f"learn.curse.{kind}", curse=named),
                   second=msg(f"learn.curse.known_{_curse_kind(other)}",
                              curse=word("curse", other)))
    if len(said) == 1:
        kind, named = said[0]
        return msg(f"learn.lesson.curse_{kind}", curse=named)
    (kind, named), (kind2, named2) = said  # a monster has two curses at most
    return msg("learn.lesson.curse_two", first=msg(f"learn.curse.{kind}", curse=named),
               second=msg(f"learn.curse.{kind2}", curse=named2))


def _battle_text(name: str, obs: Observation, highlight: frozenset[str]) -> Msg:
    """The defence lesson, or the lesson of a battle won if it ends now: the hits the monster
    deals at the end, worked out, and (won) the reward on its back."""
    battle = obs.battle
    assert battle is not None
    totals = battle.totals
    monster = monster_name(battle.monster)
    hits = _hits_text(totals, obs.seats[battle.seat].hp)
    if name == "defence":
        return msg("learn.battle.defence", monster=monster, hits=hits)
    plays = highlight - {str(EndBattle())}
    key = ("learn.battle.win" if not plays
           else "learn.battle.win_heal" if totals.damage <= 0  # no hits: the cards heal
           else "learn.battle.win_guard" if plays <= _defence_plays(obs)
           else "learn.battle.win_save")  # some card heals before the hits instead
    return msg(key, monster=monster, attack=totals.attack, hp=totals.monster_hp, hits=hits,
               reward=_reward_text(battle.monster))


def _hits_text(totals: Totals, hp: int) -> Msg:
    """What ending the battle now does to the seat's ``hp``, as the engine does it: the hits
    (R24), that knock it out when they take its last HP, else healed by equipment (R25)."""
    if totals.damage <= 0:
        key = "learn.battle.no_hits"
    elif totals.knocked_out:
        key = "learn.battle.hits_knocked_out"
    else:
        key = "learn.battle.hits_healed" if totals.heal_after > 0 else "learn.battle.hits"
        hp = totals.hp_after
    return msg(key, attack=totals.monster_attack, defence=totals.defence,
               count=totals.damage, hp=hp)


def _reward_text(monster: str) -> Msg:
    """What beating ``monster`` gains: the reward printed on its back."""
    info = tables().monsters[monster]
    if info.reward == "key":
        return msg("learn.reward.key", level=ROMAN[info.level])
    if info.reward in EQUIPMENT:
        return msg(f"learn.reward.{info.reward}", item=card_name(monster))
    if info.reward == "action":
        return msg("learn.reward.action", card=card_name(monster))
    return msg("learn.reward.lord")


def _equipment_text(obs: Observation) -> Msg:
    """The lesson of a first weapon or armour won: what it gives in every battle."""
    assert obs.pending is not None
    item = tables().equipment[obs.pending]
    main = item.defence if item.kind == "armour" else item.attack
    return msg(f"learn.equipment.{item.kind}" if main else "learn.equipment.other",
               item=card_name(obs.pending), attack=item.attack, defence=item.defence)


def advised(obs: Observation, shown: Lesson) -> Observation:
    """``obs`` as a learner who follows ``shown``'s advice sees it: only the moves the lesson
    highlights are left to choose from (all of them when it highlights none)."""
    kept = tuple(a for a in obs.legal if str(a) in shown.highlight)
    return msgspec.structs.replace(obs, legal=kept) if kept else obs


def emphasised(ctrls: Controls, shown: Lesson) -> Controls:
    """The hand's controls with the lesson's moves drawn as buttons emphasised as the main
    ones, and no other move so. A lesson's move offered in a menu gets a button of its own
    too (up to :data:`LIFTED` of them), the menu staying as it was."""
    def restyle(c: Choice) -> Choice:
        if c.notation in shown.highlight:
            return replace(c, emphasis="main")
        return replace(c, emphasis="plain") if c.emphasis == "main" else c

    groups = []
    for g in ctrls.groups:
        lifted = [replace(c, emphasis="main") for m in g.menus for c in m.choices
                  if c.notation in shown.highlight][:LIFTED]
        groups.append(replace(g, buttons=(*lifted, *(restyle(c) for c in g.buttons))))
    return Controls(tuple(groups))


#: What the learner was taught, and when: each topic (:func:`topics`) with the step it was shown
#: at last.
Taught = Mapping[str, int]


def topics(name: str, obs: Observation) -> frozenset[str]:
    """What lesson ``name`` teaches at ``obs``: its name, or for the curse lesson each kind of
    curse that counts in the battle (``curse:colour``, ``curse:effect``, ``curse:equipment``:
    R21 to R23), each taught the first time the learner meets it."""
    if name != "curse":
        return frozenset((name,))
    assert obs.battle is not None
    return frozenset(f"curse:{_curse_kind(c)}" for c in obs.battle.active_curses)


def shown_at(state: GameState, taught: Taught, seat: int) -> tuple[str, frozenset[str]] | None:
    """The lesson the learner at ``seat`` is shown at ``state`` and what of it is taught there,
    given what was ``taught`` before (:data:`Taught`): the lesson kept at this decision (taught
    at this very step, across a move of :data:`SAME_DECISION`), else the first lesson in
    :data:`LESSONS` order with something not taught yet; None past :data:`MAX_STEPS`."""
    if state.step > MAX_STEPS or state.current != seat or state.phase is Phase.OVER:
        return None
    obs = observe(state, seat)
    names = situations(obs)
    found = [(name, topics(name, obs)) for name in names]
    for name, what in found:
        here = frozenset(t for t in what if taught.get(t) == state.step)
        if here:
            return name, here
    for name, what in found:
        fresh = frozenset(t for t in what if t not in taught)
        if fresh:
            return name, fresh
    return None


def taught_after(taught: Taught, before: GameState, action: Action, after: GameState,
                 seat: int) -> dict[str, int]:
    """What the learner at ``seat`` was taught once ``action`` led from ``before`` to ``after``:
    the lesson shown at ``before`` is taught (and stays shown at ``after`` when ``action`` left
    the decision in front of the learner, :data:`SAME_DECISION`, and the lesson still fits); a
    take-back forgets what was taught after the step it returns to, so that decision shows its
    lesson again. Worked out from the two states alone, one move at a time: nothing is
    replayed."""
    if isinstance(action, Undo):
        return {t: step for t, step in taught.items() if step <= after.step}
    now = shown_at(before, taught, seat)
    if now is None:
        return dict(taught)
    name, shown = now
    out = {**taught, **dict.fromkeys(shown, before.step)}
    if isinstance(action, SAME_DECISION) and after.current == seat and after.step <= MAX_STEPS:
        obs = observe(after, seat)
        if name in situations(obs):  # the same decision, its lesson kept
            out.update(dict.fromkeys(shown & topics(name, obs), after.step))
    return out


def lessons_met(config: GameConfig, moves: Iterable[Action | str], seat: int,
                upto: int | None = None) -> dict[str, int]:
    """What the learner at ``seat`` was taught in the game of ``config`` played with ``moves``
    (:data:`Taught`, as :func:`taught_after` keeps it move after move), the lesson of the
    decision reached last included; ``upto``: the last step to read."""
    taught: dict[str, int] = {}
    state: GameState = new_game(config)
    last = MAX_STEPS if upto is None else min(upto, MAX_STEPS)
    for move in moves:
        if state.step >= last:
            break
        action = parse(move) if isinstance(move, str) else move
        after, _ = apply(state, action, seat=state.current)
        taught = taught_after(taught, state, action, after, seat)
        state = after
    now = shown_at(state, taught, seat)
    return taught if now is None else {**taught, **dict.fromkeys(now[1], state.step)}


def lesson_now(state: GameState, taught: Taught, seat: int) -> Lesson | None:
    """The lesson the learner's hand shows at ``state``, given what was ``taught`` before it
    (:func:`taught_after`), if any: for a cursed monster, the kinds of curse not taught yet."""
    now = shown_at(state, taught, seat)
    return None if now is None else lesson(now[0], observe(state, seat), now[1])


__all__ = ["LESSONS", "LESSON_AI_SEATS", "LESSON_LEVEL", "LESSON_SEED", "Lesson", "Taught",
           "advised", "emphasised", "lesson", "lesson_now", "lessons_met", "shown_at",
           "situations", "taught_after", "topics"]
