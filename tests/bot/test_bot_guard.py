"""The misclick guard's questions, read from real positions: ending a battle the preview shows as
lost, a fight at 1 HP against a monster that gets past the seat's equipment, and a visit to the
merchant where nothing can be bought."""
from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from rules.helpers import plain

from bot.game.guard import question
from engine import (
    Discard,
    EndBattle,
    Fight,
    GameState,
    VisitMerchant,
    legal_actions,
    observe,
    parse,
)
from engine.catalog import tables
from engine.position import SeatSetup, locate, position
from engine.rules import apply
from i18n import Msg, msg, translate

HITTER = plain(1, lambda m: m.attack >= 2)
#: The armour with the most defence (3, more than a level I monster's attack of 2 or 3).
ARMOUR = max(tables().equipment, key=lambda e: tables().equipment[e].defence)
#: Another item, for the pawnshop.
ARMOUR_2 = min(tables().equipment, key=lambda e: tables().equipment[e].defence)


def at_row(hp: int, armour: str | None = None) -> GameState:
    """Horan ("Ann") choosing his turn at ``hp``, a monster hitting 2 or more in row I."""
    return position(SeatSetup("horan", name="Ann", hp=hp, armour=armour), "taia",
                    rows={1: [HITTER, None, None, None, None]})


def test_a_fight_at_1_hp_against_a_monster_that_hits_is_asked_about() -> None:
    fight = Fight(1, 1)
    asked = question(observe(at_row(1), 0), fight)
    assert asked is not None and asked.key == "bot.undo.fight_lethal"
    assert translate(asked).startswith("Really fight ")
    assert question(observe(at_row(2), 0), fight) is None  # more HP: nothing to ask
    assert tables().equipment[ARMOUR].defence >= tables().monsters[HITTER].attack
    assert question(observe(at_row(1, ARMOUR), 0), fight) is None  # the armour holds it off


def test_ending_a_battle_is_asked_about_only_when_it_is_lost() -> None:
    state, _ = apply(at_row(5), parse("fight:1-1"))
    obs = observe(state, 0)
    totals = obs.battle.totals if obs.battle is not None else None
    assert totals is not None and not totals.win  # nothing played yet: the monster wins
    asked = question(obs, EndBattle())
    assert asked is not None and asked.key in ("bot.undo.end_lost", "bot.undo.end_knocked_out")
    assert translate(asked, "fr").startswith("Vraiment terminer la bataille")
    assert translate(asked, "cs").startswith("Opravdu ukončit souboj?")


def test_a_visit_to_the_merchant_is_asked_about_when_nothing_can_be_bought() -> None:
    visit = VisitMerchant()

    def asked(armour: str | None, potions: tuple[str, ...] = (),
              pawnshop: tuple[str, ...] = ()) -> str:
        state = position(SeatSetup("horan", name="Ann", armour=armour, potions=potions),
                         "taia", pawnshop=pawnshop)
        obs = observe(state, 0)
        assert visit in obs.legal  # the rules allow the visit (R7, R43) in every case
        found = question(obs, visit)
        return found.key if found is not None else ""

    every = ("strength", "healing", "countercurse")
    assert asked(None) == "bot.undo.merchant_no_payment"  # nothing to pay with (R40)
    assert asked(ARMOUR) == ""  # the armour pays for a potion
    assert asked(ARMOUR, every) == "bot.undo.merchant_nothing"  # one of each held (R41)
    assert asked(ARMOUR, every[:2]) == ""  # a countercurse potion is still for sale
    assert asked(ARMOUR, every, pawnshop=(ARMOUR_2,)) == ""  # the pawnshop sells (R42)
    for key in ("bot.undo.merchant_no_payment", "bot.undo.merchant_nothing"):
        assert translate(msg(key), "fr").startswith("Vraiment rendre visite au marchand\xa0?")
        assert translate(msg(key), "cs").startswith("Opravdu navštívit obchodníka?")


#: Armour that heals after every battle (R25), with the defence it brings.
HEALER = next(e for e, i in tables().equipment.items() if i.kind == "armour" and i.heal > 0)


