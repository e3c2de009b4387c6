"""The card catalogue: the real data loads with the fixed structure, and broken data is refused.

Card VALUES are being tuned, so nothing here depends on a card's numbers: defects are made by
editing a temporary copy of ``cards/data`` around ids and field names only.
"""

from __future__ import annotations

import re
import shutil
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from cards import COLOURS, CURSES, load_catalogue
from cards.loader import (
    DATA,
    GATEKEEPERS_PER_LEVEL,
    POTION_KINDS,
    REGULAR_PER_LEVEL,
    CatalogueError,
    load_from,
)
from engine import GameConfig, SeatConfig, new_game
from engine.actions import POTIONS
from engine.catalog import tables
from engine.validate import card_places, expected_cards
from i18n import has_key

HEROES = ("argentus", "horan", "xanros", "aderyn", "victorius", "taia")


# --------------------------------------------------------------------------- the real catalogue


def test_real_catalogue_counts() -> None:
    cat = load_catalogue()
    assert sorted(h.id for h in cat.heroes) == sorted(HEROES)
    assert sum(len(h.cards) for h in cat.heroes) == 36
    assert all(len(h.cards) == 6 for h in cat.heroes)
    for level, regular in ((1, 20), (2, 20), (3, 24)):
        here = [m for m in cat.monsters if m.level == level]
        assert sum(not m.gatekeeper for m in here) == regular == REGULAR_PER_LEVEL[level]
        assert sum(m.gatekeeper for m in here) == 5 == GATEKEEPERS_PER_LEVEL
        assert all(m.reward.kind == "key" for m in here if m.gatekeeper)
    assert len(cat.lords) == 3
    assert cat.potions_per_kind * 3 == 12


def test_ids_follow_the_naming_scheme() -> None:
    cat = load_catalogue()
    prefixes = {"argentus": "arg", "horan": "hor", "xanros": "xan", "aderyn": "ade",
                "victorius": "vic", "taia": "tai"}
    for hero in cat.heroes:
        assert [c.id for c in hero.cards] == [f"{prefixes[hero.id]}{i}" for i in range(1, 7)]
    for level in (1, 2, 3):
        regular = sorted(m.id for m in cat.monsters if m.level == level and not m.gatekeeper)
        assert regular == [f"m{level}-{i:02d}" for i in range(1, REGULAR_PER_LEVEL[level] + 1)]
        gates = sorted(m.id for m in cat.monsters if m.level == level and m.gatekeeper)
        assert gates == [f"g{level}-{i}" for i in range(1, 6)]
    assert sorted(lord.id for lord in cat.lords) == ["lord-1", "lord-2", "lord-3"]


def test_every_card_has_english_names() -> None:
    cat = load_catalogue()
    for hero in cat.heroes:
        assert has_key(f"hero.{hero.id}.name")
        for card in hero.cards:
            assert has_key(f"card.{card.id}"), card.id
    for m in cat.monsters:
        assert has_key(f"card.{m.id}"), m.id
        if m.reward.kind != "key":
            assert has_key(f"back.{m.id}"), m.id
    for lord in cat.lords:
        assert has_key(f"card.{lord.id}"), lord.id


def test_engine_tables_match_the_catalogue() -> None:
    cat = load_catalogue()
    t = tables()
    starting = {c.id for h in cat.heroes for c in h.cards}
    backs = {m.id: m.reward.kind for m in cat.monsters}
    assert set(t.actions) == starting | {i for i, k in backs.items() if k == "action"}
    assert set(t.equipment) == {i for i, k in backs.items() if k in ("weapon", "armour")}
    assert {i for i, info in t.monsters.items() if info.level < 4} == set(backs)
    assert set(t.lords) == {lord.id for lord in cat.lords}
    for cid, info in t.actions.items():
        assert info.colour in COLOURS and info.next <= set(COLOURS), cid
        assert info.reward == (cid not in starting)
        assert info.attack or info.defence or info.draw or info.heal, cid
    for mid, m in t.monsters.items():
        assert set(m.curses) <= set(CURSES), mid
        assert m.hp >= 1


def test_every_card_is_reachable() -> None:
    """Every card of the catalogue is in play: each hero's cards, every monster, each Lord."""
    t = tables()
    lords_seen: set[str] = set()
    for seed in range(60):
        heroes = HEROES[seed % 3: seed % 3 + 4]
        state = new_game(GameConfig(tuple(SeatConfig(h) for h in heroes), seed=seed))
        assert card_places(state) == expected_cards(state)
        lords_seen.add(state.lord)
        in_play = set(card_places(state))
        for level in (1, 2, 3):
            assert set(t.regular[level]) | set(t.gatekeepers[level]) <= in_play
        for hero in heroes:
            assert set(t.hero_cards[hero]) <= in_play
    assert lords_seen == set(t.lords)
    # every action card can at least open a chain, and every colour can be followed by something
    follows = Counter(c for info in t.actions.values() for c in info.next)
    assert set(follows) == set(COLOURS)


