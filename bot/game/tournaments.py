"""Server tournaments, live: sign-ups, the start, each round's matches opened as running tables
(the table machinery plays them, rated as any other match), each finished table's places kept,
a round's unfinished tables decided at its deadline, the next round seated, and the champion.
The rules themselves are pure (:mod:`bot.game.tournament`); what is stored is in
:mod:`bot.storage.core.tournaments`; nothing here speaks to Discord.

Everything is in the database, so a restart loses nothing: :meth:`Tournaments.sweep` (each pass
of the scheduler's timers) moves on every tournament whose round is complete or past its
deadline, and starts those whose sign-up closed. Each step is guarded in storage (a table is
decided once, a round seated once, a tournament finished once), so two passes, or two
processes, never take a step twice: the one that lost the race reports nothing.

A round's matches are ordinary running tables (marked with their tournament, so several share
its channel until each moves to a thread of its own): played, timed and rated as any match. A
match still playing at the round's deadline is decided as it stands
(:func:`~bot.game.tournament.deadline_result`), then closed unrated, as a match abandoned
before its end; a match that ended is decided by its stored result (its places as rated).

What a step changed comes back as a :class:`Progress` for the Discord side to post: the tables
decided (those the deadline closed among them), the round seated with its new tables (to move to
their threads and begin), the standings and, at the end, the champion.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace

from bot.game.lobby import SEED_BITS, game_config, new_seed
from bot.game.markup import plain, typed
from bot.game.places import Place, Sight
from bot.game.refusals import Refusal
from bot.game.seats import MAX_TIMER, TIMERS, deadline
from bot.game.standings import readable, shown_of
from bot.game.tables import Tables
from bot.game.tournament import (
    Entrant,
    Pod,
    PodResult,
    Round,
    Seating,
    Settings,
    Standing,
    TableSize,
    Tournament,
    champion,
    deadline_result,
    forfeited,
    is_over,
    result_places,
    seat_round,
    standings,
    total_rounds,
)
from bot.storage.interface import Storage
from bot.storage.records import (
    DamagedTournament,
    NewTournamentTable,
    SeatInfo,
    ServerDefaults,
    TableRecord,
    TournamentRecord,
    TournamentRows,
    TournamentTableRow,
    places,
)
from engine import new_game
from engine.agents import AiLevel
from i18n import Msg, msg

log = logging.getLogger("karak.bot")
#: The longest name a tournament may have.
MAX_NAME = 60
#: The most rounds a tournament may be set to.
MAX_ROUNDS = 10
#: The most players one tournament takes.
MAX_ENTRANTS = 64
#: The fewest players a tournament starts with.
MIN_ENTRANTS = 2
#: How many times closing a match at its deadline is tried while other processes move it.
CLOSE_ATTEMPTS = 5
#: How many times the first round is drawn again while people sign up or leave meanwhile.
START_ATTEMPTS = 5


@dataclass(frozen=True, slots=True)
class Decided:
    """A table of the round decided now: its round and number in it, its match as it is now
    (finished, or abandoned: closed at the deadline when ``result.at_deadline``; None: its row
    cannot be read, its players share the last place) and the places its players took."""

    round: int
    pod: int
    table: TableRecord | None
    result: PodResult


@dataclass(frozen=True, slots=True)
class Opened:
    """A round seated now: its seating (tables, bye) and the matches it opened, running, in
    the order of its tables (the Discord side moves each to its thread and begins it)."""

    seating: Seating
    tables: tuple[TableRecord, ...]


@dataclass(frozen=True, slots=True)
class Progress:
    """What one step of a tournament changed: the tournament as it is now (its row, and its
    rules' state: :mod:`bot.game.tournament_pictures` draws its standings and champion from
    it), the tables decided and the round seated (None: none)."""

    record: TournamentRecord
    tournament: Tournament
    decided: tuple[Decided, ...] = ()
    opened: Opened | None = None

    @property
    def standings(self) -> tuple[Standing, ...]:
        """The standings now, best first."""
        return standings(self.tournament)

    @property
    def rounds(self) -> int:
        """The rounds the tournament plays (it may end sooner when players drop)."""
        return total_rounds(self.tournament)

    @property
    def champion(self) -> Standing | None:
        """The champion, once this step ended the tournament (None before, or when it was
        cancelled)."""
        return champion(self.tournament) if self.record.status == "finished" else None

    @property
    def finished(self) -> bool:
        """True when this step ended the tournament (its champion is known)."""
        return self.champion is not None

    @property
    def changed(self) -> bool:
        """True when the step did anything worth telling."""
        return bool(self.decided or self.opened or self.record.status in ("finished",
                                                                           "cancelled"))


@dataclass(frozen=True, slots=True)
class View:
    """A tournament as it stands: its row, its rules' state and its standings."""

    record: TournamentRecord
    tournament: Tournament
    standings: tuple[Standing, ...]
    tables: tuple[TournamentTableRow, ...]

    @property
    def rounds(self) -> int:
        """The rounds it plays (it may end sooner when players drop)."""
        return total_rounds(self.tournament)


