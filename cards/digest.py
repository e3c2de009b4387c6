"""A short fingerprint of the card data, so a stored match can tell that the cards changed since
it was played (its action log may then no longer replay, or replay differently)."""

from __future__ import annotations

import hashlib
import json
from functools import cache

from cards.loader import load_catalogue
from cards.models import Catalogue

#: Hex digits kept of the SHA-256: 64 bits, plenty to tell versions of one catalogue apart.
DIGEST_LENGTH = 16


def catalogue_digest(catalogue: Catalogue) -> str:
    """The fingerprint of ``catalogue``: the start of the SHA-256 of its validated data as
    canonical JSON (keys sorted, no spaces). Only what the cards are counts: comments, layout
    and the order of fields in the files do not change it; any value, card or order of cards
    does."""
    data = catalogue.model_dump(mode="json")
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()[:DIGEST_LENGTH]


@cache
def catalogue_version() -> str:
    """The fingerprint of the project's catalogue (:func:`catalogue_digest`), worked out once
    per process."""
    return catalogue_digest(load_catalogue())
