"""Creating a game from its configuration (R1-R6)."""

from __future__ import annotations

from engine import events, rng
from engine.actions import STACK_MODES
from engine.catalog import tables
from engine.names import seat_name
from engine.state import BASE_HAND, MAX_HP, GameConfig, GameState, Level, Phase, Seat
from i18n import msg


class ConfigError(ValueError):
    """A game configuration the rules do not allow (seat count, heroes, stacking mode)."""


def check_config(config: GameConfig) -> None:
    """Raise :class:`ConfigError` unless the configuration describes a legal table (R1, D5)."""
    heroes = [s.hero for s in config.seats]
    if not 2 <= len(heroes) <= 4:
        raise ConfigError(f"a table needs 2 to 4 seats, not {len(heroes)}")
    known = tables().hero_cards
    for h in heroes:
        if h not in known:
            raise ConfigError(f"unknown hero {h!r}")
    if len(set(heroes)) != len(heroes):
        raise ConfigError("each hero may be taken by one seat only")
    for s in config.seats:
        if s.stacking not in STACK_MODES:
            raise ConfigError(f"unknown stacking preference {s.stacking!r}")


def new_game(config: GameConfig) -> GameState:
    """Set up a new game: random seat order, shuffled caverns, a random Lord, dealt hands."""
    check_config(config)
    t = tables()
    state = rng.seed_state(config.seed)
    order, state = rng.shuffled(state, range(len(config.seats)))
    levels = []
    for level in (1, 2, 3):
        regular, state = rng.shuffled(state, t.regular[level])
        gates, state = rng.shuffled(state, t.gatekeepers[level])
        levels.append(Level(row=tuple(regular[:5]), deck=tuple(regular[5:]), gates=gates))
    pick, state = rng.below(state, len(t.lords))
    seats = []
    for sc in config.seats:
        deck, state = rng.shuffled(state, t.hero_cards[sc.hero])
        seats.append(Seat(hero=sc.hero, hp=MAX_HP, hand=deck[:BASE_HAND], deck=deck[BASE_HAND:],
                          stacking=sc.stacking))
    n = t.potions_per_kind
    game = GameState(
        config=config, rng=state, seats=tuple(seats), order=tuple(order), turn=0, round=1,
        levels=tuple(levels), lord=t.lords[pick], potions=(n, n, n), pawnshop=(),
        phase=Phase.TURN,
    )
    log = (events.start(msg(f"card.{game.lord}")), events.turn(seat_name(game, game.current), 1))
    from msgspec.structs import replace

    return replace(game, log=log)
