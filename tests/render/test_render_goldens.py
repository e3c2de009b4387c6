"""Golden-image tests: each picture must match its stored golden within a small tolerance.

When a change is intended (new drawing, re-tuned card values), regenerate with
``python -m render.goldens`` and look at the new pictures before committing them.
"""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageDraw

from render.goldens import CASES, REGENERATE, difference, golden_path, render_case


@pytest.mark.parametrize(("scenario", "kind", "locale"), CASES,
                         ids=[f"{s}-{k}-{lc}" for s, k, lc in CASES])
def test_matches_golden(scenario: str, kind: str, locale: str) -> None:
    path = golden_path(scenario, kind, locale)
    assert path.exists(), f"golden {path.name} is missing: run `{REGENERATE}`"
    drawn = Image.open(io.BytesIO(render_case(scenario, kind, locale)))
    diff = difference(drawn, Image.open(path))
    assert diff.within(), (
        f"{scenario} {kind} picture differs from {path.name} ({diff}). If the change is "
        f"intended (drawing changed, card values re-tuned), regenerate with `{REGENERATE}` "
        "and look at the new pictures before committing them."
    )


def test_tolerance_catches_a_changed_digit() -> None:
    """The comparison is not blind: one changed number on one card is a failure."""
    golden = Image.open(golden_path("midgame", "table")).convert("RGB")
    changed = golden.copy()
    d = ImageDraw.Draw(changed)
    d.rectangle((150, 100, 200, 160), fill=(36, 32, 40))
    d.text((150, 100), "7", fill=(245, 245, 240), font_size=48)
    assert not difference(golden, changed).within()
    assert difference(golden, golden.copy()).within()


def test_tolerance_catches_a_size_change() -> None:
    golden = Image.open(golden_path("midgame", "hand")).convert("RGB")
    assert not difference(golden, golden.crop((0, 0, golden.width, golden.height - 1))).within()
