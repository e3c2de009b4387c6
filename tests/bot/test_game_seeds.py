"""A match's seed decides every card hidden in it: each seat's hand and deck, the cavern decks
below their tops, the gatekeepers' order and every later shuffle. The first table picture shows
the seat order and fifteen row cards, which pin the seed down among all the seeds that could have
been drawn; so the seeds the bot draws must be far too many to try one by one. With 2**31 of
them, a short C program finds a table's seed from its first picture in about a minute on one
core, and then knows every hand of the match. These tests hold the service to 63 bits (the
widest a signed 64-bit database column keeps), for a table's seed and for a tournament's, whose
rounds and tables are dealt from seeds made from it."""

from __future__ import annotations

from bot_helpers import Clock

from bot.game.service import GameService
from bot.game.tournaments import round_seed, table_seed
from bot.storage.sqlite import Store

GUILD, CHANNEL = 9, 500
#: The bits a seed is drawn with, and the fewest the widest of many draws should show.
BITS = 63
WIDE = BITS - 3  # one draw in eight is narrower: never forty of them


def _wide(seeds: list[int]) -> bool:
    """Whether ``seeds`` look drawn from :data:`BITS` bits: each fits a signed 64-bit column,
    and the widest reaches :data:`WIDE` bits."""
    return all(0 <= s < 2**BITS for s in seeds) and max(s.bit_length() for s in seeds) >= WIDE


async def test_a_table_s_seed_is_too_wide_to_find_from_its_first_table(
        store: Store, clock: Clock) -> None:
    service = GameService(store, clock=clock)  # the seeds the bot draws itself
    seeds = []
    for n in range(40):
        record = await service.lobby.create(guild_id=GUILD, channel_id=CHANNEL + n,
                                            host_id=100 + n, host_name=f"P{n}")
        seeds.append(record.seed)
    assert _wide(seeds), sorted(s.bit_length() for s in seeds)
    assert _wide([service.seeds() for _ in range(40)])  # a rematch's, a tournament's


async def test_a_tournament_s_seed_is_as_wide(store: Store, clock: Clock) -> None:
    service = GameService(store, clock=clock)
    seeds = []
    for n in range(40):
        record = await service.tournaments.create(guild_id=GUILD, channel_id=CHANNEL + n,
                                                  host_id=1, name=f"Cup {n}")
        seeds.append(record.seed)
    assert _wide(seeds), sorted(s.bit_length() for s in seeds)


def test_a_tournament_s_rounds_and_tables_are_dealt_from_seeds_as_wide() -> None:
    """A round's seed, and each of its tables' seeds, are made from the tournament's: they must
    not narrow it (the tables of a round dealt from 2**31 round seeds would be found as a
    table dealt from 2**31 seeds is)."""
    cup = 2**62 + 12_345
    rounds = [round_seed(cup, number) for number in range(1, 41)]
    assert _wide(rounds), sorted(s.bit_length() for s in rounds)
    tables = [table_seed(rounds[0], pod) for pod in range(1, 41)]
    assert _wide(tables), sorted(s.bit_length() for s in tables)
