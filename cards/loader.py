"""Reads and checks the catalogue's TOML files; every problem names its file and card."""

from __future__ import annotations

import tomllib
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from cards.models import HERO_IDS, ActionCard, Catalogue, Hero, Lord, Monster, PotionPile

DATA = Path(__file__).parent / "data"

#: Fixed structure (docs/rules.md, the card catalogue): regular monsters and gatekeepers per
#: level, and lords.
REGULAR_PER_LEVEL = {1: 20, 2: 20, 3: 24}
GATEKEEPERS_PER_LEVEL = 5
LORDS = 3
STARTING_CARDS = 6
POTIONS_PER_KIND = 4  # D3: 4 + 4 + 4
POTION_KINDS = ("strength", "healing", "countercurse")


class CatalogueError(ValueError):
    """The catalogue's data files are wrong; the message names the file and the card."""


def _read(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError as exc:
        raise CatalogueError(f"{path.name}: file is missing") from exc
    except tomllib.TOMLDecodeError as exc:
        raise CatalogueError(f"{path.name}: not valid TOML: {exc}") from exc


def _entries(path: Path, table: str) -> list[dict[str, Any]]:
    doc = _read(path)
    extra = set(doc) - {table}
    if extra:
        raise CatalogueError(f"{path.name}: unknown top-level entries {sorted(extra)}")
    rows = doc.get(table, [])
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise CatalogueError(f"{path.name}: [[{table}]] must be an array of tables")
    return rows


def _problem(error: Any) -> str:
    """One pydantic error as ``field: what is wrong`` (without pydantic's "Value error, ")."""
    where = ".".join(str(p) for p in error["loc"])
    text = str(error["msg"]).removeprefix("Value error, ")
    if error["type"] == "extra_forbidden":
        text = "unknown field"
    elif error["type"] == "union_tag_invalid":
        ctx = error.get("ctx", {})
        text = f"unknown kind {ctx.get('tag')!r} (expected {ctx.get('expected_tags')})"
    elif error["type"] == "literal_error":
        text = f"unknown value {error['input']!r} ({text[0].lower()}{text[1:]})"
    return f"{where}: {text}" if where else text


def _model(cls: type[Any], raw: dict[str, Any], path: Path, index: int,
           what: str = "card") -> Any:
    name = raw.get("id", f"entry #{index + 1}")
    try:
        return cls.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(_problem(e) for e in exc.errors())
        raise CatalogueError(f"{path.name}: {what} {name!r}: {problems}") from exc


def _hero(raw: dict[str, Any], path: Path, index: int) -> Hero:
    """A hero, checking each starting card on its own first so errors name the card."""
    cards = raw.get("cards")
    if isinstance(cards, list):
        if len(cards) != STARTING_CARDS:
            raise CatalogueError(f"{path.name}: hero {raw.get('id', index + 1)!r}: "
                                 f"{len(cards)} starting cards, needs {STARTING_CARDS}")
        for i, card in enumerate(cards):
            if not isinstance(card, dict):
                raise CatalogueError(
                    f"{path.name}: hero {raw.get('id', index + 1)!r}: card #{i + 1} is not a table"
                )
            _model(ActionCard, card, path, i)
    hero = _model(Hero, raw, path, index, what="hero")
    assert isinstance(hero, Hero)
    return hero


def _check_structure(cat: Catalogue, origin: dict[str, str]) -> None:
    ids = [c.id for h in cat.heroes for c in h.cards] + [m.id for m in cat.monsters]
    ids += [lord.id for lord in cat.lords]
    dupes = sorted(i for i, n in Counter(ids).items() if n > 1)
    if dupes:
        raise CatalogueError(f"{origin.get(dupes[0], '?')}: card {dupes[0]!r}: duplicate id")
    heroes = [h.id for h in cat.heroes]
    if sorted(heroes) != sorted(HERO_IDS):
        raise CatalogueError(f"heroes.toml: heroes must be exactly {list(HERO_IDS)}, got {heroes}")
    for level, want in REGULAR_PER_LEVEL.items():
        here = [m for m in cat.monsters if m.level == level]
        regular = sum(not m.gatekeeper for m in here)
        gates = sum(m.gatekeeper for m in here)
        where = f"level{level}.toml"
        if regular != want:
            raise CatalogueError(
                f"{where}: level {level} has {regular} regular monsters, needs {want}"
            )
        if gates != GATEKEEPERS_PER_LEVEL:
            raise CatalogueError(
                f"{where}: level {level} has {gates} gatekeepers, needs {GATEKEEPERS_PER_LEVEL}"
            )
    if len(cat.lords) != LORDS:
        raise CatalogueError(f"lords.toml: {len(cat.lords)} lords, needs {LORDS}")


def _check_potions(piles: list[PotionPile]) -> None:
    """R5 and D3: one pile of each kind, in the merchant's order, 4 potions each."""
    kinds = [p.kind for p in piles]
    if kinds != list(POTION_KINDS):
        raise CatalogueError(f"potions.toml: piles must be {list(POTION_KINDS)} in this order, "
                             f"got {kinds}")
    for pile in piles:
        if pile.count != POTIONS_PER_KIND:
            raise CatalogueError(f"potions.toml: potion pile {pile.kind!r}: {pile.count} potions, "
                                 f"needs {POTIONS_PER_KIND}")


def _check_names(cat: Catalogue, origin: dict[str, str]) -> None:
    from i18n import has_key

    for h in cat.heroes:
        for key in (f"hero.{h.id}.name", f"hero.{h.id}.title", f"hero.{h.id}.ability"):
            if not has_key(key):
                raise CatalogueError(f"heroes.toml: hero {h.id!r}: no English text for {key!r}")
    for cid in origin:
        if not has_key(f"card.{cid}"):
            raise CatalogueError(f"{origin[cid]}: card {cid!r}: no English name (key 'card.{cid}')")
    for m in cat.monsters:
        if m.reward.kind != "key" and not has_key(f"back.{m.id}"):
            raise CatalogueError(
                f"{origin[m.id]}: card {m.id!r}: no English name for its back (key 'back.{m.id}')"
            )


def _place(origin: dict[str, str], card: str, path: Path) -> None:
    """Remember which file defines ``card``; a second definition is a duplicate id."""
    if card in origin:
        where = origin[card] if origin[card] == path.name else f"{origin[card]} and {path.name}"
        raise CatalogueError(f"{path.name}: card {card!r}: duplicate id (defined in {where})")
    origin[card] = path.name


def load_from(folder: Path) -> Catalogue:
    """Read and validate the catalogue in ``folder`` (raises :class:`CatalogueError`)."""
    origin: dict[str, str] = {}
    heroes: list[Hero] = []
    path = folder / "heroes.toml"
    for i, raw in enumerate(_entries(path, "hero")):
        hero = _hero(raw, path, i)
        heroes.append(hero)
        for card in hero.cards:
            _place(origin, card.id, path)
            if card.reward:
                raise CatalogueError(
                    f"{path.name}: card {card.id!r}: starting cards are not rewards"
                )
    monsters: list[Monster] = []
    for level in (1, 2, 3):
        path = folder / f"level{level}.toml"
        for i, raw in enumerate(_entries(path, "monster")):
            m = _model(Monster, raw, path, i)
            if m.level != level:
                raise CatalogueError(
                    f"{path.name}: card {m.id!r}: level {m.level} card in the level {level} file"
                )
            monsters.append(m)
            _place(origin, m.id, path)
    path = folder / "lords.toml"
    lords = [_model(Lord, raw, path, i) for i, raw in enumerate(_entries(path, "lord"))]
    for lord in lords:
        _place(origin, lord.id, path)
    path = folder / "potions.toml"
    potions = [_model(PotionPile, raw, path, i, what="potion pile")
               for i, raw in enumerate(_entries(path, "potion"))]
    _check_potions(potions)
    cat = Catalogue(heroes=tuple(heroes), monsters=tuple(monsters), lords=tuple(lords),
                    potions=tuple(potions))
    _check_structure(cat, origin)
    _check_names(cat, origin)
    return cat


@cache
def load_catalogue() -> Catalogue:
    """The project's catalogue, read and validated once per process."""
    return load_from(DATA)
