"""Slow matches remind people whose turn waits, with no Discord in sight.

At a table whose turn timer is :data:`SLOW` or more, the person whose turn it is gets one
direct message once :data:`SHARE` of their time has passed (the table message pinged them
when the turn started; at a tournament's match, their time ends with the round, when that
comes before their turn's deadline: the match is then decided as it stands), when:

- they asked for reminders (``/goblin notify on``);
- they were not *active* in that match since their turn started: active means they clicked
  something of the table (My hand, a move, the Log...) during their turn; the time of each
  person's last click at each slow match is stored (``seat_seen``, one small write per click,
  only at slow matches; no table is read for it);
- their direct messages were never found closed (then no message is tried again);
- Discord does not refuse the direct message. It refuses it to a person who shares no server
  with the bot, as to one whose direct messages are closed; the bot hears nothing when someone
  leaves a server (that needs Discord's privileged members intent) and does nothing about it:
  their turns are played by the turn timer, as anyone's who is away. So a refusal asks
  Discord whether they are still in the match's server (:mod:`bot.discord_side.reminders`):
  one who left is recorded ``away`` for that turn and not taken for one whose direct messages
  are closed, so back in the server they get the next turn's.

Nothing is kept per turn until its reminder is due: the turn is named by its deadline, which
the table stores when the turn starts and keeps through all the moves of that turn (so a
restart loses nothing). Once due, each reminder is recorded just before it is sent
(:meth:`Reminding.claim`, ``sent``; ``active`` at once when the person was active): never two
per turn, whichever process or restart. Those due together are claimed one by one as they go
out, not all at once: a stop or a crash during a long pass (many due after a restart, held up
by Discord's rate limits) leaves the ones not begun unclaimed, and the next start sends them.
One of which nothing reached Discord (a stop cut it off while it waited for its turn, a
connection that failed before it was sent) is released again (:meth:`Reminding.unsent`). Only
a hard crash (the process killed) between the claim and the send can lose a reminder: the few
on their way then (a handful at a time are).
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from bot.game.refusals import Refusal
from bot.game.seats import turn_end
from bot.game.tables import Tables
from bot.storage.core.reminders import ACTIVE, AWAY, CLOSED, SENT, turn_of
from bot.storage.core.rows import keep
from bot.storage.interface import Storage
from bot.storage.records import TableRecord
from i18n import LOCALES

#: Turn timers of this many seconds or more remind people.
SLOW = 3600
#: The reminder goes out once this share of the turn's time has passed.
SHARE = 0.25
#: People whose Discord language this process last found stored, kept to store it only when
#: it changes (the oldest forgotten first beyond this many).
SPOKEN = 10_000


def shipped(locale: str | None) -> str | None:
    """The shipped language of a Discord locale (``fr``, ``en-US``, ``cs``), None when the bot
    speaks none of it (or none is known)."""
    base = (locale or "").replace("_", "-").split("-")[0].lower()
    return base if base in LOCALES else None


@dataclass(frozen=True, slots=True)
class Reminder:
    """A reminder to send now: ``user``'s turn at ``record`` ends at ``record.deadline``, or
    at ``ends`` when that is sooner (its tournament's round ends then, deciding the match);
    ``locale``: the Discord language of their client, as last stored (None: not known)."""

    record: TableRecord
    user: int
    turn: int
    due: float
    ends: float | None = None
    locale: str | None = None

    @property
    def language(self) -> str:
        """The language the reminder speaks: its person's own, when the bot speaks it, else
        the table's."""
        return shipped(self.locale) or self.record.locale

    @property
    def deadline(self) -> float:
        """When the turn's time is up: its deadline, or its round's end when sooner."""
        assert self.record.deadline is not None
        return turn_end(self.record.deadline, self.ends)


def slow_turn(record: TableRecord, ends: float | None = None
              ) -> tuple[int, float, float] | None:
    """(the person, when their turn started, when its reminder is due) of the running slow
    match ``record`` whose turn is a person's (``ends``: when its tournament's round ends: the
    turn has until then at most, and its reminder is due after a quarter of that); else
    None."""
    if (record.status != "running" or record.state is None or record.deadline is None
            or record.timer < SLOW):
        return None
    seat = record.seats[record.game.current]
    if seat.ai or seat.user is None:
        return None
    start = record.deadline - record.timer
    return seat.user, start, start + (turn_end(record.deadline, ends) - start) * SHARE


@dataclass
class Reminding:
    """Which reminders are due, and what became of them (``clock``: the service's)."""

    store: Storage
    tables: Tables
    clock: Callable[[], float]
    #: The running slow matches, as the last pass of :meth:`due` found them, and those that
    #: began here since.
    slow: set[int] = field(default_factory=set)
    #: When the next reminder falls due, as the last pass of :meth:`due` found the slow turns
    #: (minus infinity before the first pass, infinity when no turn's reminder is to come).
    upcoming: float = -math.inf
    #: The slow matches that began here while the pass under way reads the running tables.
    _began: set[int] = field(default_factory=set)
    #: person -> the Discord language this process last found stored for them, or stored
    #: (:meth:`spoke`; at most :data:`SPOKEN` people, the oldest forgotten first)
    _spoken: dict[int, str] = field(default_factory=dict)

    async def due(self, holding: Callable[[int], Awaitable[bool]]) -> list[Reminder]:
        """The reminders to send now at the tables this process is ``holding`` (the lease of:
        only its holder reminds), earliest due first, none recorded yet (each is
        :meth:`claim`-ed as it goes out); one whose person was active since their turn
        started is recorded as such and left out;
        people who did not ask for reminders, or whose direct messages are closed, are left
        out, and so is a turn whose time is up (the bot was stopped past its deadline: the
        timers' next pass plays it). :attr:`upcoming` then tells when the next one falls due."""
        now = self.clock()
        self._began = set()
        found: list[tuple[TableRecord, int, float, float]] = []
        slow: set[int] = set()
        turns: list[TableRecord] = []
        upcoming = math.inf
        for tid in await self.tables.ids_with_status("running"):
            try:
                record = await self.tables.load(tid)
            except Refusal:
                continue
            if record.timer >= SLOW:
                slow.add(tid)
            if slow_turn(record) is not None:
                turns.append(record)
        ends = await self.store.round_ends([r.id for r in turns]) if turns else {}
        for record in turns:
            waiting = slow_turn(record, ends.get(record.id))
            assert waiting is not None and record.deadline is not None
            if turn_end(record.deadline, ends.get(record.id)) <= now:
                continue  # none of a turn whose time is up: the AI plays it, or the round's
                # end decides the match, at once
            if waiting[2] > now:
                upcoming = min(upcoming, waiting[2])
            elif await holding(record.id):
                found.append((record, *waiting))
        self.slow = slow | self._began
        self.upcoming = upcoming
        if not found:
            return []
        ids = [r.id for r, *_ in found]
        users = {user for _, user, _, _ in found}
        done = await self.store.reminders_of(ids)
        asked = await self.store.notify_wanted(users) - await self.store.dms_closed(users)
        spoken = await self.store.notify_locales(asked)
        seen = await self.store.seen_at(ids)
        out: list[Reminder] = []
        for record, user, start, due in sorted(found, key=lambda f: f[3]):
            assert record.deadline is not None
            turn = turn_of(record.deadline)
            if user not in asked or (record.id, user, turn) in done:
                continue
            if seen.get((record.id, user), float("-inf")) >= start:
                await self.store.claim_reminder(record.id, user, turn, due, ACTIVE)
            else:
                out.append(Reminder(record, user, turn, due, ends.get(record.id),
                                    spoken.get(user)))
        return out

    async def claim(self, reminder: Reminder) -> bool:
        """Record ``reminder`` as sent, just before it is sent; False when it was recorded
        already (by another pass or process since :meth:`due`): then it is not sent."""
        return await self.store.claim_reminder(reminder.record.id, reminder.user,
                                               reminder.turn, reminder.due, SENT)

    async def away(self, reminder: Reminder) -> None:
        """The person is no longer in the match's server (Discord refused the direct message:
        they share none with the bot): no reminder for this turn, and their direct messages
        are not noted as closed."""
        await self.store.set_reminder(reminder.record.id, reminder.user, reminder.turn, AWAY)

    async def refused(self, reminder: Reminder) -> None:
        """Discord refused the reminder: the person's direct messages are closed (noted once:
        none is tried again)."""
        await self.store.set_reminder(reminder.record.id, reminder.user, reminder.turn, CLOSED)
        await self.store.note_dms_closed(reminder.user, self.clock())

    async def unsent(self, reminder: Reminder) -> None:
        """Nothing of the reminder reached Discord (the connection dropped, Discord failed, or
        the bot was stopped, before its direct message went out): the next pass sends it."""
        await self.store.release_reminder(reminder.record.id, reminder.user, reminder.turn)

    def began(self, record: TableRecord) -> None:
        """The game of ``record`` started here: at a slow match, clicks are noted from now on,
        not only once the next pass of :meth:`due` finds it running (its first player, pinged
        as it starts, opens their hand at once)."""
        if record.timer >= SLOW:
            self.slow.add(record.id)
            self._began.add(record.id)

    async def clicked(self, table_id: int, user_id: int) -> None:
        """``user_id`` clicked something of table ``table_id``: at a slow match (one the last
        pass of :meth:`due` found running, or that began here since), that is noted (a click
        during their own turn makes them active: no reminder for that turn). No table is read
        for it."""
        if table_id in self.slow:
            await self.store.seen(table_id, user_id, self.clock())

    async def spoke(self, user_id: int, locale: str) -> None:
        """``user_id``'s Discord client speaks ``locale`` (each interaction of theirs tells):
        stored for their reminders when it differs from what is stored. What this process
        last found stored is kept, so an interaction in the same language costs nothing more;
        nothing is stored for a person who never chose whether to get reminders (they get
        none: ``/goblin notify`` stores the language it is asked in)."""
        if self._spoken.get(user_id) == locale:
            return
        stored = await self.store.notify_locales([user_id])
        if user_id in stored and stored[user_id] != locale:
            await self.store.note_locale(user_id, locale)
        keep(self._spoken, user_id, locale, SPOKEN)


__all__ = ["SHARE", "SLOW", "SPOKEN", "Reminder", "Reminding", "shipped", "slow_turn"]
