"""Past matches: a place's finished matches page by page, and a match laid out again for
stepping through (:class:`engine.replay.Replay`), with every refusal it may meet.

Every read is scoped by the asker's :class:`~bot.game.places.Sight`: the place they ask in (a
server, or their own direct messages) and the channels of it they may view. A match elsewhere,
or in a channel they cannot view, is "no match" to them, as a table that never was.

A match is replayed from its seed and its action log, with today's cards: a match played with
another card catalogue is refused (it would be a different game), and so is a log that no longer
replays. Replays are read-only and the tables they show never change again but for the names of
people forgotten on request, so no table's lock is taken; a few built replays are kept, the most
recently used, each while the table's setup (its names) is the one it was built from.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from dataclasses import dataclass, field, replace

from bot.game.markup import plain
from bot.game.places import Sight
from bot.game.refusals import Refusal
from bot.game.standings import as_rated, change_of
from bot.game.tables import Tables
from bot.game.tournament import forfeited, result_places
from bot.game.tournaments import left_to_ai
from bot.storage.core.history import INT_MAX
from bot.storage.interface import Storage
from bot.storage.records import (
    TOURNAMENT_STATUSES,
    DamagedResult,
    DamagedTournament,
    TableRecord,
    TableResult,
    TournamentMatch,
    TournamentRecord,
    places,
    seat_results,
    standing,
)
from cards import catalogue_version
from engine.actions import parse
from engine.replay import Replay, ReplayError
from i18n import Msg, msg

log = logging.getLogger("karak.bot")

#: Matches shown on one page of ``/goblin history``.
PAGE = 5
#: Built replays kept in memory (a 700-move match holds about 700 KiB).
KEPT_REPLAYS = 4


@dataclass(frozen=True, slots=True)
class InRound:
    """Where a listed match stands in its tournament: its round, and whether the round's
    deadline decided it (closed as it stood, unrated)."""

    round: int
    at_deadline: bool


@dataclass(frozen=True, slots=True)
class HistoryPage:
    """One page of matches, newest first, with the anchors of the neighbouring pages: ``older``
    (list the matches older than this table) and ``newer`` (list those newer than this table);
    None when there are none that way. ``rating_changes`` is each listed table's change of
    shown rating per person (rated matches only); ``threads`` the thread each listed table was
    played in, of those bound for a thread of their own (None: it has none, deleted since or
    never opened: the match was played in its channel). A page of one tournament's matches names its
    ``tournament`` and each listed table's round (``rounds``). A match whose stored result
    (or, closed at its round's deadline, whose table) cannot be read is listed as a
    :class:`~bot.storage.records.DamagedResult` in its place."""

    results: tuple[TableResult | DamagedResult, ...]
    older: int | None
    newer: int | None
    rating_changes: dict[int, dict[int, int]]
    threads: dict[int, int | None]
    tournament: TournamentRecord | None = None
    rounds: dict[int, InRound] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Loaded:
    """A match ready to step through: its table and its replay."""

    record: TableRecord
    replay: Replay

    @property
    def finished(self) -> bool:
        """True for a match played to its end (its hands may be revealed)."""
        return self.record.status == "finished" and self.replay.finished


def no_match(sight: Sight, table_id: int) -> Msg:
    """The answer to a match that is not in ``sight`` (or never was a match)."""
    if sight.place.kind == "dm":
        return msg("history.dms.no_match", table=table_id)
    return msg("history.error.no_match", table=table_id)


def in_tournament(result: TableResult) -> TableResult:
    """A tournament's match ``result`` with each seat at the place the tournament gave it
    (:func:`~bot.game.tournament.result_places`: those who left it to the AI last)."""
    ranks = result_places(result)
    return replace(result, seats=tuple(replace(s, place=ranks[i])
                                       for i, s in enumerate(sorted(result.seats,
                                                                    key=lambda s: s.seat))))


class History:
    """The pages of past matches and the replays of finished ones."""

    def __init__(self, store: Storage, tables: Tables) -> None:
        self.store = store
        self.tables = tables
        self._replays: OrderedDict[int, Replay] = OrderedDict()

    async def page(self, sight: Sight, player: int | None = None,
                   before: int | None = None, after: int | None = None,
                   size: int = PAGE, tournament: int | None = None) -> HistoryPage:
        """The page of ``size`` matches in ``sight`` (of ``player`` when given, of the server
        tournament ``tournament`` when given) older than table ``before``, or just newer than
        table ``after`` (neither: the newest). A tournament not in sight (another server's, a
        channel the asker cannot view, none such) or cancelled is refused."""
        cup = None if tournament is None else await self.tournament_in(sight, tournament)
        rounds: dict[int, InRound] = {}
        found = await self._matches(sight, player, size + 1, before, after, cup, rounds)
        more = len(found) > size
        shown = found[1:] if after is not None and more else found[:size]
        if not shown:
            return HistoryPage((), None, None, {}, {}, cup)
        newest, oldest = shown[0].table_id, shown[-1].table_id
        older = oldest if (more if after is None else await self._any(
            sight, player, cup, before=oldest)) else None
        newer = newest if (more if after is not None else before is not None and await self._any(
            sight, player, cup, after=newest)) else None
        tables = [r.table_id for r in shown]
        return HistoryPage(tuple(shown), older, newer, await self.rating_changes(tables),
                           await self.store.threads_of(tables), cup,
                           {t: rounds[t] for t in tables if t in rounds})

    async def _any(self, sight: Sight, player: int | None, cup: TournamentRecord | None, *,
                   before: int | None = None, after: int | None = None) -> bool:
        if cup is None:
            return bool(await self._matches(sight, player, 1, before, after, None, {}))
        return bool(await self.store.tournament_matches(cup.id, sight.place.key, player, 1,
                                                        before, after, sight.channels))

    async def _matches(self, sight: Sight, player: int | None, limit: int,
                       before: int | None, after: int | None, cup: TournamentRecord | None,
                       rounds: dict[int, InRound]) -> list[TableResult | DamagedResult]:
        """The matches asked for, each seat at its place as the ratings count it (a person
        who left after moving last); of a tournament, at its place as the tournament counted
        it (a person who left last), each one's round put in ``rounds``. A match that cannot
        be read stays in its place, damaged (a warning names it), so it counts on its page and
        the pages beyond it are still reached."""
        if cup is None:
            found = [r if isinstance(r, DamagedResult) else as_rated(r)
                     for r in await self.store.matches(sight.place.key, player, limit, before,
                                                       after, sight.channels)]
        else:
            found = []
            for match in await self.store.tournament_matches(
                    cup.id, sight.place.key, player, limit, before, after, sight.channels):
                found.append(await self._closed_at_deadline(match) if match.result is None
                             else match.result if isinstance(match.result, DamagedResult)
                             else in_tournament(match.result))
                rounds[match.table_id] = InRound(match.round, match.at_deadline)
        for result in found:
            if isinstance(result, DamagedResult):
                log.warning("table %s: its finished match cannot be read (%s), so listed as "
                            "damaged", result.table_id, result.reason)
        return found

    async def _closed_at_deadline(self, match: TournamentMatch) -> TableResult | DamagedResult:
        """How a match its round's deadline closed unrated stood then, laid out as a result
        (places as the tournament counted them, those who left it to the AI last; no
        champion); damaged when its table cannot be read."""
        try:
            record = await self.tables.load(match.table_id)
        except Refusal as exc:
            return DamagedResult(match.table_id, f"its table: {exc.reason.key}")
        state = record.state
        if state is None:
            return DamagedResult(match.table_id, "its table has no game state")
        ranks = forfeited(places(state), left_to_ai(record))
        return TableResult(
            table_id=record.id, guild_id=record.guild_id, channel_id=record.channel_id,
            finished_at=record.updated_at, rounds=state.round, actions=state.step,
            catalogue=record.catalogue, winner_seat=ranks.index(min(ranks)),
            winner_user_id=None, place_key=record.place_key,
            seats=seat_results(record.seats, state, ranks))

    async def tournament_in(self, sight: Sight, tournament_id: int) -> TournamentRecord:
        """Server tournament ``tournament_id`` when it is in ``sight`` (this server, a channel
        the asker may view); refused otherwise (direct messages, another server's, a forged or
        unknown id), and when it was cancelled (it has no matches)."""
        record = None
        if sight.place.kind == "guild" and 0 < tournament_id <= INT_MAX:
            try:
                record = await self.store.tournament(tournament_id)
            except DamagedTournament as exc:
                raise Refusal(msg("bot.tournament.error.damaged", id=tournament_id)) from exc
        if record is None or not sight.sees(record.place_key, record.channel_id):
            raise Refusal(msg("history.tournament.no_such"))
        if record.status == "cancelled":
            raise Refusal(msg("history.tournament.cancelled", name=plain(record.name)))
        return record

    async def tournament_typed(self, sight: Sight, typed: str) -> TournamentRecord:
        """The tournament of ``/goblin history tournament:``: its number (as suggested while
        typing) or its exact name (the newest of that name), refused as
        :meth:`tournament_in` refuses."""
        typed = typed.strip()
        if typed.isascii() and typed.isdigit() and len(typed) <= 19:
            return await self.tournament_in(sight, int(typed))
        named = next((t for t in await self.tournaments(sight)
                      if t.name.casefold() == typed.casefold()), None)
        if named is None:
            raise Refusal(msg("history.tournament.no_such"))
        return await self.tournament_in(sight, named.id)

    async def tournaments(self, sight: Sight) -> list[TournamentRecord]:
        """The tournaments of the server in ``sight`` (held in channels the asker may view),
        newest first; none in direct messages."""
        if sight.place.kind != "guild":
            return []
        found = await self.store.tournaments_of(sight.place.key, *TOURNAMENT_STATUSES)
        return [t for t in reversed(found) if sight.sees(t.place_key, t.channel_id)]

    async def rating_changes(self, tables: list[int]) -> dict[int, dict[int, int]]:
        """Each rated table's change of shown rating per person."""
        out: dict[int, dict[int, int]] = {}
        for tid in tables:
            changes = await self.store.changes_of_table(tid)
            if changes:
                out[tid] = {c.user_id: change_of(c).delta for c in changes}
        return out

    async def replay(self, table_id: int, sight: Sight) -> Loaded:
        """Table ``table_id`` laid out for stepping through; refused when it is no match in
        ``sight`` (another place, or a channel the asker cannot view), was never played, is
        still being played, was played with other cards, is damaged, or its log no longer
        replays."""
        try:
            record = await self.tables.load(table_id)
        except Refusal:
            raise Refusal(await self._unreadable(table_id, sight)) from None
        if not sight.sees(record.place_key, record.channel_id) or record.state is None:
            raise Refusal(no_match(sight, table_id))
        if record.status == "running":
            raise Refusal(msg("history.error.running", table=table_id))
        if record.catalogue != catalogue_version():
            raise Refusal(msg("history.error.other_cards", table=table_id))
        kept = self._replays.get(table_id)
        if kept is None or kept.final.config != record.game.config:
            # never built here, or its names changed since (a person forgotten through
            # another process, which may share the database)
            kept = await self._build(record)
            self._replays[table_id] = kept
            while len(self._replays) > KEPT_REPLAYS:
                self._replays.popitem(last=False)
        self._replays.move_to_end(table_id)
        return Loaded(record, kept)

    async def _unreadable(self, table_id: int, sight: Sight) -> Msg:
        """Why table ``table_id``, which cannot be read, is not replayed: no match in ``sight``
        (none such, or its stored result is not in sight), or a match in sight, as its stored
        result tells, that was played with other cards (a state of another catalogue breaks
        today's rules of the game) or is damaged."""
        result = await self.store.result_of(table_id)
        if result is None or result.place_key is None or result.channel_id is None \
                or not sight.sees(result.place_key, result.channel_id):
            return no_match(sight, table_id)
        if isinstance(result, TableResult) and result.catalogue != catalogue_version():
            return msg("history.error.other_cards", table=table_id)
        log.warning("table %s: its finished match cannot be read, so not replayed", table_id)
        return msg("history.error.damaged_table", table=table_id)

    def forget(self, table_id: int) -> None:
        """Drop the replay kept of table ``table_id`` (its names changed)."""
        self._replays.pop(table_id, None)

    async def _build(self, record: TableRecord) -> Replay:
        """The replay of a table from its configuration and the actions of its log that stand
        (a take-back and the action it took back are left out); refused when a row of its log
        is damaged (a column holding what it cannot, an action in no notation)."""
        try:
            actions = [parse(row.action)
                       for row in standing(await self.store.action_log(record.id))]
        except ValueError as exc:  # BadNotation is one too
            log.warning("table %s: its action log is damaged (%s)", record.id, exc)
            raise Refusal(msg("history.error.damaged", table=record.id)) from exc
        try:
            built = Replay(record.game.config, actions)
        except ReplayError as exc:
            raise Refusal(msg("history.error.no_replay", table=record.id,
                              step=exc.step + 1)) from exc
        if built.final != record.game:
            raise Refusal(msg("history.error.no_replay", table=record.id, step=built.last))
        return built

    async def result(self, table_id: int) -> TableResult | DamagedResult | None:
        """The stored result of a finished table (damaged when it cannot be read)."""
        return await self.store.result_of(table_id)


__all__ = ["KEPT_REPLAYS", "PAGE", "History", "HistoryPage", "InRound", "Loaded", "in_tournament",
           "no_match"]
