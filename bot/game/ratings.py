"""Per-server player ratings: how one finished match changes the ratings of the people in it.

Pure: openskill's Plackett-Luce model does every piece of rating arithmetic (with
``limit_sigma``, so a match never makes a rating less certain); this module only decides who
finished where, which seats take part, and how a rating is shown. Storage and messages are the
bot's.

Places. The champion comes first; the other seats follow by their progress, more keys first, then
more hit points left, and seats level on both share a place. A person who left the match, or
whose seat the AI took over after their timeouts, comes last whatever the seat reached. Ranking
by progress rather than tying everyone behind the champion: keys are the only road to the Lord,
so playing for keys is playing to win and the ranking never pulls anyone away from the game's
goal; each match says more about every seat, so ratings settle in fewer matches; and openskill
reads a shared place as a draw, in which the weaker player gains, so tying every loser would
raise the rating of a newcomer who lost behind stronger players. For the same reason two people
who both left are not compared with each other: each is rated as the only one who left, below
every seat that played to the end. So a person who left, or who finished below every other seat,
never sees their shown rating rise.

AI seats take part at a fixed rating per level (:data:`AI_RATINGS`) and are never updated. A
match with fewer than two people is not rated (:func:`match_kind`): it counts only towards the
person's record against the AI. Who counts as a person is the caller's to say: the bot passes a
person who never made a move of their own as an AI seat, and one who abandoned a match as a
forfeit, with no champion (:func:`bot.game.standings.rate_result`).

The shown number is openskill's ordinal, the conservative ``mu - 3 sigma`` (the player is very
likely at least this good), on an Elo-like scale: ``1500 + SCALE * ordinal``. A newcomer
(``mu`` 25, ``sigma`` 25/3, ordinal 0) shows 1,500. :data:`SCALE` makes a gap mean what it means
in chess: openskill gives the stronger of two well-known players a 76% chance when their ``mu``
differ by ``beta``, and Elo a 76% chance for 200 points, so ``beta`` is 200 points. Being
conservative, the number climbs while a rating grows certain (by ``3 * SCALE`` per unit of
``sigma`` lost): a player as strong as the normal AI starts at 1,500 and settles near 2,400
(the easy AI's fixed rating shows about 2,000, the hard AI's 2,800). A rating whose ``sigma``
is above :data:`PROVISIONAL_SIGMA` (a player's first ten to thirteen rated matches) is
provisional, shown with a question mark as on lichess.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from enum import Enum

from openskill.models import PlackettLuce

#: The rating model: openskill's defaults (mu 25, sigma 25/3, beta 25/6, tau 25/300).
MODEL = PlackettLuce(limit_sigma=True)


@dataclass(frozen=True, slots=True)
class Rating:
    """A skill estimate in openskill's units: the mean ``mu`` and its uncertainty ``sigma``."""

    mu: float
    sigma: float


#: Everyone's rating before their first rated match.
START = Rating(MODEL.mu, MODEL.sigma)

#: The fixed ratings AI seats play at, never updated: where each level settled (mean over the
#: second half of the games) in 300 seeded three-seat games of easy, normal and hard, the hard
#: level at its full budget of 256 iterations, rated from START:
#: ``.venv/bin/python benchmarks/ai_ratings.py --games 300 --seed 1``. A newcomer (mu 25) is
#: taken to be as strong as the normal level.
AI_RATINGS: dict[str, Rating] = {
    "easy": Rating(16.76, 2.19),
    "normal": Rating(24.97, 2.0),
    "hard": Rating(33.36, 2.15),
}

#: The shown number of a newcomer (ordinal 0).
BASE = 1500
#: Shown points per unit of ordinal: ``beta`` (a 76% chance between two players) is 200 points.
SCALE = 200 / MODEL.beta
#: Above this ``sigma`` a rating is provisional.
PROVISIONAL_SIGMA = 5.0


@dataclass(frozen=True, slots=True)
class Person:
    """A person's seat: their user id, their rating before the match (None before their first
    rated match), and whether they left or the AI took their seat over for their timeouts."""

    user: int
    rating: Rating | None = None
    forfeited: bool = False


@dataclass(frozen=True, slots=True)
class AiSeat:
    """An AI seat at a level of :data:`AI_RATINGS` (``easy``, ``normal`` or ``hard``)."""

    level: str


@dataclass(frozen=True, slots=True)
class SeatResult:
    """One seat of a finished match: who sat there, its final keys and hit points, and whether it
    won."""

    player: Person | AiSeat
    keys: int
    hp: int
    won: bool = False


class MatchKind(Enum):
    """Whether a finished match changes ratings or only records results against the AI."""

    RATED = "rated"
    AGAINST_AI = "against_ai"


