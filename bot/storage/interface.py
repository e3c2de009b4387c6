"""What the game service needs from storage: one typed interface that every backend implements
(today :class:`bot.storage.sqlite.Store`), so the service never sees SQL or a driver."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Protocol

from bot.storage.core.people import Forgotten
from bot.storage.records import (
    AiRecord,
    DamagedResult,
    Limited,
    LogRow,
    NewTournamentTable,
    PlayerRating,
    Rater,
    RatingChange,
    RematchOffer,
    SeatInfo,
    ServerDefaults,
    Shards,
    Status,
    TableRecord,
    TableResult,
    TournamentMatch,
    TournamentRecord,
    TournamentRows,
    TournamentStatus,
)
from bot.storage.shares import ShareClaim
from bot.supervision.metrics import Metrics
from engine import GameState
from engine.agents import AiLevel


class RatingStorage(Protocol):
    """Ratings per server, each rated match's changes and the records against the AI, written
    with a match's result (:meth:`Storage.apply` with a ``rater``)."""

    async def ratings(self, guild_id: int) -> list[PlayerRating]:
        """Every rating of a server."""

    async def rating_of(self, guild_id: int, user_id: int) -> PlayerRating | None:
        """A person's rating on a server, or None before their first rated match."""

    async def rating_changes(self, guild_id: int, user_id: int) -> list[RatingChange]:
        """A person's rating changes on a server, oldest first."""

    async def changes_of_table(self, table_id: int) -> list[RatingChange]:
        """The rating changes a finished match made (none when it was not rated)."""

    async def ai_records(self, place_key: str, user_id: int) -> list[AiRecord]:
        """A person's records against the AI at a place (its key), by level and hero."""

    async def player_results(self, place_key: str,
                             user_id: int) -> list[TableResult | DamagedResult]:
        """The results of a place's finished tables where ``user_id`` held a seat, newest
        first (a damaged one in its place)."""

    async def recompute_ratings(self, rater: Rater, guild_id: int | None = None) -> int:
        """Rebuild the ratings (one server's, or all with the records against the AI) from the
        stored results in the order the matches ended; returns the number of matches read.
        Refused with :class:`~bot.storage.records.DamagedResults` before anything is written
        when one of those results is damaged."""


#: Told the id of a table another process changed, or None when changes may have been missed
#: (the way to hear of them was lost and found again): then any table may have changed.
TableListener = Callable[[int | None], None]


class LeaseStorage(Protocol):
    """Who does a table's background work (its AI turns, its turn timer): a lease per table,
    held by one owner (a process, by a name stable across its restarts) until it expires, by
    the store's clock. An owner claims a table once and renews all its leases in one write now
    and then: a move costs no lease write."""

    async def claim(self, table_id: int, owner: str, ttl: float) -> bool:
        """Take the lease of table ``table_id`` for ``owner`` for ``ttl`` seconds from now; True
        when granted (the lease was free, had expired, or was already ``owner``'s)."""

    async def renew(self, owner: str, ttl: float) -> list[int]:
        """Extend every lease ``owner`` holds on a lobby or running table to ``ttl`` seconds
        from now, in one write (a lease that expired but was taken by no one is renewed too);
        the ids of those tables, in order."""

    async def release(self, table_id: int, owner: str) -> None:
        """Give up ``owner``'s lease of table ``table_id`` (nothing when another owner holds
        it)."""

    async def expire(self, owner: str) -> None:
        """Let every lease ``owner`` holds lapse now (its process stopped cleanly): any
        process may claim them at once, and nothing takes ``owner`` for still running."""

    async def lapsed(self, shards: Shards | None = None) -> list[int]:
        """Ids of the lobbies and running tables whose lease expired, and of those whose lease
        was never taken that are the servers of ``shards`` (every one when None), in order: a
        process takes up the tables of its own servers and what a stopped process held."""

    async def left_ends(self) -> list[int]:
        """Ids of the tables that ended whose lease expired without being given up (its
        holder stopped before giving it up, maybe before posting a finished game's result),
        in order."""

    async def home(self, owner: str, shards: Shards, ttl: float) -> list[int]:
        """Take for ``owner``, for ``ttl`` seconds from now, the leases another owner holds on
        the lobbies and running tables of the servers of ``shards`` (a process back on its
        shards takes up its servers' tables again, however long ago another took them over);
        the ids of those tables, in order. Subscribers in other processes are told each one
        (:meth:`subscribe`), as of a write."""

    async def subscribe(self, listener: TableListener) -> None:
        """From now on, tell ``listener`` the id of each table another process writes (once
        that write is committed). A store that no other process writes tells nothing."""


