"""Regenerate the golden playthroughs in ``tests/golden`` (OpenSpiel style).

    .venv/bin/python scripts/golden.py          # rewrite every golden file
    .venv/bin/python scripts/golden.py --check  # only say whether they are up to date

Each file records a few seeded games played by the uniformly random agent (``make_agent("random")``,
which knows nothing of the game, so tuning the other agents never changes these files), step by
step: a compact summary of the position, the sorted legal actions and the action chosen.
``tests/test_golden.py`` replays them and compares line by line, so any change in the rules, the
setup or the random generator shows up as a diff. The header carries a hash of the catalogue
data (``cards/data/*.toml``), so a mismatch caused by re-tuned card values says so.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from engine import (  # noqa: E402
    GameConfig,
    GameState,
    Phase,
    SeatConfig,
    apply,
    legal_actions,
    new_game,
    observe,
)
from engine.agents import make_agent  # noqa: E402
from engine.catalog import tables  # noqa: E402

GOLDEN = ROOT / "tests" / "golden"
CARD_DATA = ROOT / "cards" / "data"
STEPS = 150
COMMAND = ".venv/bin/python scripts/golden.py"


@dataclass(frozen=True)
class Game:
    """One golden game: its file name, the table and how many steps to record."""

    name: str
    heroes: tuple[str, ...]
    abilities: bool
    seed: int
    steps: int = STEPS

    @property
    def config(self) -> GameConfig:
        """The game's configuration."""
        return GameConfig(seats=tuple(SeatConfig(h, ai=True) for h in self.heroes),
                          abilities=self.abilities, seed=self.seed)

    @property
    def path(self) -> Path:
        """Where the golden file lives."""
        return GOLDEN / f"{self.name}.txt"


GAMES = (
    Game("two_seats_plain", ("horan", "taia"), abilities=False, seed=11),
    Game("three_seats_abilities", ("xanros", "argentus", "aderyn"), abilities=True, seed=22),
    Game("four_seats_abilities", ("victorius", "taia", "horan", "xanros"), abilities=True,
         seed=33),
)


def catalogue_hash() -> str:
    """A short hash of the catalogue data files (names and bytes)."""
    h = hashlib.sha256()
    for path in sorted(CARD_DATA.glob("*.toml")):
        h.update(path.name.encode())
        h.update(b"\0")
        h.update(path.read_bytes().replace(b"\r\n", b"\n"))
        h.update(b"\0")
    return h.hexdigest()[:16]


def header(game: Game) -> list[str]:
    """The header lines of a golden file."""
    mode = "on" if game.abilities else "off"
    return [
        f"# Golden playthrough {game.name}: regenerate with `{COMMAND}` if a change is intended.",
        f"# table: heroes={','.join(game.heroes)} abilities={mode} seed={game.seed}"
        f" agent=random steps={game.steps}",
        f"# catalogue: {catalogue_hash()}",
    ]


def summary(state: GameState) -> str:
    """A compact, deterministic description of a position (public and private parts)."""
    t = tables()
    seats = []
    for i, s in enumerate(state.seats):
        keys = "".join(str(t.monsters[k].level) for k in sorted(s.keys)) or "-"
        gear = f"{s.weapon or '-'}/{s.armour or '-'}"
        potions = "".join(p[0] for p in sorted(s.potions)) or "-"
        seats.append(f"s{i}:{s.hero[:3]} hp{s.hp} hand{len(s.hand)} deck{len(s.deck)}"
                     f" disc{len(s.discard)} keys{keys} eq{gear} pot{potions}")
    rows = " ".join(
        f"L{n}[{' '.join(c or '.' for c in lv.row)}|{len(lv.deck)}|g{len(lv.gates)}]"
        for n, lv in enumerate(state.levels, start=1)
    )
    b = state.battle
    battle = "-" if b is None else (
        f"{b.monster}@{b.level}-{b.slot} chain[{' '.join(b.chain)}]"
        + (f" counter:{b.countered}" if b.countered else "")
        + (f" boost{list(b.boosted)}" if b.boosted else "")
        + (" ability" if b.ability_used else "")
        + (f" drawn[{' '.join(b.drawn)}]" if b.drawn else "")
    )
    return "\n".join([
        f"  phase={state.phase.value} seat={state.current} round={state.round}"
        f" winner={'-' if state.winner is None else state.winner}",
        "  " + " | ".join(seats),
        f"  {rows} lord={state.lord} pawnshop[{' '.join(state.pawnshop)}]"
        f" potions={'/'.join(map(str, state.potions))}",
        f"  battle={battle} pending={state.pending or '-'}",
    ])


def play(game: Game) -> list[str]:
    """The golden file's lines for ``game``, played now by the current engine."""
    lines = header(game)
    state = new_game(game.config)
    agents = [make_agent("random", game.seed * 8 + i) for i in range(len(game.heroes))]
    lines.append(f"order={','.join(map(str, state.order))}")
    for _ in range(game.steps):
        lines.append(f"step {state.step}")
        lines.extend(summary(state).split("\n"))
        legal = sorted(str(a) for a in legal_actions(state))
        lines.append(f"  legal: {' '.join(legal)}")
        if state.phase is Phase.OVER:
            break
        action = agents[state.current].choose(observe(state, state.current))
        lines.append(f"  chosen: {action}")
        state, _ = apply(state, action)
    lines.append(f"end step {state.step}")
    lines.extend(summary(state).split("\n"))
    return lines


def main(argv: list[str] | None = None) -> int:
    """Rewrite (or with --check, verify) every golden file."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="only report stale files")
    args = parser.parse_args(argv)
    GOLDEN.mkdir(parents=True, exist_ok=True)
    stale = 0
    for game in GAMES:
        text = "\n".join(play(game)) + "\n"
        old = game.path.read_text(encoding="utf-8") if game.path.exists() else None
        if old == text:
            print(f"{game.path.relative_to(ROOT)}: up to date")
            continue
        stale += 1
        if args.check:
            print(f"{game.path.relative_to(ROOT)}: stale")
        else:
            game.path.write_text(text, encoding="utf-8")
            print(f"{game.path.relative_to(ROOT)}: written ({text.count(chr(10))} lines)")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