def round_seed(seed: int, number: int) -> int:
    """The seed round ``number`` of a tournament of ``seed`` is drawn with."""
    return random.Random(f"{seed}:{number}").getrandbits(SEED_BITS)


def table_seed(seed: int, pod: int) -> int:
    """The seed of the match of table ``pod`` of a round drawn with ``seed``."""
    return random.Random(f"{seed}/{pod}").getrandbits(SEED_BITS)


def left_to_ai(table: TableRecord) -> set[int]:
    """The seats of ``table`` whose people left them to the AI (``/goblin leave``, their turn
    timer run out for good, forgotten on request): they forfeit the match."""
    return {i for i, s in enumerate(table.seats) if s.user is not None and s.ai}


def _table_size(size: int) -> TableSize:
    """A stored table size as the rules take it."""
    if size == 3:
        return 3
    if size == 4:
        return 4
    raise ValueError(f"tables have 3 or 4 seats, not {size}")


def stored_result(row: TournamentTableRow) -> PodResult:
    """A decided table's result as stored: the place of each player seated at it (a person
    forgotten since: their pseudonym), and whether the round's deadline decided it."""
    return PodResult(row.pod, tuple((u, p) for u, p in zip(row.seats, row.places, strict=True)
                                    if u is not None and p is not None), row.at_deadline)


def rules_of(rows: TournamentRows) -> Tournament:
    """The rules' state of a stored tournament: its entrants, its rounds with the results of
    their decided tables, its drops."""
    rec = rows.record
    settings = Settings(rec.name, rec.rounds, _table_size(rec.table_size), rec.ai_level)
    rounds = []
    for r in rows.rounds:
        mine = [t for t in rows.tables if t.round == r.round]
        pods = tuple(Pod(t.pod, tuple(u for u in t.seats if u is not None),
                         sum(u is None for u in t.seats)) for t in mine)
        results = tuple(stored_result(t) for t in mine if t.decided)
        rounds.append(Round(Seating(r.round, r.seed, pods, r.bye_user), results))
    return Tournament(settings, tuple(Entrant(e.user_id, e.name, e.rating) for e in rows.entrants),
                      tuple(rounds), tuple((e.user_id, e.dropped_after) for e in rows.entrants
                                           if e.dropped_after is not None), rec.seed)