class ShareStorage(Protocol):
    """A match's animation posted in a channel: at most one per match and channel within a
    window, and a person's shares in a channel spaced by its slowmode. A claim checks and takes
    both at once (of two claims at once, exactly one is granted), by the store's clock."""

    async def claim_share(self, table_id: int, channel_id: int, user_id: int, *,
                          window: float, slowmode: float, posting: float) -> ShareClaim:
        """Claim the post of table ``table_id``'s animation in ``channel_id`` for ``user_id``
        now. Refused, with the earlier post, when it was posted (or claimed) there less than
        ``window`` seconds ago, a claim that never got its message lapsing after ``posting``
        seconds; refused, with when they may again, when ``user_id`` shared in the channel less
        than ``slowmode`` seconds ago; refused as not theirs when the match was played in
        direct messages other than ``user_id``'s own (checked under their lock: once they are
        forgotten, nothing ties them to a match of their former direct messages again); else
        granted (and remembered as the person's latest share in the channel)."""

    async def share_posted(self, table_id: int, channel_id: int, at: float,
                           message_id: int) -> None:
        """The animation whose claim was granted at ``at`` is posted as message
        ``message_id``."""

    async def share_gone(self, table_id: int, channel_id: int, message_id: int) -> None:
        """The animation's post as message ``message_id`` was deleted: the match may be posted
        in the channel again (a newer post of it, another message, is kept)."""

    async def drop_share(self, table_id: int, channel_id: int, user_id: int,
                         at: float) -> None:
        """Give up the claim granted at ``at`` (nothing was posted)."""


class PeopleStorage(Protocol):
    """A person forgotten on request (see :mod:`bot.storage.core.people`)."""

    async def forget_person(self, user_id: int) -> Forgotten:
        """In one transaction: delete person ``user_id``'s ratings, records, hints and shares,
        and replace their id everywhere else by a fresh pseudonym (their seats' names
        emptied), so other people's histories stay whole."""

    async def keeps_about(self, user_id: int) -> bool:
        """Whether anything about person ``user_id`` is still kept (what
        :meth:`forget_person` would delete or rename); read only."""



class SeatedStorage(Protocol):
    """Who sits where, and each person's choice of direct-message reminders."""

    async def running_of(self, user_id: int) -> list[TableRecord]:
        """The running tables where ``user_id`` holds a seat (or held one that went to the
        AI), by id, found by index (``table_seats``, written with every write of the seats)."""

    async def set_notify(self, user_id: int, on: bool, locale: str | None = None) -> None:
        """Store whether ``user_id`` wants a direct message when their turn waits (and the
        Discord language of their client, when ``locale`` is given)."""

    async def notify_of(self, user_id: int) -> bool:
        """Whether ``user_id`` asked for direct-message reminders (never asked: no)."""

    async def notify_wanted(self, user_ids: Collection[int]) -> set[int]:
        """Those of ``user_ids`` who asked for direct-message reminders."""

    async def notify_locales(self, user_ids: Collection[int]) -> dict[int, str | None]:
        """The Discord language stored for each of ``user_ids`` who chose whether to get
        reminders (None: not known yet); those who never chose are left out."""

    async def note_locale(self, user_id: int, locale: str) -> None:
        """Store the Discord language ``user_id``'s client speaks now, when they chose whether
        to get reminders (nothing is stored for anyone else)."""


class ReminderStorage(Protocol):
    """Slow matches' reminders (see :mod:`bot.storage.core.reminders`)."""

    async def claim_reminder(self, table_id: int, user_id: int, turn: int, due: float,
                             state: str) -> bool:
        """Record the reminder of ``user_id``'s turn ``turn`` at table ``table_id`` as
        ``state``; False when it was recorded already (never two per turn), or when
        ``user_id`` no longer sits there (forgotten meanwhile: nothing kept under their id)."""

    async def set_reminder(self, table_id: int, user_id: int, turn: int, state: str) -> None:
        """Change the state of a recorded reminder."""

    async def release_reminder(self, table_id: int, user_id: int, turn: int) -> None:
        """Forget a reminder recorded as sent that was not: a later pass claims it again."""

    async def reminders_of(self, table_ids: Collection[int]) -> dict[tuple[int, int, int], str]:
        """The recorded reminders of ``table_ids``: (table, user, turn) to its state."""

    async def seen(self, table_id: int, user_id: int, at: float) -> None:
        """``user_id`` opened or clicked something of table ``table_id`` at ``at`` (kept only
        while they sit there)."""

    async def seen_at(self, table_ids: Collection[int]) -> dict[tuple[int, int], float]:
        """When each person last opened or clicked each of ``table_ids``."""

    async def note_dms_closed(self, user_id: int, at: float) -> None:
        """Discord refused a direct message to ``user_id``: none is tried again."""

    async def clear_dms_closed(self, user_id: int) -> None:
        """``user_id`` asked for reminders again: their direct messages are tried once more."""

    async def dms_closed(self, user_ids: Collection[int]) -> set[int]:
        """Those of ``user_ids`` whose direct messages were found closed."""


