"""The misclick guard's questions, read from real positions: ending a battle the preview shows as
lost, a fight at 1 HP against a monster that gets past the seat's equipment, and a visit to the
merchant where nothing can be bought."""
from __future__ import annotations

from rules.helpers import plain

from bot.game.guard import question
from engine import EndBattle, Fight, GameState, VisitMerchant, observe, parse
from engine.catalog import tables
from engine.position import SeatSetup, locate, position
from engine.rules import apply
from i18n import msg, translate

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