# --------------------------------------------------------------------------- broken copies


def _copy(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    shutil.copytree(DATA, folder)
    return folder


#: A defect made in one data file of the copy.
Defect = Callable[[Path], None]


def edit(pattern: str, replacement: str) -> Defect:
    """Replace the first match of ``pattern`` in the file; the pattern must match."""
    def apply(path: Path) -> None:
        text = path.read_text(encoding="utf-8")
        new, count = re.subn(pattern, replacement, text, count=1, flags=re.S)
        assert count == 1, f"test setup: {pattern!r} not found in {path.name}"
        path.write_text(new, encoding="utf-8")
    return apply


def drop(header: str, card: str) -> Defect:
    """Remove the ``[[header]]`` table of ``card`` (and its sub-tables) from the file."""
    def apply(path: Path) -> None:
        blocks = path.read_text(encoding="utf-8").split(f"[[{header}]]\n")
        kept = [b for b in blocks if not b.startswith(f'id = "{card}"\n')]
        assert len(kept) == len(blocks) - 1, f"test setup: {card} not found in {path.name}"
        path.write_text(f"[[{header}]]\n".join(kept), encoding="utf-8")
    return apply


def strip_effects(card: str, table: str = "") -> Defect:
    """Remove every effect line (attack, defence, draw, heal, hand) from ``card``'s own table,
    or from its sub-table ``table`` (its reward)."""
    def apply(path: Path) -> None:
        text = path.read_text(encoding="utf-8")
        start = text.index(f'id = "{card}"\n')
        start = text.index(f"[{table}]\n", start) if table else start
        end = text.find("[[", start)
        end = len(text) if end < 0 else end
        effects = r"^(attack|defence|draw|heal|hand) = \d+\n"
        block = re.sub(effects, "", text[start:end], flags=re.M)
        path.write_text(text[:start] + block + text[end:], encoding="utf-8")
    return apply


def test_copy_of_real_data_loads(tmp_path: Path) -> None:
    assert load_from(_copy(tmp_path)) == load_catalogue()


#: Broken copies of the data: the file, its defect, and what the refusal must say besides the
#: file's name (the card and the fault).
DEFECTS = [
    *(pytest.param(name, edit(rf'id = "{card}"\n', r"\g<0>sparkle = 3\n"),
                   (repr(card), "sparkle", "unknown field"), id=f"unknown-field-{card}")
      for name, card in (("heroes.toml", "arg1"), ("heroes.toml", "vic4"),
                         ("level1.toml", "m1-01"), ("level3.toml", "g3-2"),
                         ("lords.toml", "lord-2"))),
    pytest.param("level2.toml", edit(r'(id = "m2-03"\n.*?\[monster\.reward\]\n)',
                                     r"\1sparkle = 1\n"),
                 ("'m2-03'", "sparkle", "unknown field"), id="unknown-field-in-reward"),
    pytest.param("level1.toml", edit(r'id = "m1-07"', 'id = "m1-06"'),
                 ("'m1-06'", "duplicate id"), id="duplicate-id-in-one-file"),
    pytest.param("level2.toml", edit(r'id = "m2-07"', 'id = "m1-04"'),
                 ("level1.toml", "'m1-04'", "duplicate id"), id="duplicate-id-across-files"),
    pytest.param("heroes.toml", edit(r'id = "tai2"', 'id = "hor5"'),
                 ("'hor5'", "duplicate id"), id="duplicate-starting-card-id"),
    pytest.param("heroes.toml", edit(r'(id = "xan3"\n)colour = "\w+"', r'\1colour = "purple"'),
                 ("'xan3'", "colour", "purple"), id="unknown-colour"),
    pytest.param("heroes.toml", edit(r'(id = "ade2"\n.*?)next = \[', r'\1next = ["pink", '),
                 ("'ade2'", "next", "pink"), id="unknown-next-colour"),
    pytest.param("level1.toml", edit(r'(kind = "action"\n)colour = "\w+"', r'\1colour = "purple"'),
                 ("'m1-", "purple"), id="unknown-reward-colour"),
    pytest.param("heroes.toml", edit(r'(id = "arg5"\n)', r"\1poison = 2\n"),
                 ("'arg5'", "poison"), id="unknown-effect"),
    pytest.param("level3.toml", edit(r'(id = "m3-05"\n.*?)curses = \[[^\]]*\]',
                                     r'\1curses = ["sleep"]'),
                 ("'m3-05'", "curses", "sleep"), id="unknown-curse"),
    pytest.param("lords.toml", edit(r'(id = "lord-3"\n.*?)curses = \[[^\]]*\]',
                                    r'\1curses = ["mud"]'),
                 ("'lord-3'", "mud"), id="unknown-lord-curse"),
    pytest.param("level2.toml", edit(r'(id = "m2-02"\n.*?)kind = "\w+"', r'\1kind = "shield"'),
                 ("'m2-02'", "shield"), id="unknown-reward-kind"),
    pytest.param("level1.toml", edit(r'(id = "m1-09"\n)level = 1', r"\1level = 2"),
                 ("'m1-09'", "level 2"), id="monster-in-the-wrong-level-file"),
    pytest.param("level1.toml", edit(r'(id = "g1-3"\n.*?)gatekeeper = true',
                                     r"\1gatekeeper = false"),
                 ("'g1-3'", "key"), id="gatekeeper-without-key"),
    pytest.param("level1.toml", edit(r'id = "m1-12"', 'id = "m1-99"'),
                 ("'m1-99'", "English name", "card.m1-99"), id="missing-english-name"),
    pytest.param("heroes.toml", edit(r'id = "tai6"', 'id = "tai9"'),
                 ("'tai9'", "English name"), id="missing-english-name-of-starting-card"),
    pytest.param("level1.toml", edit(r'(id = "m1-02"\n.*?)next = \[[^\]]*\]',
                                     r'\1next = ["red", "red"]'),
                 ("'m1-02'", "reward", "next colours repeat"),
                 id="action-reward-with-repeated-next-colours"),
    *(pytest.param("level1.toml", edit(r'id = "m1-05"', f'id = "{reserved}"'),
                   (repr(reserved), "equipment slot"), id=f"card-id-{reserved}")
      for reserved in ("weapon", "armour")),
    pytest.param("heroes.toml", strip_effects("vic2"), ("'vic2'", "effect"),
                 id="action-card-without-effect"),
    pytest.param("level1.toml", strip_effects("m1-01", "monster.reward"),
                 ("'m1-01'", "reward", "at least one effect"), id="action-reward-without-effect"),
    pytest.param("level1.toml", strip_effects("m1-16", "monster.reward"),
                 ("'m1-16'", "reward", "equipment needs at least one effect"),
                 id="equipment-reward-without-effect"),
    pytest.param("level2.toml", drop("monster", "m2-11"), ("19 regular monsters", "20"),
                 id="wrong-count-of-regular-monsters"),
    pytest.param("level3.toml", drop("monster", "g3-4"), ("4 gatekeepers", "5"),
                 id="wrong-count-of-gatekeepers"),
    pytest.param("lords.toml", drop("lord", "lord-2"), ("2 lords", "3"),
                 id="wrong-count-of-lords"),
    pytest.param("heroes.toml", drop("hero.cards", "hor4"),
                 ("'horan'", "5 starting cards", "6"), id="wrong-count-of-starting-cards"),
    pytest.param("heroes.toml", drop("hero", "taia"), ("taia",), id="missing-hero"),
    pytest.param("lords.toml", Path.unlink, ("missing",), id="missing-file"),
    pytest.param("level2.toml", edit(r".*", "[[monster]\nid = "), ("not valid TOML",),
                 id="not-toml"),
    pytest.param("level1.toml", edit(r"\Z", '\n[[monsters]]\nid = "m1-50"\n'), ("monsters",),
                 id="unknown-top-level-table"),
    pytest.param("lords.toml", edit(r".*", 'lord = ["lord-1", "lord-2", "lord-3"]\n'),
                 ("array of tables",), id="entries-must-be-tables"),
    pytest.param("potions.toml", edit(r'(kind = "healing"\n)count = 4', r"\1count = 5"),
                 ("'healing'", "5 potions, needs 4"), id="potion-pile-of-five"),
    pytest.param("potions.toml", edit(r'kind = "countercurse"', 'kind = "invisibility"'),
                 ("invisibility",), id="unknown-potion-kind"),
    pytest.param("potions.toml", edit(r'\[\[potion\]\]\nkind = "strength"\ncount = 4\n', ""),
                 ("piles must be", "['healing', 'countercurse']"), id="missing-potion-pile"),
]


@pytest.mark.parametrize(("name", "defect", "fragments"), DEFECTS)
def test_a_broken_copy_is_refused(tmp_path: Path, name: str, defect: Defect,
                                  fragments: tuple[str, ...]) -> None:
    folder = _copy(tmp_path)
    defect(folder / name)
    with pytest.raises(CatalogueError) as info:
        load_from(folder)
    for fragment in (name, *fragments):
        assert fragment in str(info.value), f"{fragment!r} not in message {info.value}"


def test_the_ids_given_to_unnamed_cards_have_no_name() -> None:
    """The missing-name defects above rename cards to ids that must stay unnamed."""
    assert not has_key("card.m1-99") and not has_key("card.tai9")


def test_potion_piles_are_data() -> None:
    cat = load_catalogue()
    assert [(p.kind, p.count) for p in cat.potions] == [
        ("strength", 4), ("healing", 4), ("countercurse", 4)]
    assert sum(p.count for p in cat.potions) == 12  # D3
    assert tuple(p.kind for p in cat.potions) == POTIONS == POTION_KINDS
