"""Server tournaments: rounds of tables seated by standing, points by place, tie-breaks, byes,
drops, and the champion. Pure rules, no I/O: every step takes a :class:`Tournament` and returns
a new one.

The rules, as the players read them (the texts ``bot.tournament.*_rule`` say the same):

- **Rounds.** A tournament plays the number of rounds it was set to, or as many as its entrants
  need: ``ceil(log2(n))`` rounds for ``n`` entrants, the way Swiss events size themselves, and
  at least :data:`MIN_ROUNDS`. It ends early when fewer than two players are left.
- **Tables.** Each round seats the players still in. Table size 4: tables of 4 and 3, as few
  tables as possible, the full ones on top (7 → 4+3, 8 → 4+4, 9 → 3+3+3, 10 → 4+3+3,
  13 → 4+3+3+3); a 2-seat table only where the count forces it (2 players; 5 → 3+2). Table
  size 3: tables of 3; two players left over play at a 2-seat table (8 → 3+3+2), one left over
  has a bye (7 → 3+3 and a bye): the lowest-standing player who has not had a bye yet (the
  lowest-standing of all when everyone has). When AI seats fill short tables, every table has
  the chosen size, the players spread as evenly as they go and AI seats take the empty seats
  (5 at size 4 → 3 players and one AI seat, 2 players and two AI seats); nobody has a bye then.
- **Seating by standing.** The first round seats players by rating, the later ones by points;
  ties are broken by the tie-breaks, then by rating, then by lot (the round's seed). The
  seating keeps to a minimum the pairs of players at one table who have met before, then the
  spread of points at the tables: up to :data:`EXHAUSTIVE` players every seating is tried;
  beyond, tables are filled top down (the best player left opens a table and takes the best
  players left who have not met anyone at it), then players are swapped between nearby tables
  while a swap lowers the cost. The same standings and seed always give the same seating.
- **Points by place.** 4 seats: 5/3/2/1; 3 seats: 5/3/1; 2 seats: 5/1 (:data:`POINTS`). AI
  seats count as seats and take places, but earn nothing. Seats level in the result share the
  place, as the game's results say (1, 2, 2, 4): each gets the points of that shared place.
- **Bye.** A bye is worth the points of a win at a 3-seat table (:data:`BYE_POINTS`); it is
  not a win and meets no opponents.
- **Tie-breaks.** Opponents' points (the sum of the current points of every player met, once
  per table shared), then wins (first places, shared ones too), then rating, and last the lot
  (drawn once from the tournament's seed, :func:`lots`): no two players share a place in the
  standings, and the champion is the first of them. A line placed by the lot says so.
- **Drops.** A dropped player is seated in no later round; they keep their points and stay in
  the standings, marked as dropped.
- **Deadline.** A table unfinished when the round's time runs out is decided by the standings
  of its match at that moment, ranked as a finished match is (:func:`deadline_result`): more
  keys first, then more hit points; seats level share a place.
- **Abandoning.** A match abandoned (``/goblin abandon``) is decided as it stands, as at the
  deadline, except that a player who abandons their own match forfeits it: last place
  (:func:`forfeited`), rated or not, as a rated match abandoned ranks its abandoner.
- **Leaving.** A player who leaves their match to the AI (``/goblin leave``, their turn timer
  running out for good, or forgotten on request) forfeits it too, however the AI plays their
  seat: last place, as the ratings rank a person who left.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import combinations
from typing import Literal

from bot.storage.records import TableResult, places
from engine import GameState
from engine.agents import LEVELS, AiLevel

#: Points of each place (1st first) by the number of seats at the table.
POINTS: dict[int, tuple[int, ...]] = {2: (5, 1), 3: (5, 3, 1), 4: (5, 3, 2, 1)}
#: A bye is worth a win at a 3-seat table.
BYE_POINTS = POINTS[3][0]
#: The fewest rounds a tournament sized by its entrants plays.
MIN_ROUNDS = 3
#: How many tables down a player may be swapped while the seating is improved.
SWAP_REACH = 3
#: Up to this many players, every seating is tried (2,100 at most, for 10 players).
EXHAUSTIVE = 10

TableSize = Literal[3, 4]


@dataclass(frozen=True, slots=True)
class Settings:
    """How a tournament is played: its ``name``, its number of ``rounds`` (None: as many as the
    entrants need, :func:`rounds_needed`), its ``table_size`` (3 or 4 seats) and the level of
    the AI seats that fill short tables (``ai_level``; None: no AI seats, short tables and
    byes instead)."""

    name: str
    rounds: int | None = None
    table_size: TableSize = 4
    ai_level: AiLevel | None = None

    def __post_init__(self) -> None:
        if self.rounds is not None and self.rounds < 1:
            raise ValueError(f"a tournament plays one round at least, not {self.rounds}")
        if self.table_size not in (3, 4):
            raise ValueError(f"tables have 3 or 4 seats, not {self.table_size}")
        if self.ai_level is not None and self.ai_level not in LEVELS:
            raise ValueError(f"unknown AI level {self.ai_level!r}")


@dataclass(frozen=True, slots=True)
class Entrant:
    """A player who entered: their user id, their name and their rating when they entered."""

    user: int
    name: str
    rating: int


@dataclass(frozen=True, slots=True)
class Pod:
    """One table of a round: its number (1: the top table), its players (best standing first)
    and the AI seats that fill it."""

    table: int
    players: tuple[int, ...]
    ai_seats: int = 0

    @property
    def seats(self) -> int:
        """How many seats the table has, AI seats included."""
        return len(self.players) + self.ai_seats


@dataclass(frozen=True, slots=True)
class Seating:
    """How a round is seated: its number (1 for the first), the seed it was drawn with, its
    tables and the player with a bye (None: nobody)."""

    round: int
    seed: int
    pods: tuple[Pod, ...]
    bye: int | None = None

    def pod_of(self, user: int) -> Pod | None:
        """The table ``user`` sits at this round (None: a bye, or not seated)."""
        return next((p for p in self.pods if user in p.players), None)


@dataclass(frozen=True, slots=True)
class PodResult:
    """How one table of a round ended: the place of each player seated at it, as
    ``(user, place)`` pairs (AI seats take places too, so the places of the players may skip
    some), and whether the round's deadline decided it."""

    table: int
    places: tuple[tuple[int, int], ...]
    at_deadline: bool = False


