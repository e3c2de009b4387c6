"""Print the narration of seeded games in one language, to read the sentences players get.

    python scripts/narrate.py --locale fr --seed 3 --players 3 --agent heuristic

Every event of the game, private ones too, is translated in order.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import rng  # noqa: E402
from engine.agents import make_agent  # noqa: E402
from engine.observe import observe  # noqa: E402
from engine.rules import apply  # noqa: E402
from engine.setup import new_game  # noqa: E402
from engine.simulate import HEROES  # noqa: E402
from engine.state import GameConfig, Phase, SeatConfig  # noqa: E402
from i18n import LOCALES, translate  # noqa: E402


def narrate(seed: int, players: int, agent: str, locale: str, abilities: bool = True,
            cap: int = 400) -> list[str]:
    """The translated events of one seeded game between ``agent`` players, in order."""
    drawn, _ = rng.shuffled(rng.seed_state(seed ^ 0xC0FFEE), HEROES)
    config = GameConfig(seats=tuple(SeatConfig(h, ai=True) for h in drawn[:players]),
                        abilities=abilities, seed=seed)
    state = new_game(config)
    lines = [translate(e.text, locale) for e in state.log]
    agents = [make_agent(agent, seed * 8 + i) for i in range(players)]
    while state.phase is not Phase.OVER and state.step < cap:
        state, events = apply(state, agents[state.current].choose(observe(state, state.current)))
        lines += [translate(e.text, locale) for e in events]
    return lines


def main(argv: list[str] | None = None) -> int:
    """Print the narration of the games asked for."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locale", choices=LOCALES, default="fr")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--players", type=int, choices=(2, 3, 4), default=3)
    parser.add_argument("--agent", choices=("heuristic", "random"), default="heuristic")
    args = parser.parse_args(argv)
    for seed in range(args.seed, args.seed + args.games):
        print(f"# seed {seed}")
        for line in narrate(seed, args.players, args.agent, args.locale):
            print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
