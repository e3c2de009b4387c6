"""Try a catalogue change on one hero before committing it: that hero's win share, paired with
the unchanged catalogue on the same seeds, with hero abilities on and off.

    .venv/bin/python scripts/balance_try.py --hero taia --games 1000 --baseline \\
        --set tai4.defence= --set tai4.draw=2 --set lords.toml:lord-1.curses=armour

Each ``--set FILE:ID.FIELD=VALUE`` edits a copy of ``cards/data`` (FILE defaults to
``heroes.toml``; FIELD ``reward.X`` edits a monster's back; an empty VALUE removes the field;
``next`` and ``curses`` take a comma list). The copy is validated like the real catalogue, so a
change that breaks its structure (``docs/rules.md``) is refused with the loader's message. Every
game seats ``--hero`` with three other heroes drawn from the seed (the same tables
``docs/balance.md`` plays, conditioned on the hero), 4 seats, heuristic self-play; ``--hero all``
seats heroes as ``docs/balance.md`` does and prints every hero's share. A share is printed with
its standard error; ``--baseline`` plays the unchanged catalogue on the same seeds first, so the
difference is paired. The committed report is still ``python -m engine.balance``; this is the
quick loop that finds what to commit.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import shutil
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import cards.loader  # noqa: E402
from engine import rng as game_rng  # noqa: E402
from engine.catalog import tables  # noqa: E402
from engine.simulate import HEROES, play_game  # noqa: E402

LIST_FIELDS = ("next", "curses")
ALL = "all"  # --hero all: every hero's share, heroes seated as in docs/balance.md


@dataclass(frozen=True)
class Change:
    """One ``--set``: a field of the entry ``card`` in the data file ``file`` (None removes it)."""

    file: str
    card: str
    field: str
    value: int | str | list[str] | None


def parse_change(text: str) -> Change:
    """Read ``FILE:ID.FIELD=VALUE`` (FILE optional, VALUE empty to remove the field)."""
    match = re.fullmatch(r"(?:([\w.-]+\.toml):)?([\w-]+)\.((?:reward\.)?\w+)=(.*)",
                         text.strip())
    if not match:
        raise ValueError(f"--set {text!r}: expected FILE:ID.FIELD=VALUE, e.g. tai4.draw=2")
    file, card, name, raw = match.groups()
    value: int | str | list[str] | None
    if raw == "":
        value = None
    elif name.removeprefix("reward.") in LIST_FIELDS:
        value = [v.strip() for v in raw.split(",") if v.strip()]
    elif re.fullmatch(r"-?\d+", raw):
        value = int(raw)
    else:
        value = raw
    return Change(file or "heroes.toml", card, name, value)


def apply_changes(folder: Path, changes: list[Change]) -> None:
    """Edit the data files in ``folder`` in place: each entry's ``key = value`` lines."""
    for change in changes:
        path = folder / change.file
        if not path.is_file():
            raise ValueError(f"--set: no data file {change.file!r}")
        text = path.read_text(encoding="utf-8")
        card = re.escape(change.card)
        entry = re.search(rf'\nid = "{card}"\n(.*?)(?=\n\[|\n\n|\Z)', text, re.S)
        if entry is None:
            raise ValueError(f"--set: no card {change.card!r} in {change.file}")
        field = change.field
        if field.startswith("reward."):  # the monster's back: the table right under its entry
            field = field.removeprefix("reward.")
            entry = re.compile(r"\n\[monster\.reward\]\n(.*?)(?=\n\[|\n\n|\Z)", re.S).match(
                text, entry.end(1))
            if entry is None:
                raise ValueError(f"--set: card {change.card!r} has no reward table")
        fields = dict(line.split(" = ", 1) for line in entry.group(1).splitlines()
                      if " = " in line)
        if change.value is None:
            fields.pop(field, None)
        else:
            fields[field] = json.dumps(change.value)
        body = "\n".join(f"{k} = {v}" for k, v in fields.items())
        path.write_text(text[:entry.start(1)] + body + text[entry.end(1):], encoding="utf-8")


def _use_catalogue(folder: str) -> None:
    """Point this process at the catalogue in ``folder`` (a worker's initializer)."""
    cards.loader.DATA = Path(folder)
    cards.loader.load_catalogue.cache_clear()
    tables.cache_clear()


def play(seed: int, hero: str, abilities: bool) -> tuple[tuple[str, ...], str | None, int]:
    """One 4-seat heuristic game with ``hero`` seated: the heroes, the winner and the rounds.
    With ``hero`` "all" the heroes are drawn as ``docs/balance.md`` draws them."""
    seats: tuple[str, ...] | None = None  # play_game draws the heroes from the seed
    if hero != ALL:
        others, state_rng = game_rng.shuffled(game_rng.seed_state(seed ^ 0xC0FFEE),
                                              [h for h in HEROES if h != hero])
        seats = tuple(game_rng.shuffled(state_rng, [hero, *others[:3]])[0])
    game = play_game(seed, 4, "heuristic", abilities, heroes=seats)
    return game.heroes, None if game.winner is None else game.heroes[game.winner], game.rounds


