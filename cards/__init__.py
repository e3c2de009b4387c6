"""The Karak: Goblin card catalogue: data files in ``cards/data`` validated by pydantic models.

Use :func:`load_catalogue` to get the one validated :class:`~cards.models.Catalogue`, and
:func:`card_data_version` for a short fingerprint of it that changes whenever the cards do.
"""

from cards.digest import card_data_version, catalogue_digest
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
    "card_data_version",
    "catalogue_digest",
    "load_catalogue",
]