def match_kind(seats: Sequence[SeatResult]) -> MatchKind:
    """RATED with two people or more, else AGAINST_AI (not rated)."""
    people = sum(isinstance(s.player, Person) for s in seats)
    return MatchKind.RATED if people >= 2 else MatchKind.AGAINST_AI


def _forfeited(seat: SeatResult) -> bool:
    return isinstance(seat.player, Person) and seat.player.forfeited


def _standing(seat: SeatResult) -> tuple[int, int, int, int]:
    """A seat's sort key, lower first: a forfeit last, then the champion, keys and HP."""
    if _forfeited(seat):
        return (1, 0, 0, 0)
    return (0, 0 if seat.won else 1, -seat.keys, -seat.hp)


def places(seats: Sequence[SeatResult]) -> list[int]:
    """The place of each seat, 1 for the first; seats level share a place and the next place
    skips as many (1, 2, 2, 4)."""
    standings = [_standing(s) for s in seats]
    return [1 + sum(other < mine for other in standings) for mine in standings]


def _check(seats: Sequence[SeatResult]) -> None:
    """Refuse what no finished match can be."""
    users = [s.player.user for s in seats if isinstance(s.player, Person)]
    if len(set(users)) != len(users):
        raise ValueError(f"a person holds two seats: {users}")
    levels = [s.player.level for s in seats if isinstance(s.player, AiSeat)]
    if unknown := [lv for lv in levels if lv not in AI_RATINGS]:
        raise ValueError(f"unknown AI level(s) {unknown}; choose among {', '.join(AI_RATINGS)}")
    if sum(s.won for s in seats) > 1:
        raise ValueError("a match has one champion at most")


def rating_before(seat: SeatResult) -> Rating:
    """The rating a seat plays this match at: an AI level's fixed one, a person's own (START
    before their first rated match)."""
    if isinstance(seat.player, AiSeat):
        return AI_RATINGS[seat.player.level]
    return seat.player.rating or START


def _rated(seats: Sequence[SeatResult], ranks: list[int]) -> list[Rating]:
    """Every seat's rating after openskill rates ``seats`` finishing at ``ranks``."""
    teams = [[MODEL.rating(r.mu, r.sigma)] for r in map(rating_before, seats)]
    return [Rating(team[0].mu, team[0].sigma)
            for team in MODEL.rate(teams, ranks=[float(r) for r in ranks])]


def rate(seats: Sequence[SeatResult]) -> dict[int, Rating]:
    """The new rating of every person of a finished match, by user id; empty when the match is
    not rated. AI seats keep their fixed ratings."""
    if match_kind(seats) is not MatchKind.RATED:
        return {}
    _check(seats)
    ranks = places(seats)
    after = _rated(seats, ranks)
    gone = [i for i, s in enumerate(seats) if _forfeited(s)]
    if len(gone) > 1:  # each one who left is compared with the seats that stayed only
        for i in gone:
            kept = [j for j in range(len(seats)) if j == i or j not in gone]
            alone = _rated([seats[j] for j in kept], [ranks[j] for j in kept]) \
                if len(kept) > 1 else [rating_before(seats[i])]
            after[i] = alone[kept.index(i)]
    return {s.player.user: r for s, r in zip(seats, after, strict=True)
            if isinstance(s.player, Person)}


def recompute(matches: Iterable[Sequence[SeatResult]]) -> dict[int, Rating]:
    """Every person's rating rebuilt from finished matches in the order they ended (the ratings
    the seats hold are ignored: each comes from the matches before), the same as rating them
    one by one as they ended."""
    ratings: dict[int, Rating] = {}
    for seats in matches:
        ratings.update(rate([
            replace(s, player=replace(s.player, rating=ratings.get(s.player.user)))
            if isinstance(s.player, Person) else s for s in seats]))
    return ratings


@dataclass(frozen=True, slots=True)
class Shown:
    """A rating as people see it: a whole number, and whether it is still provisional."""

    value: int
    provisional: bool


def shown(rating: Rating | None) -> Shown:
    """The shown number of ``rating`` (a newcomer's for None)."""
    r = rating or START
    ordinal = MODEL.rating(r.mu, r.sigma).ordinal(alpha=SCALE, target=BASE)
    return Shown(round(ordinal), r.sigma > PROVISIONAL_SIGMA)


@dataclass(frozen=True, slots=True)
class Change:
    """What a match did to a shown rating: before, after (still provisional or not) and the
    difference of the two shown numbers."""

    before: int
    after: int
    delta: int
    provisional: bool


def change(before: Rating | None, after: Rating) -> Change:
    """The change from ``before`` (None: a newcomer) to ``after``, as shown numbers."""
    old, new = shown(before), shown(after)
    return Change(old.value, new.value, new.value - old.value, new.provisional)