def _batch(args: tuple[list[int], str, bool]) -> list[tuple[tuple[str, ...], str | None, int]]:
    seeds, hero, abilities = args
    return [play(s, hero, abilities) for s in seeds]


@dataclass(frozen=True)
class Shares:
    """Win shares of one batch: per hero (wins, games), games that hit the cap, mean rounds."""

    wins: dict[str, tuple[int, int]]
    unfinished: int
    rounds: float

    def share(self, hero: str) -> tuple[float, float]:
        """The hero's win share and its standard error, in percent."""
        won, games = self.wins.get(hero, (0, 0))
        if not games:
            return 0.0, 0.0
        p = won / games
        return 100 * p, 100 * math.sqrt(p * (1 - p) / games)


def run(folder: Path, hero: str, abilities: bool, games: int, seed: int,
        workers: int) -> Shares:
    """Play ``games`` games on the catalogue in ``folder`` and count the wins."""
    seeds = list(range(seed, seed + games))
    chunks = [seeds[i::workers * 4] for i in range(workers * 4)]
    with ProcessPoolExecutor(workers, initializer=_use_catalogue,
                             initargs=(str(folder),)) as pool:
        results = [r for part in pool.map(_batch, [(c, hero, abilities) for c in chunks if c])
                   for r in part]
    played: dict[str, int] = {}
    won: dict[str, int] = {}
    for seats, winner, _ in results:
        for h in seats:
            played[h] = played.get(h, 0) + 1
        if winner is not None:
            won[winner] = won.get(winner, 0) + 1
    return Shares({h: (won.get(h, 0), n) for h, n in played.items()},
                  sum(w is None for _, w, _ in results),
                  sum(r for _, _, r in results) / max(1, len(results)))


def describe(label: str, shares: Shares, hero: str) -> str:
    """One line: the hero's share with its error, then every other hero's share (with ``hero``
    "all": every hero's share and the widest standard error)."""
    if hero == ALL:
        error = max(shares.share(h)[1] for h in shares.wins)
        each = "  ".join(f"{h} {shares.share(h)[0]:.1f}" for h in HEROES if h in shares.wins)
        return f"  {label:<9} {each}  (± {error:.1f}; rounds {shares.rounds:.1f})"
    share, error = shares.share(hero)
    rest = "  ".join(f"{h} {shares.share(h)[0]:.1f}" for h in HEROES
                     if h != hero and h in shares.wins)
    extra = f", {shares.unfinished} unfinished" if shares.unfinished else ""
    return (f"  {label:<9} {hero} {share:5.1f}% ± {error:.1f}   ({rest};"
            f" rounds {shares.rounds:.1f}{extra})")


def main(argv: list[str] | None = None) -> int:
    """Parse the command line, build the changed catalogue, play and print the shares."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hero", choices=[*HEROES, ALL], required=True,
                        help="the hero always seated, or 'all' for the report's own seating")
    parser.add_argument("--set", dest="changes", action="append", default=[],
                        metavar="FILE:ID.FIELD=VALUE")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--modes", default="off,on", help="abilities off, on or both")
    parser.add_argument("--baseline", action="store_true",
                        help="also play the unchanged catalogue on the same seeds")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    try:
        changes = [parse_change(c) for c in args.changes]
    except ValueError as exc:
        parser.error(str(exc))
    with tempfile.TemporaryDirectory(prefix="karak-balance-") as tmp:
        changed = Path(tmp) / "data"
        shutil.copytree(cards.loader.DATA, changed)
        try:
            apply_changes(changed, changes)
            cards.loader.load_from(changed)  # refuse a catalogue the game would refuse
        except ValueError as exc:
            print(f"the changed catalogue is refused: {exc}", file=sys.stderr)
            return 2
        print(f"{args.hero}, {args.games} games from seed {args.seed}, 4 seats, heuristic;"
              f" changes: {' '.join(args.changes) or 'none'}")
        for mode in args.modes.split(","):
            started = time.perf_counter()
            print(f"abilities {mode}:")
            lines = []
            if args.baseline:
                base = run(cards.loader.DATA, args.hero, mode == "on", args.games, args.seed,
                           args.workers)
                lines.append(describe("unchanged", base, args.hero))
            new = run(changed, args.hero, mode == "on", args.games, args.seed, args.workers)
            lines.append(describe("changed", new, args.hero))
            if args.baseline:
                focus = HEROES if args.hero == ALL else (args.hero,)
                diffs = "  ".join(f"{h} {new.share(h)[0] - base.share(h)[0]:+.1f}" for h in focus)
                lines.append(f"  paired difference (pp): {diffs}")
            print("\n".join(lines) + f"  ({time.perf_counter() - started:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