def test_ending_a_lost_battle_states_the_hp_the_engine_leaves_after_equipment_heals() -> None:
    """R24-R25: the hits are taken, then the armour heals; the question states what the engine
    does, not the hits alone."""
    info = tables().equipment[HEALER]
    monster = plain(1, lambda m: m.attack > info.defence + 1 and m.hp > info.attack)
    hits = tables().monsters[monster].attack - info.defence
    for hp in range(hits + 1, 6):
        state = position(SeatSetup("horan", name="Ann", hp=hp, armour=HEALER), "taia",
                         fight=monster)
        obs = observe(state, 0)
        asked = question(obs, EndBattle())
        after, _ = apply(state, EndBattle())
        left = after.seats[0].hp
        assert asked is not None and left > hp - hits  # hit, then healed
        if asked.key == "bot.undo.end_lost":  # "You will lose {count} HP"
            assert asked.get("count") == hp - left, (hp, left)
        else:
            assert asked.key == "bot.undo.end_lost_healed"
            assert asked.get("count") == hits and asked.get("hp") == left
            for locale in ("en", "fr", "cs"):
                assert str(left) in translate(asked, locale)


def test_a_fight_at_1_hp_counts_no_equipment_the_monster_curses() -> None:
    """R23: a cursed armour's defence is ignored in the battle, so it holds nothing off."""
    monster = next(m for m, i in tables().monsters.items()
                   if "armour" in i.curses and i.level < 4 and not i.gatekeeper)
    attack = tables().monsters[monster].attack
    armour = next(e for e, i in tables().equipment.items()
                  if i.kind == "armour" and i.defence >= attack)
    state = position(SeatSetup("horan", name="Ann", hp=1, armour=armour,
                               keys=(1, 2)), "taia",
                     rows={tables().monsters[monster].level: [monster, None, None, None, None]})
    obs = observe(state, 0)
    fight = locate(state, monster)
    assert fight in obs.legal
    asked = question(obs, fight)
    battle, _ = apply(state, fight)
    ended, _ = apply(battle, EndBattle())
    assert ended.seats[0].hp == 0  # nothing played: the engine knocks the hero out
    assert asked is not None and asked.key == "bot.undo.fight_lethal"


def test_a_fight_at_1_hp_names_the_healing_potion_that_saves_the_hero() -> None:
    """R35: a healing potion drunk in the battle, ahead of the hits, brings the hero back to 5
    HP; the question says so when that is enough, and only then."""
    fight = Fight(1, 1)
    state = position(SeatSetup("horan", name="Ann", hp=1, potions=("healing",)), "taia",
                     rows={1: [HITTER, None, None, None, None]})
    asked = question(observe(state, 0), fight)
    battle, _ = apply(state, fight)
    healed, _ = apply(battle, parse("heal"))
    ended, _ = apply(healed, EndBattle())
    assert ended.seats[0].hp > 0  # nothing played, the potion drunk: the hero stands
    assert asked is not None and asked.key == "bot.undo.fight_lethal_potion"
    assert "healing potion" in translate(asked)
    assert "potion de soin" in translate(asked, "fr")
    assert "lektvar" in translate(asked, "cs")
    strong = next(m for m, i in tables().monsters.items()
                  if i.level == 3 and not i.gatekeeper and i.attack >= 5 and not i.curses[1:])
    level = tables().monsters[strong].level
    state = position(SeatSetup("horan", name="Ann", hp=1, potions=("healing",), keys=(1, 2)),
                     "taia", rows={level: [strong, None, None, None, None]})
    fight = locate(state, strong)
    asked = question(observe(state, 0), fight)
    battle, _ = apply(state, fight)
    healed, _ = apply(battle, parse("heal"))
    ended, _ = apply(healed, EndBattle())
    assert ended.seats[0].hp == 0  # the potion is not enough against that attack
    assert asked is not None and asked.key == "bot.undo.fight_lethal"


def test_a_fight_at_1_hp_names_the_countercurse_potion_that_frees_the_equipment() -> None:
    """R33: a countercurse potion lifts the monster's armour curse, so the armour holds the
    attack off again (R23); the question names the potion and the curse instead of a loss that
    nothing but the cards could spare, and a fight the potion cannot help stays lethal."""
    monster = next(m for m, i in tables().monsters.items()
                   if "armour" in i.curses and i.level < 4 and not i.gatekeeper)
    info = tables().monsters[monster]
    armour = next(e for e, i in tables().equipment.items()
                  if i.kind == "armour" and i.defence >= info.attack)
    state = position(SeatSetup("horan", name="Ann", hp=1, armour=armour, keys=(1, 2),
                               potions=("countercurse",)), "taia",
                     rows={info.level: [monster, None, None, None, None]})
    fight = locate(state, monster)
    asked = question(observe(state, 0), fight)
    battle, _ = apply(state, fight)
    countered, _ = apply(battle, parse("counter:armour"))  # before any card (R33)
    ended, _ = apply(countered, EndBattle())
    assert ended.seats[0].hp == 1  # nothing played, the armour curse lifted: unhurt
    assert asked is not None and asked.key == "bot.undo.fight_lethal_countercurse"
    assert "countercurse potion against armour" in translate(asked)
    assert "contre-malédiction" in translate(asked, "fr")
    assert "lektvar ochrany" in translate(asked, "cs")
    # with the healing potion as well, either potion saves the hero
    both = position(SeatSetup("horan", name="Ann", hp=1, armour=armour, keys=(1, 2),
                              potions=("healing", "countercurse")), "taia",
                     rows={info.level: [monster, None, None, None, None]})
    asked = question(observe(both, 0), locate(both, monster))
    assert asked is not None and asked.key == "bot.undo.fight_lethal_either"
    # without armour the countercurse frees nothing: the plain question
    bare = position(SeatSetup("horan", name="Ann", hp=1, keys=(1, 2),
                              potions=("countercurse",)), "taia",
                    rows={info.level: [monster, None, None, None, None]})
    asked = question(observe(bare, 0), locate(bare, monster))
    assert asked is not None and asked.key == "bot.undo.fight_lethal"