class TournamentStorage(Protocol):
    """Server tournaments (see :mod:`bot.storage.core.tournaments`): every step that moves one
    on is guarded, so two passes never take it twice."""

    async def create_tournament(self, *, guild_id: int, place_key: str, channel_id: int,
                                host_id: int, name: str, rounds: int | None, table_size: int,
                                timer: int, abilities: bool, ai_level: AiLevel | None,
                                round_span: int, closes_at: float | None, seed: int,
                                locale: str) -> TournamentRecord | None:
        """A new tournament taking sign-ups; None when the channel holds one taking sign-ups
        or under way (checked and written in one step). It speaks ``locale`` unless its server
        forced a language: then the one stored, read in the same transaction under the
        server's language lock (see :meth:`create_table`)."""

    async def tournament(self, tournament_id: int) -> TournamentRecord | None:
        """The tournament, or None."""

    async def tournament_rows(self, tournament_id: int) -> TournamentRows | None:
        """Everything stored of the tournament (None: no such tournament)."""

    async def tournaments_with_status(self, *statuses: TournamentStatus) -> list[int]:
        """Ids of the tournaments with one of ``statuses`` (oldest first)."""

    async def tournaments_of(self, place_key: str,
                             *statuses: TournamentStatus) -> list[TournamentRecord]:
        """A place's tournaments with one of ``statuses`` (oldest first)."""

    async def tournament_of_table(self, table_id: int) -> int | None:
        """The tournament whose round opened table ``table_id`` (None: a table of its own)."""

    async def round_ends(self, table_ids: Collection[int]) -> dict[int, float]:
        """When the round that opened each of ``table_ids`` ends (those a running
        tournament's round under way with a deadline opened; the others are left out)."""

    async def enter(self, tournament_id: int, user_id: int, name: str, rating: int,
                    limit: int | None = None) -> bool:
        """Sign ``user_id`` up; False when they were already, sign-up is over, or ``limit``
        entrants are in already (counted in the same step: sign-ups arriving together never
        pass it)."""

    async def withdraw(self, tournament_id: int, user_id: int) -> bool:
        """Take ``user_id`` off the entrants while sign-up lasts; False when they were not
        on, or sign-up is over."""

    async def drop_entrant(self, tournament_id: int, user_id: int) -> bool:
        """``user_id`` drops out after the rounds seated so far; False when they are no
        entrant, dropped already, or the tournament is not running."""

    async def seat_tournament_round(self, tournament_id: int, after: int, seed: int,
                                    bye: int | None, tables: Sequence[NewTournamentTable],
                                    deadline: float | None,
                                    ratings: Mapping[int, int] | None = None
                                    ) -> list[int] | None:
        """In one transaction: round ``after + 1`` seated and its matches opened as running
        tables; None (nothing written) when the tournament is no longer at round ``after``, a
        player it seats (or gives the bye) left or dropped out meanwhile, or the first round
        does not seat every entrant (one signed up meanwhile); else the new tables' ids in the
        order of ``tables``. The matches speak the language the server forced (else the
        tournament's), read in the same transaction under the server's language lock (see
        :meth:`create_table`)."""

    async def decide_tournament_table(self, tournament_id: int, round_number: int, pod: int,
                                      places: Sequence[int], at_deadline: bool) -> bool:
        """Keep the place each seat of a round's table took; False when decided already."""

    async def close_at_deadline(self, tournament_id: int, round_number: int, pod: int,
                                places: Sequence[int], table_id: int, version: int,
                                revision: int) -> bool:
        """In one transaction: the match of table ``pod`` of round ``round_number`` (table
        ``table_id``) closed, not rated, and decided at the round's deadline with ``places``
        (the match as it stood at ``version`` and ``revision``: its seats as read); False when
        it is no longer running at both (nothing written) or was decided already."""

    async def finish_tournament(self, tournament_id: int, round_number: int) -> bool:
        """The running tournament ends after round ``round_number``; False when it ended
        already (or is at another round)."""

    async def cancel_tournament(self, tournament_id: int) -> bool:
        """Close a tournament still taking sign-ups; False when it is not."""

    async def cancel_tournaments_in(self, channel_id: int) -> list[int]:
        """Cancel every tournament held in the channel, taking sign-ups or under way (the
        channel was deleted); the ids of those cancelled now."""

    async def set_tournament_messages(self, tournament_id: int, *,
                                      signup_message_id: int | None = None,
                                      standings_message_id: int | None = None) -> None:
        """Remember the tournament's sign-up message or its standings message."""


