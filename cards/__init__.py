"""The Karak: Goblin card catalogue: data files in ``cards/data`` validated by pydantic models.

Use :func:`load_catalogue` to get the one validated :class:`~cards.models.Catalogue`, and
:func:`catalogue_version` for a short fingerprint of it that changes whenever the cards do.
"""

from cards.digest import catalogue_digest, catalogue_version
from cards.loader import CatalogueError, load_catalogue
from cards.models import (
    COLOURS,
    CURSES,
    ActionCard,
    Catalogue,
    Equipment,
    Hero,
    Lord,
    Monster,
)

__all__ = [
    "COLOURS",
    "CURSES",
    "ActionCard",
    "Catalogue",
    "CatalogueError",
    "Equipment",
    "Hero",
    "Lord",
    "Monster",
    "catalogue_version",
    "catalogue_digest",
    "load_catalogue",
]