#: The regular monsters of levels I to III, each fought from its row with the keys to reach it.
REGULARS = sorted(m for m, i in tables().monsters.items() if i.level < 4 and not i.gatekeeper)
#: Those that curse equipment (R23), drawn as often as all the others together.
CURSING = [m for m in REGULARS if {"weapon", "armour"} & set(tables().monsters[m].curses)]
WEAPONS = sorted(e for e, i in tables().equipment.items() if i.kind == "weapon")
ARMOURS = sorted(e for e, i in tables().equipment.items() if i.kind == "armour")
#: What each fight question says the hero must drink, with no card played, to stay standing.
DRINKS = {"bot.undo.fight_lethal_potion": (("heal",),),
          "bot.undo.fight_lethal_countercurse": (("counter",),),
          "bot.undo.fight_lethal_either": (("heal",), ("counter",)),
          "bot.undo.fight_lethal_both": (("counter", "heal"),)}


def _left_standing(state: GameState, drinks: tuple[str, ...], curse: str | None) -> bool:
    """Whether the hero fighting in ``state`` stands after drinking ``drinks`` (the countercurse
    against ``curse``) and ending the battle with no card played."""
    for drink in drinks:
        state, _ = apply(state, parse(f"counter:{curse}" if drink == "counter" else drink))
    while EndBattle() not in legal_actions(state):  # R23: down to 4 cards first
        state, _ = apply(state, next(a for a in legal_actions(state) if isinstance(a, Discard)))
    ended, _ = apply(state, EndBattle())
    return ended.seats[0].hp > 0


@settings(max_examples=150, deadline=None)
@given(monster=st.one_of(st.sampled_from(CURSING), st.sampled_from(REGULARS)),
       weapon=st.sampled_from([None, *WEAPONS]),
       armour=st.sampled_from([None, *ARMOURS]),
       potions=st.sampled_from([(), ("healing",), ("countercurse",),
                                ("healing", "countercurse")]))
def test_the_fight_question_at_1_hp_tells_what_the_engine_does(
        monster: str, weapon: str | None, armour: str | None,
        potions: tuple[str, ...]) -> None:
    """R23-R24, R33, R35: the question before a fight at 1 HP is asked exactly when ending the
    battle at once knocks the hero out; the potions it names spare the hero (each of them, or
    both together, as it says), and a question that names none means no potion can."""
    assume(monster not in (weapon, armour))  # equipment is a monster's reward card
    info = tables().monsters[monster]
    state = position(SeatSetup("horan", name="Ann", hp=1, weapon=weapon, armour=armour,
                               keys=(1, 2), potions=potions), "taia",
                     rows={info.level: [monster, None, None, None, None]})
    fight = locate(state, monster)
    asked = question(observe(state, 0), fight)
    battle, _ = apply(state, fight)
    assert (asked is None) == _left_standing(battle, (), None)
    if asked is None:
        return
    curse = asked.get("curse")
    lifted = curse.key.removeprefix("curse.") if isinstance(curse, Msg) else None
    if asked.key == "bot.undo.fight_lethal":
        assert not any(_left_standing(battle, drinks, c)
                       for drinks in ((), ("heal",), ("counter",), ("counter", "heal"))
                       for c in (info.curses or (None,))
                       if all(("healing" if d == "heal" else "countercurse") in potions
                              for d in drinks) and (c is not None or "counter" not in drinks))
    else:
        assert all(_left_standing(battle, drinks, lifted) for drinks in DRINKS[asked.key])