@dataclass
class Tournaments:
    """Server tournaments over ``store``, their matches through ``tables`` (``clock`` and
    ``seeds`` injectable for tests; ``threads``: whether a server's matches move to threads of
    their own, its setting; None: they always do; ``takebacks``: whether its players may take
    back a move, its setting; None: they may; ``defaults``: a server's defaults for new tables,
    which a tournament opened without a timer or abilities takes; None: no timer, no
    abilities)."""

    store: Storage
    tables: Tables
    clock: Callable[[], float] = time.time
    seeds: Callable[[], int] = field(default=new_seed)
    threads: Callable[[int], Awaitable[bool]] | None = None
    takebacks: Callable[[int], Awaitable[bool]] | None = None
    defaults: Callable[[int], Awaitable[ServerDefaults]] | None = None

    # ------------------------------------------------------------------ reading

    async def view(self, tournament_id: int) -> View:
        """The tournament as it stands, or a refusal when there is none."""
        rows = await self._rows(tournament_id)
        if rows is None:
            raise Refusal(msg("bot.tournament.error.no_such"))
        rules = rules_of(rows)
        return View(rows.record, rules, standings(rules), rows.tables)

    async def open_in(self, guild_id: int) -> list[TournamentRecord]:
        """A server's tournaments taking sign-ups or under way (oldest first)."""
        return await self.store.tournaments_of(Place.server(guild_id).key, "signup", "running")

    # ------------------------------------------------------------------ sign-up

    async def create(self, *, guild_id: int | None, channel_id: int, host_id: int, name: str,
                     rounds: int | None = None, table_size: int = 4,
                     timer: int | None = None, abilities: bool | None = None,
                     ai_level: AiLevel | None = None,
                     round_span: int = 0, closes_at: float | None = None,
                     locale: str = "en") -> TournamentRecord:
        """Open a tournament for sign-ups in the channel (``rounds`` None: as many as its
        entrants need; ``timer``: the turn timer of its matches; ``ai_level``: AI seats fill
        short tables, None: byes and smaller tables instead; ``round_span``: the seconds each
        round lasts before its unfinished matches are decided, 0: no limit; ``closes_at``: when
        sign-up closes and it starts by itself, None: when its host starts it; ``locale``: the
        server's language in Discord, unless its admins forced another one); refused in a
        channel holding a tournament taking sign-ups or under way. A ``timer`` or
        ``abilities`` not chosen (None) is the server's default for new tables, as a lobby's
        is, read now and kept: a setting changed later changes no tournament opened before."""
        if guild_id is None:
            raise Refusal(msg("bot.tournament.error.server_only"))
        # one at a time in a channel: its commands there reach the channel's tournament
        # (checked again as it is stored: two opened at the same moment never both pass)
        held = await self.open_in(guild_id)
        if any(t.channel_id == channel_id for t in held):
            raise Refusal(self._channel_taken(held, channel_id))
        server = ServerDefaults() if self.defaults is None else await self.defaults(guild_id)
        timer = server.timer if timer is None else timer
        abilities = server.abilities if abilities is None else abilities
        name = " ".join(typed(name).split())
        if not 1 <= len(name) <= MAX_NAME:
            raise Refusal(msg("bot.tournament.error.bad_name", max=MAX_NAME))
        if rounds is not None and not 1 <= rounds <= MAX_ROUNDS:
            raise Refusal(msg("bot.tournament.error.bad_rounds", max=MAX_ROUNDS))
        if table_size not in (3, 4):
            raise Refusal(msg("bot.tournament.error.bad_table_size"))
        if timer not in TIMERS and not 30 <= timer <= MAX_TIMER:
            raise Refusal(msg("bot.error.bad_timer"))
        if round_span < 0 or closes_at is not None and closes_at <= self.clock():
            raise Refusal(msg("bot.tournament.error.bad_time"))
        created = await self.store.create_tournament(
            guild_id=guild_id, place_key=Place.server(guild_id).key, channel_id=channel_id,
            host_id=host_id, name=name, rounds=rounds, table_size=table_size, timer=timer,
            abilities=abilities, ai_level=ai_level, round_span=round_span, closes_at=closes_at,
            seed=self.seeds(), locale=locale)  # unless the server forced one: the store's then
        if created is None:  # another opened at the same moment took the channel first
            raise Refusal(self._channel_taken(await self.open_in(guild_id), channel_id))
        return created

    @staticmethod
    def _channel_taken(held: Sequence[TournamentRecord], channel_id: int) -> Msg:
        """The refusal of a new tournament in channel ``channel_id``, naming the one of
        ``held`` (a server's open tournaments) that holds it."""
        name = next((t.name for t in held if t.channel_id == channel_id), "")
        return msg("bot.tournament.error.channel_taken", name=plain(name))

    async def _stored(self, tournament_id: int) -> TournamentRecord | None:
        """The tournament's row, or None; a refusal when it is damaged (a pass over every
        tournament leaves it out, the store names it once in a warning)."""
        try:
            return await self.store.tournament(tournament_id)
        except DamagedTournament as exc:
            raise Refusal(msg("bot.tournament.error.damaged", id=tournament_id)) from exc

    async def _rows(self, tournament_id: int) -> TournamentRows | None:
        """Everything stored of the tournament, or None; a refusal when one of its rows is
        damaged (as :meth:`_stored`)."""
        try:
            return await self.store.tournament_rows(tournament_id)
        except DamagedTournament as exc:
            raise Refusal(msg("bot.tournament.error.damaged", id=tournament_id)) from exc

    async def _record(self, tournament_id: int) -> TournamentRecord:
        """The tournament's row, or a refusal when there is none."""
        record = await self._stored(tournament_id)
        if record is None:
            raise Refusal(msg("bot.tournament.error.no_such"))
        return record

    async def in_sight(self, sight: Sight, tournament_id: int) -> TournamentRecord:
        """The tournament's row when it is held in ``sight`` (this server, a channel the asker
        may view); the refusal of one that does not exist otherwise (another server's, one in
        a channel they may not view, any asked about in direct messages)."""
        record = await self._record(tournament_id)
        if not sight.sees(record.place_key, record.channel_id):
            raise Refusal(msg("bot.tournament.error.no_such"))
        return record

    async def _rating(self, record: TournamentRecord, user_id: int) -> int:
        """``user_id``'s rating on the tournament's server as people see it."""
        rating = await self.store.rating_of(record.guild_id, user_id)
        return shown_of(None if rating is None else rating.rating).value

    def _signing_up(self, record: TournamentRecord, leaving: bool = False) -> None:
        """Refuse a sign-up or a withdrawal (``leaving``) once sign-up is over: the tournament
        started or was cancelled, or its closing time passed (the timers' next pass starts or
        cancels it). A withdrawal from a tournament started or about to start is pointed to
        /goblin tournament drop, which takes a player out of one under way."""
        if record.status != "signup" or (record.closes_at is not None
                                         and record.closes_at <= self.clock()):
            key = ("bot.tournament.error.signup_over_leave"
                   if leaving and record.status in ("signup", "running")
                   else "bot.tournament.error.signup_over")
            raise Refusal(msg(key, name=plain(record.name)))

    async def join(self, tournament_id: int, user_id: int, name: str) -> View:
        """Sign ``user_id`` up while sign-up lasts."""
        record = await self._record(tournament_id)
        self._signing_up(record)
        rows = await self._rows(tournament_id)
        assert rows is not None
        if any(e.user_id == user_id for e in rows.entrants):
            raise Refusal(msg("bot.tournament.error.already_entered",
                              name=plain(record.name)))
        if len(rows.entrants) >= MAX_ENTRANTS:
            raise Refusal(msg("bot.tournament.error.full", name=plain(record.name),
                              max=MAX_ENTRANTS))
        if not await self.store.enter(tournament_id, user_id, typed(name)[:32],
                                      await self._rating(record, user_id), MAX_ENTRANTS):
            raise await self._not_entered(tournament_id, user_id)
        return await self.view(tournament_id)

    async def _not_entered(self, tournament_id: int, user_id: int) -> Refusal:
        """Why a sign-up the store refused was refused, read again after it (another
        sign-up arriving at the same moment took the last place, or entered the same
        person, or sign-up closed)."""
        rows = await self._rows(tournament_id)
        if rows is None:
            return Refusal(msg("bot.tournament.error.no_such"))
        name = plain(rows.record.name)
        if rows.record.status != "signup":
            return Refusal(msg("bot.tournament.error.signup_over", name=name))
        if any(e.user_id == user_id for e in rows.entrants):
            return Refusal(msg("bot.tournament.error.already_entered", name=name))
        return Refusal(msg("bot.tournament.error.full", name=name, max=MAX_ENTRANTS))

    async def leave(self, tournament_id: int, user_id: int) -> View:
        """Take ``user_id`` off the entrants while sign-up lasts (later: :meth:`drop`)."""
        record = await self._record(tournament_id)
        self._signing_up(record, leaving=True)
        if not await self.store.withdraw(tournament_id, user_id):
            raise Refusal(msg("bot.tournament.error.not_entered", name=plain(record.name)))
        return await self.view(tournament_id)

    async def cancel(self, tournament_id: int, user_id: int, manager: bool = False) -> View:
        """Its host (or a channel manager) closes a tournament still taking sign-ups."""
        record = await self._record(tournament_id)
        self._host_only(record, user_id, manager)
        if record.status != "signup" or not await self.store.cancel_tournament(tournament_id):
            raise Refusal(msg("bot.tournament.error.started", name=plain(record.name)))
        return await self.view(tournament_id)

    @staticmethod
    def _host_only(record: TournamentRecord, user_id: int, manager: bool) -> None:
        """Refuse anyone but the tournament's host or a channel manager."""
        if record.host_id != user_id and not manager:
            raise Refusal(msg("bot.tournament.error.host_only", channel=f"<#{record.channel_id}>"))

    # ------------------------------------------------------------------ the rounds

    async def start(self, tournament_id: int, user_id: int, manager: bool = False) -> Progress:
        """Its host (or a channel manager) closes sign-up and starts the tournament: round 1
        is seated (by rating) and its matches opened."""
        record = await self._record(tournament_id)
        self._host_only(record, user_id, manager)
        return await self._start(record)

    async def _start(self, record: TournamentRecord) -> Progress:
        """Seat round 1 of a tournament taking sign-ups, its entrants' ratings read now; drawn
        again with the entrants as they are when someone signed up or left meanwhile."""
        for _ in range(START_ATTEMPTS):
            if record.status != "signup":
                break
            rows = await self._rows(record.id)
            assert rows is not None
            if len(rows.entrants) < MIN_ENTRANTS:
                raise Refusal(msg("bot.tournament.error.too_few", name=plain(record.name),
                                  count=len(rows.entrants), min=MIN_ENTRANTS))
            ratings = {e.user_id: await self._rating(record, e.user_id) for e in rows.entrants}
            rules = rules_of(rows)
            rules = replace(rules, entrants=tuple(Entrant(e.user, e.name, ratings[e.user])
                                                  for e in rules.entrants))
            progress = await self._seat(record, rules, (), ratings)
            if progress is not None:
                return progress
            record = await self._record(record.id)  # started by another, or sign-up changed
        raise Refusal(msg("bot.tournament.error.started", name=plain(record.name)))

    async def _seat(self, record: TournamentRecord, rules: Tournament,
                    decided: tuple[Decided, ...],
                    ratings: dict[int, int] | None = None) -> Progress | None:
        """Seat the next round of ``rules`` and open its matches, guarded by the round the
        tournament is at (None: another pass seated it first)."""
        number = len(rules.rounds)
        seed = round_seed(record.seed, number + 1)
        after = seat_round(rules, seed)
        seating = after.rounds[-1].seating
        names = {e.user: e.name for e in rules.entrants}
        now = self.clock()
        threaded = True if self.threads is None else await self.threads(record.guild_id)
        undo = True if self.takebacks is None else await self.takebacks(record.guild_id)
        new = [self._new_table(record, seating, pod, names, now, threaded, undo)
               for pod in seating.pods]
        ends = now + record.round_span if record.round_span else None
        ids = await self.store.seat_tournament_round(record.id, number, seed, seating.bye, new,
                                                     ends, ratings)
        if ids is None:
            return None
        opened = tuple([await self.tables.load(i) for i in ids])
        now_record = await self._record(record.id)
        return Progress(now_record, after, decided, Opened(seating, opened))

    @staticmethod
    def _new_table(record: TournamentRecord, seating: Seating, pod: Pod,
                   names: dict[int, str], now: float, threaded: bool,
                   undo: bool = True) -> NewTournamentTable:
        """The match of table ``pod``: its players and AI seats in an order drawn from the
        table's seed (who plays first is drawn), free heroes dealt, the game set up
        (``threaded``: it moves to a thread of its own; ``undo``: its players may take back a
        move)."""
        seed = table_seed(seating.seed, pod.table)
        seats = [SeatInfo(user=u, name=names[u][:32]) for u in pod.players]
        seats += [SeatInfo(ai=True, level=record.ai_level or "normal")
                  for _ in range(pod.ai_seats)]
        random.Random(seed).shuffle(seats)
        started, config = game_config(seats, record.abilities, seed)
        state = new_game(config)
        return NewTournamentTable(pod.table, started, state, seed,
                                  deadline(now, record.timer, started, state, None, True),
                                  threaded, undo)

    async def table_ended(self, table_id: int,
                          ours: Callable[[int], bool] = lambda guild: True) -> Progress | None:
        """A table ended (finished, or closed): when a tournament's round opened it, that
        tournament moves on (:meth:`advance`) if its server is ``ours`` (see :meth:`sweep`);
        None when it is no tournament's or nothing changed."""
        tournament_id = await self.store.tournament_of_table(table_id)
        if tournament_id is None:
            return None
        record = await self._stored(tournament_id)
        if record is None or not ours(record.guild_id):
            return None
        return await self.advance(tournament_id)

    async def close_round(self, tournament_id: int, user_id: int, manager: bool = False,
                          round_number: int | None = None) -> Progress:
        """Its host (or a channel manager) ends the round under way now, as its deadline
        would: each match still playing is closed and decided as it stands, then the next
        round is seated or the tournament ends (``round_number``: the round the asker saw
        under way; refused when it is over already, so two asking at once end one round)."""
        record = await self._record(tournament_id)
        self._host_only(record, user_id, manager)
        if record.status != "running":
            raise Refusal(msg("bot.tournament.error.not_running", name=plain(record.name)))
        if round_number is not None and record.round != round_number:
            raise Refusal(msg("bot.tournament.end_round.closing", name=plain(record.name)))
        progress = await self.advance(tournament_id, now=True)
        if progress is None:  # another pass is moving it on this very moment
            raise Refusal(msg("bot.tournament.end_round.closing", name=plain(record.name)))
        return progress

    async def advance(self, tournament_id: int, now: bool = False) -> Progress | None:
        """Move a running tournament on as far as it goes now: each table of the round under way
        that ended is decided by its match's places, each still playing when the round's
        deadline passed is closed and decided as it stands; once every table is decided, the
        next round is seated, or the tournament ends with its champion (``now``: the round
        ends now, as if its deadline had passed). None when nothing changed (or another pass
        made the change)."""
        rows = await self._rows(tournament_id)
        if rows is None or rows.record.status != "running":
            return None
        record = rows.record
        late = now or record.deadline is not None and record.deadline <= self.clock()
        decided: list[Decided] = []
        for row in rows.tables:
            if row.round == record.round and not row.decided:
                found = await self._decide(record, row, late)
                if found is not None:
                    decided.append(found)
        if decided:
            rows = await self._rows(tournament_id)
            assert rows is not None
            # each result as stored, not as the rows read before it told: a person forgotten
            # meanwhile is their pseudonym there, as everywhere
            stored = {(t.round, t.pod): t for t in rows.tables if t.decided}
            decided = [replace(d, result=stored_result(stored[d.round, d.pod]))
                       if (d.round, d.pod) in stored else d for d in decided]
        for _ in range(MAX_ENTRANTS + 1):  # each try again follows one more player's drop
            rules = rules_of(rows)
            if rules.rounds and not rules.rounds[-1].finished:
                if not decided:
                    return None
                return Progress(rows.record, rules, tuple(decided))
            if is_over(rules):
                if not await self.store.finish_tournament(tournament_id, record.round):
                    return Progress(rows.record, rules, tuple(decided)) if decided else None
                return Progress(await self._record(tournament_id), rules, tuple(decided))
            seated = await self._seat(record, rules, tuple(decided))
            if seated is not None:
                return seated
            again = await self._rows(tournament_id)
            if (again is None or again.record.status != "running"
                    or again.record.round != record.round):
                break  # another pass seated the round (or it was cancelled)
            rows = again  # a player seated dropped out meanwhile: drawn again without them
        # what this pass decided, the round seated by another
        return Progress(rows.record, rules, tuple(decided)) if decided else None

    async def _decide(self, record: TournamentRecord, row: TournamentTableRow,
                      late: bool) -> Decided | None:
        """Decide one table of the round: by its match's result once it ended, as it stands
        when ``late`` (the round's deadline passed: decided and closed in one step, so a pass
        that finds the match closed knows it was decided); None while it plays on, or when
        another pass decided it."""
        try:
            table = await self.tables.load(row.table_id)
        except Refusal:  # a damaged match: its players share the last place
            log.error("tournament %s: table %s cannot be read", record.id, row.table_id)
            return await self._keep(record, row, None, tuple(len(row.seats) for _ in row.seats),
                                    True)
        if table.status == "running":
            if not late:
                return None
            async with self.tables.hold(row.table_id) as table:
                if table.status == "running":
                    closed = await self._close(record, row, table)
                    if closed is not None:
                        return closed
                    table = await self.tables.load(row.table_id)
            if table.status == "running":  # pragma: no cover - moved on under every attempt
                return None
        found = await self.store.result_of(row.table_id)
        result = None if found is None else next(iter(readable([found])), None)
        if result is not None:  # its places: those who left it to the AI last
            ranks = result_places(result)
        elif table.state is not None:  # closed, not rated: as it stood then, who left it last
            abandoner = await self._forfeit(record, row)
            ranks = forfeited(places(table.state),
                              left_to_ai(table) | ({abandoner} if abandoner is not None
                                                   else set()))
        else:  # pragma: no cover - a tournament's match is opened running, with a state
            ranks = tuple(len(row.seats) for _ in row.seats)
        return await self._keep(record, row, table, ranks, False)

    async def _forfeit(self, record: TournamentRecord, row: TournamentTableRow) -> int | None:
        """The seat whose person abandoned the match of ``row``, read again now its match is
        found closed (``row`` may have been read before: the seat is stored as the match
        closes)."""
        if row.forfeit is not None:
            return row.forfeit
        rows = await self._rows(record.id)
        now = None if rows is None else next(
            (t for t in rows.tables if (t.round, t.pod) == (row.round, row.pod)), None)
        return None if now is None else now.forfeit

    async def _close(self, record: TournamentRecord, row: TournamentTableRow,
                     table: TableRecord) -> Decided | None:
        """Close a match the round's deadline decided and keep its places as it stands, in one
        step guarded by its version and revision (under its lock; not rated, as a match closed
        before its end). Another process's move in between, or its change of the seats (one
        handed to the AI, a person forgotten), is retried over, the places taken again from the
        match as it is; None once the match is found no longer running (its end came
        meanwhile, or another pass closed it): the caller decides it as it ended."""
        for _ in range(CLOSE_ATTEMPTS):
            left = left_to_ai(table)
            # who sits where as the match read says (a person forgotten: their pseudonym)
            users = tuple(None if u is None else table.seats[i].user
                          for i, u in enumerate(row.seats))
            if await self.store.close_at_deadline(record.id, row.round, row.pod,
                                                  forfeited(places(table.game), left),
                                                  table.id, table.version, table.revision):
                return Decided(row.round, row.pod, await self.tables.load(table.id),
                               deadline_result(row.pod, users, table.game, left))
            table = await self.tables.load(table.id)
            if table.status != "running":
                return None
        log.error("tournament table %s could not be closed at its deadline", table.id)
        return None

    async def _keep(self, record: TournamentRecord, row: TournamentTableRow,
                    table: TableRecord | None, ranks: Sequence[int],
                    at_deadline: bool) -> Decided | None:
        """Store the places of one table (guarded: None when decided already)."""
        if not await self.store.decide_tournament_table(record.id, row.round, row.pod, ranks,
                                                        at_deadline):
            return None
        result = PodResult(row.pod, tuple((u, p) for u, p in zip(row.seats, ranks, strict=True)
                                          if u is not None), at_deadline)
        return Decided(row.round, row.pod, table, result)

    async def channel_gone(self, channel_id: int) -> list[int]:
        """Channel ``channel_id`` was deleted: every tournament held there, taking sign-ups or
        under way, is cancelled (no round is seated after, no standings nor champion are
        posted; the matches of the round under way go with the channel, closed as abandoned,
        rated as any match whose channel is deleted, and left undecided here). The ids of the
        tournaments cancelled now."""
        cancelled = await self.store.cancel_tournaments_in(channel_id)
        for tid in cancelled:
            log.info("tournament %s cancelled: its channel %s was deleted", tid, channel_id)
        return cancelled

    async def drop(self, tournament_id: int, user_id: int, by: int | None = None,
                   manager: bool = False) -> View:
        """``user_id`` drops out of a running tournament (``by``: someone else dropping them,
        its host or a channel manager): seated in no later round, their match under way plays
        on, their points stay."""
        record = await self._record(tournament_id)
        if by is not None and by != user_id:
            self._host_only(record, by, manager)
        if record.status != "running":
            raise Refusal(msg("bot.tournament.error.not_running", name=plain(record.name)))
        rows = await self._rows(tournament_id)
        assert rows is not None
        # the refusals name the player asked about when someone else drops them
        other = {} if by is None or by == user_id else {"who": f"<@{user_id}>"}
        entrant = next((e for e in rows.entrants if e.user_id == user_id), None)
        if entrant is None:
            raise Refusal(msg("bot.tournament.error.not_entered" + ("_other" if other else ""),
                              name=plain(record.name), **other))
        if entrant.dropped_after is not None or not await self.store.drop_entrant(
                tournament_id, user_id):
            raise Refusal(msg("bot.tournament.error.dropped" + ("_other" if other else ""),
                              name=plain(record.name), **other))
        return await self.view(tournament_id)

    # ------------------------------------------------------------------ the pass

    async def sweep(self, ours: Callable[[int], bool] = lambda guild: True) -> list[Progress]:
        """One pass over every tournament of the servers that are ``ours`` (the scheduler's
        timer pass; safe to run twice, or in two processes; with several processes, each moves
        on the tournaments of its own shards' servers, so a round's matches begin in the
        process that takes them up and answers their clicks): each running one moved on as far
        as it goes (:meth:`advance`), each whose sign-up closed started (or cancelled, with too
        few players). What changed, one :class:`Progress` each; one tournament's trouble never
        stops the others."""
        out: list[Progress] = []
        now = self.clock()
        for tid in await self.store.tournaments_with_status("signup", "running"):
            try:
                record = await self._record(tid)
                if not ours(record.guild_id):
                    continue
                if record.status == "running":
                    progress = await self.advance(tid)
                elif record.closes_at is not None and record.closes_at <= now:
                    progress = await self._closed(record)
                else:
                    continue
            except Refusal:
                continue
            except Exception:  # one tournament's trouble never stops the others
                log.exception("tournament %s cannot move on", tid)
                continue
            if progress is not None:
                out.append(progress)
        return out

    async def _closed(self, record: TournamentRecord) -> Progress | None:
        """Sign-up closed by its time: the tournament starts, or is cancelled with fewer than
        :data:`MIN_ENTRANTS` players."""
        rows = await self._rows(record.id)
        assert rows is not None
        if len(rows.entrants) >= MIN_ENTRANTS:
            return await self._start(record)
        if not await self.store.cancel_tournament(record.id):
            return None
        return Progress(await self._record(record.id), rules_of(rows))


__all__ = ["MAX_ENTRANTS", "MAX_NAME", "MAX_ROUNDS", "MIN_ENTRANTS", "Decided", "Opened",
           "Progress", "Tournaments", "View", "round_seed", "rules_of", "stored_result",
           "table_seed"]
