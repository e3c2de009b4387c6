"""Write the three pictures of a mid-game position reached by simulated play.

Usage: ``python -m render.demo --seed S --out DIR [--seats N] [--locale en] [--suffix S]`` writes
``table.png``, ``battle.png`` and ``hand.png`` (the hand of the seat fighting) into DIR, in the
given language; ``--suffix=-fr`` names them ``table-fr.png``...

``python -m render.demo --out docs/images --all-locales`` rewrites every README screenshot at
once: the English pictures without a suffix, the others as ``table-fr.png``, ``table-cs.png``...
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from engine import observe
from i18n import LOCALES
from render import battle_image, hand_image, table_image
from render.positions import DEMO_SEED, NoPosition, battle_position


def write_demo(seed: int, out: Path, seats: int = 4, locale: str = "en",
               suffix: str = "") -> list[Path]:
    """Simulate a game from ``seed`` to a battle and write the three pictures into ``out`` in
    ``locale`` (file names end with ``suffix``)."""
    state, actions = battle_position(seed, seats=seats)
    obs = observe(state, state.current)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, draw in (("table", table_image), ("battle", battle_image), ("hand", hand_image)):
        path = out / f"{name}{suffix}.png"
        path.write_bytes(draw(obs, locale))
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(prog="python -m render.demo", description=__doc__)
    parser.add_argument("--seed", type=int, default=DEMO_SEED, help="game seed")
    parser.add_argument("--out", type=Path, required=True, help="folder to write into")
    parser.add_argument("--seats", type=int, default=4, choices=(2, 3, 4))
    parser.add_argument("--locale", default="en", choices=LOCALES,
                        help="language of the pictures")
    parser.add_argument("--suffix", default="",
                        help="appended to the file names, e.g. --suffix=-fr")
    parser.add_argument("--all-locales", action="store_true",
                        help="every language: English without a suffix, the others with -LOCALE "
                             "(the README's screenshots)")
    args = parser.parse_args(argv)
    jobs = ([(loc, "" if loc == "en" else f"-{loc}") for loc in LOCALES] if args.all_locales
            else [(args.locale, args.suffix)])
    try:
        paths = [p for loc, suffix in jobs
                 for p in write_demo(args.seed, args.out, args.seats, loc, suffix)]
    except NoPosition as exc:
        print(f"{exc}; try another --seed", file=sys.stderr)
        return 1
    for p in paths:
        print(f"{p} ({p.stat().st_size // 1024} KB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
