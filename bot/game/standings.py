"""Ratings as the bot uses them: the rater storage calls when a match ends (:func:`rate_result`),
each person's record (:meth:`Standings.stats`), a server's leaderboard
(:meth:`Standings.leaderboard`), the changes of one match (:meth:`Standings.changes`) and the
rebuild of every rating from the stored results (:meth:`Standings.recompute`).

The rating arithmetic is :mod:`bot.game.ratings`'; storage calls :func:`rate_result` inside the
transaction that stores a match's result, with the ratings stored at that moment, so no lock of
the service's is needed for two matches of one server ending together.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from bot.game.places import Place, Sight
from bot.game.ratings import SCALE as POINTS_PER_SIGMA
from bot.game.ratings import (
    AiSeat,
    Change,
    Person,
    Rating,
    SeatResult,
    Shown,
    change,
    rate,
    shown,
)
from bot.game.ratings import places as rating_places
from bot.game.results import movers, waiting
from bot.storage.interface import Storage
from bot.storage.records import (
    AiRecord,
    DamagedResult,
    PlayerRating,
    RatingChange,
    StoredRating,
    TableRecord,
    TableResult,
    against_ai,
    won,
)
from engine.agents import DEFAULT_LEVEL
from i18n import Msg, msg

log = logging.getLogger("karak.bot")

#: A rating shows on the leaderboard once settled and after this many rated matches.
MIN_GAMES = 5
#: Rows of a leaderboard page.
PAGE_SIZE = 10
#: Matches of the recent form.
FORM = 10


def _seat(result: TableResult, index: int, ratings: Mapping[int, StoredRating]) -> SeatResult:
    """A seat as the rating sees it: a person who never made a move is an AI seat at the
    level it was played at; one who left, ran out of time or abandoned the match forfeits;
    nobody wins an abandoned match."""
    seat = result.seats[index]
    player: Person | AiSeat
    if seat.user_id is None or not seat.moved:
        player = AiSeat(seat.ai_level or DEFAULT_LEVEL)
    else:
        stored = ratings.get(seat.user_id)
        player = Person(seat.user_id, Rating(stored.mu, stored.sigma) if stored else None,
                        forfeited=seat.handed_to_ai or seat.user_id == result.abandoned_by)
    return SeatResult(player, seat.keys, seat.hp,
                      won=result.abandoned_by is None and result.winner_seat == seat.seat)


def readable(found: Iterable[TableResult | DamagedResult]) -> list[TableResult]:
    """The results of ``found`` that read, each damaged one left out with a warning naming its
    table (what a record counts: a damaged match cannot count)."""
    out = []
    for result in found:
        if isinstance(result, DamagedResult):
            log.warning("table %s: its stored result is damaged (%s), so left out",
                        result.table_id, result.reason)
        else:
            out.append(result)
    return out


def rated_places(result: TableResult) -> tuple[int, ...]:
    """Each seat's place in ``result`` (in seat order) as the ratings count it, rated or not:
    a person who left after moving (the AI finished their seat) or abandoned the match last,
    whatever place their seat reached; a person who never moved as the AI seat they count as;
    the others by the champion, keys and hit points."""
    return tuple(rating_places([_seat(result, i, {}) for i in range(len(result.seats))]))


def as_rated(result: TableResult) -> TableResult:
    """``result`` with each seat at its place as the ratings count it (:func:`rated_places`),
    as every read of past matches shows it."""
    ranks = rated_places(result)
    return replace(result, seats=tuple(replace(s, place=ranks[i])
                                       for i, s in enumerate(result.seats)))


def unrated_for_movers(result: TableResult) -> bool:
    """True for a match of two people or more that is not rated because fewer than two of
    them made a move."""
    seated = [s for s in result.seats if s.user_id is not None]
    return len(seated) >= 2 and sum(s.moved for s in seated) < 2


def rate_result(result: TableResult,
                ratings: Mapping[int, StoredRating]) -> dict[int, StoredRating]:
    """The new ratings of the people of a finished or abandoned match (empty when it is not
    rated), from their stored ``ratings`` (a person without one is a newcomer)."""
    seats = [_seat(result, i, ratings) for i in range(len(result.seats))]
    return {user: StoredRating(r.mu, r.sigma) for user, r in rate(seats).items()}


def _rating(stored: StoredRating | None) -> Rating | None:
    return None if stored is None else Rating(stored.mu, stored.sigma)


def _after(stored: StoredRating) -> Rating:
    return Rating(stored.mu, stored.sigma)


def shown_of(stored: StoredRating | None) -> Shown:
    """The shown number of a stored rating (a newcomer's for None)."""
    return shown(_rating(stored))


def change_of(stored: RatingChange) -> Change:
    """What one rated match did to one person's shown rating."""
    return change(_rating(stored.before), _after(stored.after))


@dataclass(frozen=True, slots=True)
class PersonChange:
    """One person's change in a finished match (``was_provisional``: their rating before it
    was provisional)."""

    user_id: int
    change: Change
    was_provisional: bool


@dataclass(frozen=True, slots=True)
class HeroRecord:
    """Games and wins with one hero."""

    hero: str
    games: int
    wins: int


@dataclass(frozen=True, slots=True)
class Stats:
    """A person's record at one place (a server): games and wins (every match, rated or not),
    by hero, their rating (None before a rated match) with its uncertainty in points, their place on
    the leaderboard (None while not on it) out of ``ranked``, their places in the last
    :data:`FORM` matches (newest first), their records against the AI, and their shown rating
    after each rated match."""

    user_id: int
    games: int
    wins: int
    heroes: tuple[HeroRecord, ...]
    rating: Shown | None
    uncertainty: int
    rated_games: int
    place: int | None
    ranked: int
    form: tuple[int, ...]
    against_ai: tuple[AiRecord, ...]
    history: tuple[Shown, ...]


@dataclass(frozen=True, slots=True)
class Row:
    """A leaderboard row: place, person, shown rating, rated games and wins."""

    place: int
    user_id: int
    rating: int
    games: int
    wins: int


@dataclass(frozen=True, slots=True)
class Board:
    """One page of a server's leaderboard (``page`` from 0, of ``pages``), and the asker's own
    row (None while they are not on the leaderboard)."""

    rows: tuple[Row, ...]
    page: int
    pages: int
    mine: Row | None


def ranked(ratings: list[PlayerRating]) -> list[Row]:
    """The leaderboard: settled ratings of at least :data:`MIN_GAMES` rated matches, best shown
    rating first (equal ones share a place)."""
    kept = [(shown_of(r.rating), r) for r in ratings if r.games >= MIN_GAMES]
    kept = [(s, r) for s, r in kept if not s.provisional]
    kept.sort(key=lambda item: (-item[0].value, item[1].user_id))
    values = [s.value for s, _ in kept]
    return [Row(1 + values.index(s.value), r.user_id, s.value, r.games, r.wins)
            for s, r in kept]


class Standings:
    """Ratings, records and leaderboards over ``store``."""

    def __init__(self, store: Storage) -> None:
        self.store = store

    async def changes(self, table_id: int) -> list[PersonChange]:
        """What a finished match did to each person's shown rating (none when not rated)."""
        return [PersonChange(c.user_id, change_of(c), shown_of(c.before).provisional)
                for c in await self.store.changes_of_table(table_id)]

    async def rating_note(self, record: TableRecord) -> Msg | None:
        """What to say of the ratings under a match of two people or more that ended, beside its
        changes: that it was rated as it stood when abandoned, or why it was not rated (None: a
        match played to its end and rated, or one of a single person, never rated): a guided
        match says it counts in no record."""
        if record.lessons:
            return msg("ratings.note.guided")
        if sum(s.user is not None for s in record.seats) < 2:
            return None
        found = await self.store.result_of(record.id)
        result = None if found is None else next(iter(readable([found])), None)
        if found is not None:
            if result is None:  # stored, but damaged: nothing to say of it
                return None
            if unrated_for_movers(result):  # played to its end, or closed as lost alone
                return msg("ratings.note.too_few")
            return msg("ratings.note.abandoned_rated") if result.abandoned_by is not None \
                else None
        if record.status != "abandoned" or record.state is None:
            return None
        if waiting(record, movers(await self.store.action_log(record.id))):
            return msg("ratings.note.abandoned_early")
        return msg("ratings.note.too_few")

    async def stats(self, place: Place, user_id: int, sight: Sight | None = None) -> Stats:
        """A person's record at a place (a server; in direct messages, without ratings):
        every figure counts only the matches played there, none of them a guided match nor
        one they left before their first move (the ratings count them as never seated there),
        each place as the ratings count it (one who left after moving last); the games, wins,
        last places and
        records against the AI only those in ``sight`` when given (what someone else asking
        may look back at: the rating, the server's, counts every rated match)."""
        results = [as_rated(r) for r in readable(await self.store.player_results(place.key,
                                                                                  user_id))
                   if not r.guided and (sight is None or sight.sees(r.place_key, r.channel_id))
                   and any(s.user_id == user_id and s.moved for s in r.seats)]
        heroes: dict[str, tuple[int, int]] = {}
        wins = 0
        form: list[int] = []
        ai: dict[tuple[str, str], tuple[int, int]] = {}  # by level and hero
        for result in results:
            for game in (g for g in against_ai(result) if g.user_id == user_id):
                games_against, wins_against = ai.get((game.level, game.hero), (0, 0))
                ai[(game.level, game.hero)] = (games_against + 1, wins_against + game.wins)
            seat = next(s for s in result.seats if s.user_id == user_id and s.moved)
            games_with, wins_with = heroes.get(seat.hero, (0, 0))
            heroes[seat.hero] = (games_with + 1, wins_with + won(result, seat))
            wins += won(result, seat)
            if len(form) < FORM:
                form.append(seat.place)
        guild_id = place.guild_id
        mine = None if guild_id is None else await self.store.rating_of(guild_id, user_id)
        board = [] if guild_id is None else ranked(await self.store.ratings(guild_id))
        rank = next((row.place for row in board if row.user_id == user_id), None)
        history = () if guild_id is None else tuple(
            shown_of(c.after) for c in await self.store.rating_changes(guild_id, user_id))
        return Stats(
            user_id=user_id, games=len(results), wins=wins,
            heroes=tuple(HeroRecord(h, g, w) for h, (g, w) in
                         sorted(heroes.items(), key=lambda item: -item[1][0])),
            rating=shown_of(mine.rating) if mine else None,
            uncertainty=round(POINTS_PER_SIGMA * mine.rating.sigma) if mine else 0,
            rated_games=mine.games if mine else 0, place=rank, ranked=len(board),
            form=tuple(form), against_ai=(
                tuple(await self.store.ai_records(place.key, user_id)) if sight is None
                else tuple(AiRecord(user_id, level, hero, g, w)
                           for (level, hero), (g, w) in sorted(ai.items()))),
            history=history)

    async def leaderboard(self, place: Place, user_id: int, page: int) -> Board:
        """Page ``page`` (from 0; clamped to the pages there are) of a server's leaderboard,
        with the asker's row (direct messages have no leaderboard: an empty one)."""
        guild_id = place.guild_id
        board = [] if guild_id is None else ranked(await self.store.ratings(guild_id))
        pages = max(1, -(-len(board) // PAGE_SIZE))
        page = min(max(page, 0), pages - 1)
        mine = next((row for row in board if row.user_id == user_id), None)
        return Board(tuple(board[page * PAGE_SIZE:(page + 1) * PAGE_SIZE]), page, pages, mine)

    async def recompute(self, guild_id: int | None = None) -> int:
        """Rebuild the ratings (of one server, or all) from the stored results; returns the
        number of matches read."""
        return await self.store.recompute_ratings(rate_result, guild_id)


__all__ = ["FORM", "MIN_GAMES", "PAGE_SIZE", "Board", "HeroRecord", "PersonChange", "Row",
           "Standings", "Stats", "as_rated", "change_of", "rate_result", "ranked", "rated_places",
           "readable", "shown_of", "unrated_for_movers"]
