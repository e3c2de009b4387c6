"""Golden images: the reference pictures the tests compare the renderer against.

``python -m render.goldens`` redraws every golden into ``tests/render/goldens/`` (run it after an
intended change of the drawing, or when re-tuned card values change the positions); ``--check``
only reports which goldens differ.
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageChops, ImageStat

from engine.observe import Observation
from render import battle_image, hand_image, table_image
from render.positions import scene
from render.tournament import StandingLine, champion_image, standings_image

GOLDEN_DIR = Path(__file__).resolve().parent.parent / "tests" / "render" / "goldens"
REGENERATE = "python -m render.goldens"
#: Largest mean absolute difference per channel (0-255) still counted as the same picture...
TOLERANCE = 0.5
#: ...and the largest share of pixels changed by more than STRONG in some channel (a changed
#: digit on a card changes about 0.03% of the table picture).
STRONG = 48
CHANGED_SHARE = 0.0001

DRAW: dict[str, Callable[[Observation, str], bytes]] = {
    "table": table_image, "battle": battle_image, "hand": hand_image,
}
#: (scenario, picture, language) kept as goldens: every picture in English, and the busiest ones
#: in French and Czech too (their longer texts and diacritics must fit and show).
CASES: tuple[tuple[str, str, str], ...] = (
    ("midgame", "table", "en"), ("midgame", "battle", "en"), ("midgame", "hand", "en"),
    ("lord", "battle", "en"), ("lord", "hand", "en"),
    ("taia", "hand", "en"), ("discard", "hand", "en"),
    ("start", "table", "en"),
    ("midgame", "table", "fr"), ("midgame", "battle", "fr"), ("midgame", "hand", "fr"),
    ("taia", "hand", "fr"),
    ("midgame", "table", "cs"), ("midgame", "battle", "cs"), ("midgame", "hand", "cs"),
    ("discard", "hand", "cs"),
    ("xanros", "battle", "en"), ("xanros", "hand", "en"),
    ("crowded", "table", "en"), ("crowded", "table", "cs"), ("crowded", "battle", "fr"),
)

#: Names of the tournament pictures' sample standings: whole, long, with diacritics, an emoji, a
#: name with nothing the font draws, a dropped player, a bye and two places the lot decided.
TOURNAMENT_NAMES = ("Kateřina Nov", "François-Xavier Dupont-Aignan", "Bob 🎲", "Ödön Szőllős",
                    "Žofie", "🏆🏆", "Wojciech Wój", "Přemysl Otakar II.", "Zoë")
TOURNAMENT_LINES = tuple(
    StandingLine(place=i + 1, name=name, points=17 - 2 * i + 2 * (i == 3),
                 opponents=40 - 3 * i + 3 * (i == 3), wins=max(0, 3 - i // 3) + (i == 3),
                 dropped=i in (4, 7), bye=i == 8, by_lot=i in (2, 3))
    for i, name in enumerate(TOURNAMENT_NAMES))

#: Pictures drawn from sample data instead of a scenario's observation: kind -> draw(locale).
SAMPLES: dict[str, Callable[[str], bytes]] = {
    "standings": lambda lc: standings_image(TOURNAMENT_LINES, "Zimní turnaj – Karak Goblin Cup",
                                            3, 4, lc),
    "champion": lambda lc: champion_image(TOURNAMENT_LINES, "Winter Cup", 4, 13, lc),
}
CASES += tuple(("tournament", kind, lc) for kind in SAMPLES for lc in ("en", "fr", "cs"))


def golden_path(scenario: str, kind: str, locale: str = "en") -> Path:
    """Where the golden of ``kind`` for ``scenario`` in ``locale`` is stored."""
    suffix = "" if locale == "en" else f"-{locale}"
    return GOLDEN_DIR / f"{scenario}-{kind}{suffix}.png"


def render_case(scenario: str, kind: str, locale: str = "en") -> bytes:
    """Draw picture ``kind`` of ``scenario`` in ``locale`` (PNG bytes)."""
    if kind in SAMPLES:
        return SAMPLES[kind](locale)
    return DRAW[kind](scene(scenario).observation(), locale)


@dataclass(frozen=True)
class Difference:
    """How two pictures differ: mean absolute difference and the share of clearly changed pixels."""

    mean: float
    changed: float  # fraction of pixels with a channel differing by more than STRONG
    same_size: bool

    def within(self) -> bool:
        """True when the pictures count as the same (within the golden tolerance)."""
        return self.same_size and self.mean <= TOLERANCE and self.changed <= CHANGED_SHARE

    def __str__(self) -> str:
        if not self.same_size:
            return "different sizes"
        return f"mean diff {self.mean:.3f}, {self.changed * 100:.3f}% pixels changed"


def difference(a: Image.Image, b: Image.Image) -> Difference:
    """Compare two pictures pixel by pixel."""
    if a.size != b.size:
        return Difference(float("inf"), 1.0, False)
    diff = ImageChops.difference(a.convert("RGB"), b.convert("RGB"))
    mean = float(sum(ImageStat.Stat(diff).mean) / 3)
    r, g, bl = diff.split()
    worst = ImageChops.lighter(ImageChops.lighter(r, g), bl)
    changed = sum(worst.point(lambda v: 255 if v > STRONG else 0).histogram()[255:])
    return Difference(mean, changed / (a.width * a.height), True)


def main(argv: list[str] | None = None) -> int:
    """Regenerate (default) or check the goldens."""
    parser = argparse.ArgumentParser(prog="python -m render.goldens", description=__doc__)
    parser.add_argument("--check", action="store_true", help="only compare, write nothing")
    args = parser.parse_args(argv)
    GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
    differ = 0
    for scenario, kind, locale in CASES:
        path = golden_path(scenario, kind, locale)
        png = render_case(scenario, kind, locale)
        if args.check:
            if not path.exists():
                print(f"missing  {path.name}")
                differ += 1
                continue
            d = difference(Image.open(io.BytesIO(png)), Image.open(path))
            status = "ok" if d.within() else "DIFFERS"
            differ += not d.within()
            print(f"{status:8} {path.name}  {d}")
        else:
            path.write_bytes(png)
            print(f"wrote {path} ({len(png) // 1024} KB)")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