class Storage(RatingStorage, LeaseStorage, ShareStorage, PeopleStorage, SeatedStorage,
              ReminderStorage, TournamentStorage, Protocol):
    """The tables, their action logs, the servers' settings and the bot's own metadata.

    Writes that the disk or database refuses raise :class:`~bot.storage.records.CannotSave`
    (full or failing disk: the same write may work later) or
    :class:`~bot.storage.records.DatabaseError`; a table whose row cannot be read raises
    :class:`~bot.storage.records.CorruptTable`.
    """

    #: Where the write transactions are timed (the bot's metrics, once it is built).
    metrics: Metrics

    async def close(self) -> None:
        """Finish pending writes and close."""

    # tables
    async def create_table(self, *, guild_id: int | None, place_key: str, channel_id: int,
                           host_id: int, seats: Sequence[SeatInfo], abilities: bool, timer: int,
                           seed: int, locale: str = "en", ai_level: AiLevel = "normal",
                           lessons: bool = False, undo: bool = True,
                           threaded: bool = False, hints: bool | None = None,
                           thread_chosen: bool = True) -> TableRecord:
        """Create a lobby (``threaded``: its match moves to a thread when it starts; chosen
        now when ``thread_chosen``, else the server's choice when it starts, stored as
        :attr:`~bot.storage.records.TableRecord.thread_choice`) at the
        place ``place_key`` (a :class:`~bot.game.places.Place`'s key; never empty)
        (``lessons``: a guided first match), played with this bot's cards
        (``cards.catalogue_version()``), where players may take back a move when ``undo`` is
        true, and ask for hints when ``hints`` is (None: decided as it starts); raises
        :class:`~bot.storage.records.TableExists` when the channel has an active table (a
        guided match bound for a thread of its own neither holds the channel nor is refused
        there). It speaks ``locale`` unless its server forced a language: then the one stored,
        read in the same transaction under the server's language lock (a language change
        made meanwhile, by another process too, is the one it speaks, or finds and changes
        it: see :meth:`relocalise_guild`)."""

    async def get(self, table_id: int) -> TableRecord | None:
        """The table or None."""

    async def active_in_channel(self, channel_id: int, user_id: int | None = None) -> int | None:
        """The id of the lobby or running table played in the channel (a thread: its
        match), if any: the channel's own table before a tournament's matches and one
        person's guided matches played in the channel itself, but the one ``user_id`` sits at
        first."""

    async def active_within(self, channel_id: int) -> list[int]:
        """The ids of the lobbies and running tables opened in the channel (played there or
        in threads of it) or, for a thread, played in it (oldest first)."""

    async def set_thread(self, table_id: int, thread_id: int | None, threaded: bool) -> None:
        """The thread the table's match is played in (None: in its channel)."""

    async def thread_gone(self, thread_id: int) -> list[int]:
        """Thread ``thread_id`` was deleted: the finished and closed tables played in it name
        it no more (their messages go to their channel, where the history places them); their
        ids."""

    async def ids_with_status(self, *statuses: Status) -> list[int]:
        """Ids of the tables with one of ``statuses`` (oldest first)."""

    async def timers(self) -> list[tuple[int, int, float]]:
        """(id, version, deadline) of every running table whose turn timer is set (oldest
        first); a row whose version or deadline is damaged is left out."""

    async def idle_lobbies(self, before: float) -> list[tuple[int, int]]:
        """(id, revision) of every open lobby (not a tournament's) whose last change was at
        ``before`` or earlier (oldest first); a lobby message posted again is no change."""

    async def close_idle_lobby(self, table_id: int, revision: int, before: float,
                               at: float) -> bool:
        """Close the lobby ``table_id`` as abandoned at ``at`` when it is still open at
        ``revision`` with no change since ``before``, its ``updated_at`` kept; True when
        closed."""

    async def update_lobby(self, table_id: int, seats: Sequence[SeatInfo],
                           host_id: int | None = None, revision: int | None = None) -> None:
        """Store a lobby's seats (and a new host); given ``revision``, only while the table is
        still at that revision (else :class:`~bot.storage.records.StaleVersion`, nothing
        written)."""

    async def update_seats(self, table_id: int, version: int, seats: Sequence[SeatInfo],
                           host_id: int | None = None, revision: int | None = None) -> None:
        """Store a running table's seats (and a new host) at ``version`` (and ``revision``
        when given)."""

    async def set_status(self, table_id: int, status: Status,
                         revision: int | None = None) -> None:
        """Mark a table abandoned or finished (kept as history); ``revision`` as for
        :meth:`update_lobby`."""

    async def start_game(self, table_id: int, seats: Sequence[SeatInfo], state: GameState,
                         deadline: float | None, revision: int | None = None,
                         hints: bool | None = None, threaded: bool | None = None,
                         limited: Limited | None = None) -> None:
        """Turn a lobby into a running game (and, when ``hints`` is given, allow hints or not,
        when ``threaded`` is, move it to a thread of its own or not, in the same
        transaction); raises :class:`~bot.storage.records.StaleVersion` when it is
        no longer an open lobby (or no longer at ``revision``, when given). ``limited``: the
        start is first checked, in that transaction, under its person's lock
        (:class:`~bot.storage.records.Limited`), and what its check raises is raised."""

    async def apply(self, table_id: int, before: int, state: GameState, log: LogRow,
                    seats: Sequence[SeatInfo] | None = None,
                    deadline: float | None = None, rater: Rater | None = None,
                    result: TableResult | None = None, revision: int | None = None,
                    host_id: int | None = None) -> None:
        """In one transaction: the new state at version ``before + 1`` guarded by version
        ``before`` (and by ``revision`` when given: the changes of its seats made without a
        move, a seat handed to the AI or a person forgotten, raise it) with the seats when
        given and a new host when ``host_id`` (a host's seat handed to the AI), its log row (next in
        the table's log; a take-back marks the latest action not yet taken back ``undone``),
        and when the game ends its ``result`` (as the game computed it; None: the final
        state's, every person counted as having moved) and the rating rows ``rater`` computes
        from the ratings stored at that moment; raises
        :class:`~bot.storage.records.StaleVersion` (and writes nothing) when the table is no
        longer at ``before`` (or ``revision``), and :class:`~bot.storage.records.NotHeld`
        (nothing written) for an AI seat's move (``log.by_ai``) when another process holds
        the table's lease."""

    async def abandon(self, table_id: int, version: int, result: TableResult | None = None,
                      rater: Rater | None = None, forfeit: int | None = None,
                      revision: int | None = None) -> None:
        """In one transaction: mark the running table at ``version`` abandoned and, for a match
        rated when abandoned, store its ``result`` and the rating rows ``rater`` computes;
        ``forfeit``: the seat of the person who abandoned it, kept for a tournament's match
        (they take its last place); raises :class:`~bot.storage.records.StaleVersion` (and
        writes nothing) when the table is no longer running at ``version``, or no longer at
        ``revision`` when given (its seats changed since)."""

    async def set_message(self, table_id: int, *, message_id: int | None = None,
                          lobby_message_id: int | None = None) -> None:
        """Remember the table's public message (or its lobby message)."""

    async def action_log(self, table_id: int) -> list[LogRow]:
        """Every action applied at the table, in the order applied (undone ones included)."""

    async def history(self, limit: int = 20) -> list[int]:
        """Ids of finished or abandoned tables, newest first."""

    async def host_of(self, table_id: int) -> int | None:
        """The host read from the table's row alone (None when unreadable)."""

    async def abandon_damaged(self, table_id: int, channel_id: int) -> None:
        """Mark a table whose row cannot be read abandoned."""

    # results of finished games
    async def result_of(self, table_id: int) -> TableResult | DamagedResult | None:
        """The result of a finished table, or None; a damaged one when stored but damaged."""

    async def threads_of(self, table_ids: Collection[int]) -> dict[int, int | None]:
        """The thread each of ``table_ids`` was played in, of those bound for a thread of
        their own: None for one that has none (deleted since, or never opened: the match was
        played in its channel)."""

    async def matches(self, place_key: str, user_id: int | None = None, limit: int = 20,
                      before: int | None = None, after: int | None = None,
                      channels: Collection[int] | None = None
                      ) -> list[TableResult | DamagedResult]:
        """The results of the finished tables of a place (its key), newest table first: at
        most ``limit``, of tables older than table ``before`` when given, or the ``limit``
        tables just newer than table ``after`` (still listed newest first); of the tables
        where person ``user_id`` held a seat and made a move when given, played in one of
        ``channels`` when given. A result stored but damaged is a
        :class:`~bot.storage.records.DamagedResult` in its place."""

    async def tournament_matches(self, tournament_id: int, place_key: str,
                                 user_id: int | None = None, limit: int = 20,
                                 before: int | None = None, after: int | None = None,
                                 channels: Collection[int] | None = None
                                 ) -> list[TournamentMatch]:
        """Like :meth:`matches`, of the tables tournament ``tournament_id`` opened at the
        place ``place_key`` (those its round's deadline closed unrated included, with no
        result), newest first, each with its round."""

    async def past_channels(self, place_key: str) -> set[int]:
        """The channels (threads included) the finished matches of the place ``place_key``
        were played in and its tournaments held in."""

    # rematches
    async def rematch_of(self, table_id: int) -> RematchOffer | None:
        """The rematch offer made at finished table ``table_id``, or None; raises
        :class:`~bot.storage.records.DamagedOffer` when it is stored but cannot be read."""

    async def save_rematch(self, offer: RematchOffer, was: RematchOffer | None = None) -> bool:
        """Store a rematch offer (a new one, or a change of the table's offer) while the
        table's stored offer is still ``was`` (None: while it has none); True when written,
        False when another writer changed it since it was read (nothing is written); raises
        :class:`~bot.storage.records.DamagedOffer` when the stored one cannot be read."""

    async def open_rematches(self) -> list[RematchOffer]:
        """The rematch offers neither started nor closed, oldest first (a damaged one left
        out, named once in a warning)."""

    # hints
    async def stored_hint(self, table_id: int, version: int, user_id: int) -> bytes | None:
        """The hint (as data) ``user_id`` was given at ``version`` of the table, or None;
        ValueError when it is kept damaged."""

    async def record_hint(self, table_id: int, version: int, user_id: int, seat: int,
                          answer: bytes, at: float, mend: bool = False) -> bytes:
        """Keep the hint ``answer`` given to ``user_id`` (at ``seat``) at ``version``, unless one
        was kept already; the hint kept (the first one). ``mend``: the one kept is damaged,
        ``answer`` replaces it. Nothing is kept once ``user_id`` no longer sits at the table
        (forgotten meanwhile): ``answer`` is returned."""

    async def hints_used(self, table_id: int) -> dict[int, int]:
        """Seat -> how many hints its person was given at the table (none: left out)."""

    # servers
    async def guild_settings(self, guild_id: int | None) -> ServerDefaults | None:
        """A server's defaults for new tables, or None when never set."""

    async def set_guild_settings(self, guild_id: int, defaults: ServerDefaults) -> None:
        """Store a server's defaults for new tables."""

    async def guild_locale(self, guild_id: int | None) -> str | None:
        """The language a server forced for its tables, or None."""

    async def active_in_guild(self, guild_id: int) -> list[int]:
        """Ids of a server's lobbies and running tables (oldest first)."""

    async def relocalise(self, table_id: int, locale: str) -> bool:
        """Set the language of an active table; True when it changed."""

    async def relocalise_guild(self, guild_id: int, defaults: ServerDefaults | None,
                               forced: str | None, locale: str) -> tuple[list[int], list[int]]:
        """Force a server's language (None: Discord's again), with its ``defaults`` for new
        tables when given, and set ``locale`` on its lobbies, running tables, finished tables
        whose rematch offer is open and tournaments taking sign-ups or under way, in one
        transaction, under the server's language lock (see :meth:`create_table`); the ids of
        the tables, then of the tournaments, whose language changed."""

    # the bot's own metadata
    async def get_meta(self, key: str) -> str | None:
        """A stored metadata value."""

    async def set_meta(self, key: str, value: str) -> None:
        """Store a metadata value."""


__all__ = ["LeaseStorage", "PeopleStorage", "RatingStorage", "ReminderStorage", "SeatedStorage",
           "ShareStorage", "Storage", "TableListener", "TournamentStorage"]
