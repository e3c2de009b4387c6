"""The Karak: Goblin card catalogue: data files in ``cards/data`` validated by pydantic models.

Use :func:`load_catalogue` to get the one validated :class:`~cards.models.Catalogue`, and
:func:`catalogue_version` for a short digest of its data.
"""

from cards.loader import CatalogueError, catalogue_version, load_catalogue
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
    "load_catalogue",
]
