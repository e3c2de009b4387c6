"""cards.digest: the card data's fingerprint is stable, ignores how the files are written, and
changes with any card. Defects are made in a temporary copy of ``cards/data`` around field names
only (card values are being tuned)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from cards import catalogue_digest, catalogue_version, load_catalogue
from cards.loader import DATA, load_from


def _copy(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    shutil.copytree(DATA, folder)
    return folder


def _edit(path: Path, pattern: str, change: str) -> None:
    """Rewrite the first match of ``pattern`` in ``path`` with ``change``."""
    text = path.read_text(encoding="utf-8")
    edited = re.sub(pattern, change, text, count=1, flags=re.MULTILINE)
    assert edited != text, pattern
    path.write_text(edited, encoding="utf-8")


def test_the_version_is_a_short_stable_hex_digest(tmp_path: Path) -> None:
    version = catalogue_version()
    assert re.fullmatch(r"[0-9a-f]{16}", version)
    assert catalogue_digest(load_catalogue()) == version
    assert catalogue_digest(load_from(_copy(tmp_path))) == version


def test_comments_and_layout_do_not_change_it(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    level1 = folder / "level1.toml"
    _edit(level1, r"^\[\[monster\]\]$", "# a note for the card makers\n\n[[monster]]")
    _edit(level1, r"^hp = (\d+)$", r"hp    =    \1   # aligned")
    assert catalogue_digest(load_from(folder)) == catalogue_version()


def test_any_value_changes_it(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    path = folder / "level2.toml"
    text = path.read_text(encoding="utf-8")
    hp = int(re.search(r"^hp = (\d+)$", text, flags=re.MULTILINE)[1])  # type: ignore[index]
    _edit(path, r"^hp = \d+$", f"hp = {hp - 1 if hp > 1 else hp + 1}")
    assert catalogue_digest(load_from(folder)) != catalogue_version()


def test_the_order_of_the_cards_changes_it(tmp_path: Path) -> None:
    """The order of a level's cards is the order they are shuffled from: another game."""
    folder = _copy(tmp_path)
    path = folder / "level3.toml"
    head, *cards = path.read_text(encoding="utf-8").split("[[monster]]")
    cards[0], cards[1] = cards[1], cards[0]
    path.write_text("[[monster]]".join([head, *cards]), encoding="utf-8")
    assert load_from(folder) != load_catalogue()
    assert catalogue_digest(load_from(folder)) != catalogue_version()