@dataclass(frozen=True, slots=True)
class Round:
    """A round: its seating and the results of its tables so far."""

    seating: Seating
    results: tuple[PodResult, ...] = ()

    @property
    def finished(self) -> bool:
        """True when every table of the round has a result."""
        return len(self.results) == len(self.seating.pods)

    def result_of(self, table: int) -> PodResult | None:
        """The result of table ``table`` (None while it plays)."""
        return next((r for r in self.results if r.table == table), None)


@dataclass(frozen=True, slots=True)
class Tournament:
    """A tournament: its settings, its entrants, the rounds seated so far, the players who
    dropped, as ``(user, rounds seated before the drop)`` pairs, and its ``seed`` (the lot that
    orders players level on points and every tie-break is drawn from it)."""

    settings: Settings
    entrants: tuple[Entrant, ...]
    rounds: tuple[Round, ...] = ()
    dropped: tuple[tuple[int, int], ...] = ()
    seed: int = 0

    def __post_init__(self) -> None:
        users = [e.user for e in self.entrants]
        if len(set(users)) != len(users):
            raise ValueError("a player entered twice")


@dataclass(frozen=True, slots=True)
class Standing:
    """One line of the standings: the ``place`` (one player each), the player, their
    ``points``, the tie-breaks (``opponents``: opponents' points; ``wins``), the tables they
    played, their byes, whether they dropped and whether the lot placed them (``by_lot``: level
    with a neighbour on points and every tie-break)."""

    place: int
    user: int
    name: str
    rating: int
    points: int
    opponents: int
    wins: int
    played: int
    byes: int
    dropped: bool
    by_lot: bool = False


