"""Reads and checks the catalogue's TOML files; every problem names its file and card."""

from __future__ import annotations

import tomllib
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from cards.models import HERO_IDS, Catalogue, Hero, Lord, Monster

DATA = Path(__file__).parent / "data"

#: Fixed structure (CARDS.md): regular monsters and gatekeepers per level, and lords.
REGULAR_PER_LEVEL = {1: 20, 2: 20, 3: 24}
GATEKEEPERS_PER_LEVEL = 5
LORDS = 3
STARTING_CARDS = 6
POTIONS_PER_KIND = 4


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
    if not isinstance(rows, list):
        raise CatalogueError(f"{path.name}: [[{table}]] must be an array of tables")
    return rows


def _model(cls: type[Any], raw: dict[str, Any], path: Path, index: int) -> Any:
    name = raw.get("id", f"entry #{index + 1}")
    try:
        return cls.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'card'}: {e['msg']}" for e in exc.errors()
        )
        raise CatalogueError(f"{path.name}: card {name!r}: {problems}") from exc


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
            raise CatalogueError(f"{where}: level {level} has {regular} regular monsters, needs {want}")
        if gates != GATEKEEPERS_PER_LEVEL:
            raise CatalogueError(
                f"{where}: level {level} has {gates} gatekeepers, needs {GATEKEEPERS_PER_LEVEL}"
            )
        wrong = [m.id for m in here if origin.get(m.id) != where]
        if wrong:
            raise CatalogueError(f"{origin[wrong[0]]}: card {wrong[0]!r}: level {level} card in wrong file")
    if len(cat.lords) != LORDS:
        raise CatalogueError(f"lords.toml: {len(cat.lords)} lords, needs {LORDS}")


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


def load_from(folder: Path) -> Catalogue:
    """Read and validate the catalogue in ``folder`` (raises :class:`CatalogueError`)."""
    origin: dict[str, str] = {}
    heroes: list[Hero] = []
    path = folder / "heroes.toml"
    for i, raw in enumerate(_entries(path, "hero")):
        hero = _model(Hero, raw, path, i)
        heroes.append(hero)
        for card in hero.cards:
            origin.setdefault(card.id, path.name)
            if card.reward:
                raise CatalogueError(f"{path.name}: card {card.id!r}: starting cards are not rewards")
    monsters: list[Monster] = []
    for level in (1, 2, 3):
        path = folder / f"level{level}.toml"
        for i, raw in enumerate(_entries(path, "monster")):
            m = _model(Monster, raw, path, i)
            monsters.append(m)
            origin.setdefault(m.id, path.name)
    path = folder / "lords.toml"
    lords = [_model(Lord, raw, path, i) for i, raw in enumerate(_entries(path, "lord"))]
    for lord in lords:
        origin.setdefault(lord.id, path.name)
    cat = Catalogue(heroes=tuple(heroes), monsters=tuple(monsters), lords=tuple(lords),
                    potions_per_kind=POTIONS_PER_KIND)
    _check_structure(cat, origin)
    _check_names(cat, origin)
    return cat


@cache
def load_catalogue() -> Catalogue:
    """The project's catalogue, read and validated once per process."""
    return load_from(DATA)