@dataclass(frozen=True, slots=True)
class Split:
    """How a count of players is seated: the players at each table (full tables first), the
    seats of each table (AI seats fill the difference) and how many players get a bye."""

    players: tuple[int, ...]
    seats: tuple[int, ...]
    byes: int = 0


def rounds_needed(entrants: int) -> int:
    """The rounds a tournament of ``entrants`` plays when not set: ``ceil(log2(entrants))``,
    and :data:`MIN_ROUNDS` at least."""
    return max(MIN_ROUNDS, (max(1, entrants) - 1).bit_length())


def total_rounds(tournament: Tournament) -> int:
    """The rounds ``tournament`` plays (it may end sooner when players drop)."""
    return tournament.settings.rounds or rounds_needed(len(tournament.entrants))


def split(count: int, table_size: int, ai_fill: bool = False) -> Split:
    """How ``count`` players sit at tables of ``table_size`` (the rule is in the module's
    docstring); ``ai_fill``: AI seats fill short tables."""
    if count < 2:
        raise ValueError(f"a round seats two players at least, not {count}")
    tables = -(-count // table_size)
    if ai_fill:
        base, extra = divmod(count, tables)
        players = tuple(base + 1 if i < extra else base for i in range(tables))
        return Split(players, (table_size,) * tables)
    if table_size == 4:
        if 3 * tables <= count:
            full = count - 3 * tables
            players = (4,) * full + (3,) * (tables - full)
        else:  # 2 or 5 players
            players = (3, 2) if count == 5 else (count,)
        return Split(players, players)
    full, left = divmod(count, table_size)
    if left == 1:  # one player left over: a bye
        return Split((table_size,) * full, (table_size,) * full, byes=1)
    players = (table_size,) * full + ((left,) if left else ())
    return Split(players, players)


def points_for(place: int, seats: int) -> int:
    """The points of ``place`` (1: first) at a table of ``seats`` seats."""
    return POINTS[seats][place - 1]


# ---------------------------------------------------------------- standings


def _entrant(tournament: Tournament, user: int) -> Entrant:
    """The entrant ``user``."""
    for e in tournament.entrants:
        if e.user == user:
            return e
    raise KeyError(f"{user} did not enter")


def dropped_users(tournament: Tournament) -> frozenset[int]:
    """The players who dropped."""
    return frozenset(user for user, _ in tournament.dropped)


def active(tournament: Tournament) -> tuple[int, ...]:
    """The players still in (not dropped), in the order they entered."""
    gone = dropped_users(tournament)
    return tuple(e.user for e in tournament.entrants if e.user not in gone)


def _tables(tournament: Tournament) -> Iterable[tuple[Pod, PodResult]]:
    """Every table with a result, with it."""
    for rnd in tournament.rounds:
        for result in rnd.results:
            pod = next(p for p in rnd.seating.pods if p.table == result.table)
            yield pod, result


def lots(tournament: Tournament) -> dict[int, float]:
    """The lot of each entrant, drawn once from the tournament's seed: of players level on
    points and every tie-break, the lower lot ranks first."""
    draw = random.Random(f"{tournament.seed}:lot")
    return {user: draw.random() for user in sorted(e.user for e in tournament.entrants)}


def standings(tournament: Tournament) -> tuple[Standing, ...]:
    """The standings as they are now: by points, then opponents' points, then wins, then
    rating, then the lot (:func:`lots`); one place each."""
    points = {e.user: 0 for e in tournament.entrants}
    wins = dict.fromkeys(points, 0)
    played = dict.fromkeys(points, 0)
    byes = dict.fromkeys(points, 0)
    met: dict[int, list[int]] = {u: [] for u in points}
    for pod, result in _tables(tournament):
        for user, place in result.places:
            points[user] += points_for(place, pod.seats)
            wins[user] += place == 1
            played[user] += 1
            met[user] += [u for u in pod.players if u != user]
    for rnd in tournament.rounds:
        if rnd.seating.bye is not None:
            points[rnd.seating.bye] += BYE_POINTS
            byes[rnd.seating.bye] += 1
    opponents = {u: sum(points[o] for o in met[u]) for u in points}
    gone = dropped_users(tournament)

    def key(e: Entrant) -> tuple[int, int, int, int]:
        return (-points[e.user], -opponents[e.user], -wins[e.user], -e.rating)

    lot = lots(tournament)
    ordered = sorted(tournament.entrants, key=lambda e: (key(e), lot[e.user]))
    keys = [key(e) for e in ordered]
    return tuple(
        Standing(place=i + 1, user=e.user, name=e.name, rating=e.rating,
                 points=points[e.user], opponents=opponents[e.user], wins=wins[e.user],
                 played=played[e.user], byes=byes[e.user], dropped=e.user in gone,
                 by_lot=keys.count(keys[i]) > 1)
        for i, e in enumerate(ordered))


def is_over(tournament: Tournament) -> bool:
    """True when the last round is played, or no round can be seated any more (fewer than two
    players left) and none is under way."""
    if tournament.rounds and not tournament.rounds[-1].finished:
        return False
    return len(tournament.rounds) >= total_rounds(tournament) or len(active(tournament)) < 2


def champion(tournament: Tournament) -> Standing | None:
    """The first in the final standings (None while the tournament goes on, or when nobody
    entered)."""
    if not is_over(tournament) or not tournament.entrants:
        return None
    return standings(tournament)[0]


# ---------------------------------------------------------------- seating


def seating_order(tournament: Tournament, seed: int) -> list[int]:
    """The players still in, best first: by rating before the first round, by the standings
    after it (points, tie-breaks, rating); players level on all of them in an order drawn from
    ``seed``."""
    lot = random.Random(seed)
    draw = {u: lot.random() for u in sorted(active(tournament))}
    if not tournament.rounds:
        rating = {e.user: e.rating for e in tournament.entrants}
        return sorted(draw, key=lambda u: (-rating[u], draw[u]))
    line = {s.user: (-s.points, -s.opponents, -s.wins, -s.rating)
            for s in standings(tournament)}
    return sorted(draw, key=lambda u: (line[u], draw[u]))


def _met_pairs(tournament: Tournament) -> set[frozenset[int]]:
    """Every pair of players who have sat at one table (played or under way)."""
    pairs: set[frozenset[int]] = set()
    for rnd in tournament.rounds:
        for pod in rnd.seating.pods:
            pairs.update(frozenset((a, b)) for i, a in enumerate(pod.players)
                         for b in pod.players[i + 1:])
    return pairs


def _pick_bye(tournament: Tournament, order: list[int]) -> int:
    """The player with this round's bye: the lowest in ``order`` without a bye yet (the lowest
    of all when everybody had one)."""
    had = {r.seating.bye for r in tournament.rounds}
    return next((u for u in reversed(order) if u not in had), order[-1])


def _cost(table: Sequence[int], points: Mapping[int, int],
          met: set[frozenset[int]]) -> tuple[int, int]:
    """What a table costs the seating: its pairs of players who have met before, then the spread
    of their points."""
    repeats = sum(frozenset((a, b)) in met for i, a in enumerate(table) for b in table[i + 1:])
    scores = [points[u] for u in table]
    return repeats, max(scores) - min(scores)


def _total(tables: Iterable[Sequence[int]], points: Mapping[int, int],
           met: set[frozenset[int]]) -> tuple[int, int]:
    """The cost of a whole seating: repeated pairs, then the spread of points, summed."""
    costs = [_cost(t, points, met) for t in tables]
    return sum(c[0] for c in costs), sum(c[1] for c in costs)


def _seatings(players: Sequence[int], sizes: Sequence[int]) -> Iterable[list[list[int]]]:
    """Every way to seat ``players`` at tables of ``sizes`` (each way once), the first player at
    the first table; tables dealt in the players' order come first."""
    if not sizes:
        yield []
        return
    first, rest = players[0], players[1:]
    for size in sorted(set(sizes), reverse=True):
        others = list(sizes)
        others.remove(size)
        for mates in combinations(rest, size - 1):
            left = [u for u in rest if u not in mates]
            for tail in _seatings(left, others):
                yield [[first, *mates], *tail]


def _best_seating(order: Sequence[int], sizes: Sequence[int], points: Mapping[int, int],
                  met: set[frozenset[int]]) -> list[list[int]]:
    """The cheapest seating of all (for :data:`EXHAUSTIVE` players or fewer); of equally cheap
    ones, the first in the players' order."""
    return min(_seatings(order, sizes), key=lambda tables: _total(tables, points, met))


def _greedy(order: Sequence[int], sizes: Sequence[int],
            met: set[frozenset[int]]) -> list[list[int]]:
    """Tables filled top down: the best player left opens a table, which takes the best players
    left who have met none of it (the fewest of it when all have)."""
    left = list(order)
    tables = []
    for size in sorted(sizes, reverse=True):
        table = [left.pop(0)]
        while len(table) < size:
            pick = min(range(len(left)), key=lambda i: (
                sum(frozenset((left[i], u)) in met for u in table), i))
            table.append(left.pop(pick))
        tables.append(table)
    return tables


def _improve(tables: list[list[int]], points: Mapping[int, int],
             met: set[frozenset[int]]) -> None:
    """Swap players between tables up to :data:`SWAP_REACH` apart while a swap lowers the
    repeated pairs, then the spread of points, of the two tables (in place; deterministic)."""
    costs = [_cost(t, points, met) for t in tables]
    improved = True
    while improved:
        improved = False
        for i in range(len(tables)):
            for j in range(i + 1, min(len(tables), i + 1 + SWAP_REACH)):
                for a in range(len(tables[i])):
                    for b in range(len(tables[j])):
                        first, second = list(tables[i]), list(tables[j])
                        first[a], second[b] = second[b], first[a]
                        c1, c2 = _cost(first, points, met), _cost(second, points, met)
                        before = (costs[i][0] + costs[j][0], costs[i][1] + costs[j][1])
                        if (c1[0] + c2[0], c1[1] + c2[1]) < before:
                            tables[i], tables[j] = first, second
                            costs[i], costs[j] = c1, c2
                            improved = True


def seat_round(tournament: Tournament, seed: int) -> Tournament:
    """``tournament`` with its next round seated, drawn with ``seed`` (the rules are in the
    module's docstring)."""
    if tournament.rounds and not tournament.rounds[-1].finished:
        raise ValueError("the round under way is not finished")
    if is_over(tournament):
        raise ValueError("the tournament is over")
    order = seating_order(tournament, seed)
    size = tournament.settings.table_size
    plan = split(len(order), size, tournament.settings.ai_level is not None)
    bye = _pick_bye(tournament, order) if plan.byes else None
    seated = [u for u in order if u != bye]
    points = {s.user: s.points for s in standings(tournament)}
    met = _met_pairs(tournament)
    if len(seated) <= EXHAUSTIVE:
        tables = _best_seating(seated, plan.players, points, met)
    else:
        tables = _greedy(seated, plan.players, met)
        _improve(tables, points, met)
    rank = {u: i for i, u in enumerate(order)}
    for t in tables:
        t.sort(key=rank.__getitem__)
    tables.sort(key=lambda t: rank[t[0]])
    fill = size if tournament.settings.ai_level is not None else 0
    pods = tuple(Pod(table=i + 1, players=tuple(t), ai_seats=max(0, fill - len(t)))
                 for i, t in enumerate(tables))
    seating = Seating(round=len(tournament.rounds) + 1, seed=seed, pods=pods, bye=bye)
    return replace(tournament, rounds=(*tournament.rounds, Round(seating)))


# ---------------------------------------------------------------- results and drops


def record(tournament: Tournament, result: PodResult) -> Tournament:
    """``tournament`` with the result of one table of the round under way."""
    if not tournament.rounds:
        raise ValueError("no round is seated")
    rnd = tournament.rounds[-1]
    pod = next((p for p in rnd.seating.pods if p.table == result.table), None)
    if pod is None:
        raise ValueError(f"round {rnd.seating.round} has no table {result.table}")
    if rnd.result_of(result.table) is not None:
        raise ValueError(f"table {result.table} already has its result")
    if sorted(u for u, _ in result.places) != sorted(pod.players):
        raise ValueError(f"table {result.table} seats {pod.players}, not the players given")
    if any(not 1 <= place <= pod.seats for _, place in result.places):
        raise ValueError(f"a place beyond the {pod.seats} seats of table {result.table}")
    done = replace(rnd, results=(*rnd.results, result))
    return replace(tournament, rounds=(*tournament.rounds[:-1], done))


def result_of_table(table: int, result: TableResult) -> PodResult:
    """A table's result from its match's result (finished or abandoned: :mod:`bot.game.results`
    says who placed where, the one who abandoned last): the place of each person seated."""
    return PodResult(table, tuple((s.user_id, s.place) for s in result.seats
                                  if s.user_id is not None))


def deadline_result(table: int, seat_users: Sequence[int | None],
                    state: GameState, left: Collection[int] = ()) -> PodResult:
    """A table's result when the round's deadline stops its match at ``state``: each seat
    placed as a finished match places it (the winner first, if any, then more keys, then more
    hit points; seats level share a place), the seats whose people ``left`` the match to the
    AI last (:func:`forfeited`). ``seat_users``: the user of each seat of the match (None: an
    AI seat)."""
    ranks = forfeited(places(state), left)
    if len(ranks) != len(seat_users):
        raise ValueError(f"the match has {len(ranks)} seats, not {len(seat_users)}")
    return PodResult(table, tuple((u, p) for u, p in zip(seat_users, ranks, strict=True)
                                  if u is not None), at_deadline=True)


def result_places(result: TableResult) -> tuple[int, ...]:
    """The places (in seat order) a tournament gives the seats of its match's ``result``: its
    places, those whose people left it to the AI last (:func:`forfeited`), however the AI
    played their seat."""
    return forfeited(tuple(s.place for s in sorted(result.seats, key=lambda s: s.seat)),
                     {s.seat for s in result.seats if s.handed_to_ai})


def forfeited(ranks: Sequence[int], seats: Collection[int]) -> tuple[int, ...]:
    """The places of a match forfeited by the people at ``seats`` (who abandoned it, or left
    it to the AI: their seat played by the AI to its end), from ``ranks``, its places as it
    stands or ended: they are last (in the order they stood among themselves), the others keep
    their order (those level still share a place), as the ratings rank a match abandoned or
    left."""
    if not seats:
        return tuple(ranks)
    order = [(i in seats, rank) for i, rank in enumerate(ranks)]
    return tuple(1 + sum(other < mine for other in order) for mine in order)


def drop(tournament: Tournament, user: int) -> Tournament:
    """``tournament`` with ``user`` dropped: seated in no later round (a table they sit at now
    plays on), kept in the standings."""
    _entrant(tournament, user)
    if user in dropped_users(tournament):
        return tournament
    return replace(tournament, dropped=(*tournament.dropped, (user, len(tournament.rounds))))


def start(settings: Settings, entrants: Iterable[Entrant], seed: int = 0) -> Tournament:
    """A tournament with its entrants and no round yet (``seed``: its lot, :func:`lots`)."""
    return Tournament(settings, tuple(entrants), seed=seed)


__all__ = [
    "BYE_POINTS", "EXHAUSTIVE", "MIN_ROUNDS", "POINTS", "Entrant", "Pod", "PodResult", "Round",
    "Seating", "Settings", "Split", "Standing", "TableSize", "Tournament", "active", "champion",
    "deadline_result", "drop", "dropped_users", "forfeited", "is_over", "lots", "points_for",
    "record", "result_of_table", "result_places", "rounds_needed", "seat_round",
    "seating_order", "split", "standings", "start", "total_rounds",
]
