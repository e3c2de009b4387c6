"""Slow matches' reminders on Discord (what is due: :mod:`bot.game.reminders`).

The turn's start pings the person in the table's channel (or thread): the table message posted
for a person's new turn mentions them (:meth:`Messages.post_table`), at a slow match as at any
other. The one direct message after a quarter of their time is sent here: the ``reminders``
loop (supervised like the turn timers) sends the due reminders of the tables this process holds
the lease of, a few at a time, each a direct message with a link to the table message and the
time left. The loop's pass is taken when the next reminder falls due (the last pass saw every
slow turn, so it knows when), at the latest :data:`POLL` seconds after the last one (a turn that
started since is seen then: its reminder is due a quarter of an hour later at the soonest); one
more is taken at once when the bot's clock jumps (the playground's clock control). So a
reminder goes out as soon as it is due and the ones due before it are sent, not at the next
tick of a fixed grid of passes. A reminder whose table's messages are being brought up to date
(its feed has work) waits for a pass a few seconds later: after a restart, the first request to
a match's thread or channel may find it deleted (or a thread locked) while the bot was away (the
match closed, no reminder pointing to it), or post the turn's table message anew; so does one
whose match is being closed for that. The requests go through discord.py's rate-limit handling and
the bot's global wait (:mod:`bot.discord_side.ratelimits`): a 429 is waited out, never a
reason to drop a reminder; nor is a failure (Discord's, or the connection's) before the direct
message went out, after which the next pass tries again (nothing was sent).

Each reminder is recorded as sent just before its direct message is asked for, a few at a
time, not the whole pass at once (see :mod:`bot.game.reminders`). Once the bot is stopping,
no further one is begun; one the stop cuts off before its request went out (while it waited
out a rate limit) is released, and the next start sends it. Whether the request went out is
told by the HTTP client's trace (:meth:`Reminders.install`): from the moment its headers are
written it may have reached Discord, unless Discord answered 429 (nothing posted); then it
stays recorded as sent, never two per turn.

A person whose direct messages are closed (Discord answers 403 with code 50007) is noted once,
in the log and in the database: no direct message is tried again, after a restart neither.
Discord answers 50007 too for a person who shares no server with the bot: one who left the
match's server (the bot hears nothing of it) would be taken for one whose direct messages are
closed, and get no reminder once back. So a refusal of a server's match's reminder asks Discord
whether the person is still a member there (one request, no privileged intent needed, only
when refused): one who left is not noted, gets none for that turn, and the next one once back.
One who left but shares another server with the bot still gets theirs.

Every click on a table's components is seen here too (a listener of the client's
``on_interaction``, apart from the routing of the click): during the clicker's own turn of a
slow match it marks them active (no reminder for that turn).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import aiohttp
import discord
from discord.http import Route

from bot.discord_side.context import DMS_CLOSED, UNDELIVERED, jump_url, spoken, why
from bot.discord_side.ui.custom_ids import parse
from bot.game.leases import Leases
from bot.game.reminders import Reminder, Reminding
from bot.game.service import GameService
from bot.game.spans import time_left
from bot.storage.records import CannotSave, StorageError, TableRecord
from bot.supervision.tasks import Tasks
from i18n import msg, translate

log = logging.getLogger("karak.bot")
#: The name of the loop sending reminders (in the log and the health check).
REMINDER_LOOP = "reminders"
#: Seconds at most between two passes of the loop (a pass is taken sooner when a reminder
#: falls due sooner).
POLL = 15.0
#: Reminders sent at once (each waits for its route's rate limit and the global one).
AT_ONCE = 8
#: Seconds at most before the loop's next pass when a due reminder was held back while its
#: table's messages were being brought up to date.
HELD_BACK = 5.0
#: Discord's JSON error codes for a person who is not a member of a server: Unknown Member,
#: Unknown User (their account was deleted).
NOT_A_MEMBER = (10007, 10013)
NO_MENTIONS = discord.AllowedMentions.none()


@dataclass
class _Post:
    """The request of one reminder's direct message: whether it may have reached Discord."""

    out: bool = False


#: The direct message being posted by the running task (its requests' trace marks it).
_POSTING: ContextVar[_Post | None] = ContextVar("reminder_post", default=None)


async def _headers_sent(session: aiohttp.ClientSession, context: SimpleNamespace,
                        params: aiohttp.TraceRequestHeadersSentParams) -> None:
    """A request is going out: a reminder's direct message may reach Discord from now on."""
    post = _POSTING.get()
    if post is not None:
        post.out = True


async def _answered(session: aiohttp.ClientSession, context: SimpleNamespace,
                    params: aiohttp.TraceRequestEndParams) -> None:
    """Discord answered a request: a 429 posted nothing (discord.py waits, then asks again)."""
    post = _POSTING.get()
    if post is not None and params.response.status == 429:
        post.out = False


class Reminders:
    """Sends the due reminders of one bot's tables, and notes who is active."""

    def __init__(self, client: discord.Client, service: GameService, tasks: Tasks,
                 leases: Leases, poll: float = POLL,
                 settling: Callable[[TableRecord], bool] = lambda record: False) -> None:
        self.client = client
        self.tasks = tasks
        self.leases = leases
        self.poll = poll
        #: Whether a table's messages are still being brought up to date (its feed has work:
        #: after a restart, the first request to its thread or channel may find it deleted),
        #: or its match is being closed (a request found its thread or channel gone, or its
        #: thread locked).
        self.settling = settling
        self._held = False  # a due reminder was held back by the last pass
        self.reminding = Reminding(service.store, service.tables, service.clock)
        self.clock = service.clock
        #: Direct messages sent (tests, benchmarks).
        self.sent = 0
        self._loop: asyncio.Task[Any] | None = None
        self._passing = asyncio.Lock()  # one pass at a time (the loop's, or one asked for)
        self._dms: dict[int, int] = {}  # user -> their direct-message channel

    def install(self, client: Any) -> None:
        """Listen to the client's interactions (who is active), and trace its requests
        (whether a reminder's direct message went out: before the client's session opens)."""
        client.add_listener(self.on_interaction, "on_interaction")
        trace: aiohttp.TraceConfig | None = getattr(client.http, "http_trace", None)
        if trace is not None:
            trace.on_request_headers_sent.append(_headers_sent)
            trace.on_request_end.append(_answered)

    def start(self) -> None:
        """Start the loop sending due reminders (once), its first pass at once (what fell due
        while the bot was stopped goes out now; the slow matches are known from then on)."""
        if self._loop is None:
            self._loop = self.tasks.repeat(self.send_due, REMINDER_LOOP, self.pause,
                                           endless=True)

    def pause(self) -> float:
        """Seconds until the loop's next pass: until the next reminder falls due, at most
        :attr:`poll`, or :data:`HELD_BACK` when the last pass held one back (none before the
        first pass)."""
        pause = min(self.poll, max(0.0, self.reminding.upcoming - self.clock()))
        return min(pause, HELD_BACK) if self._held else pause

    def wake(self) -> None:
        """The bot's clock jumped forward: a pass now, besides the loop's (once it runs)."""
        if self._loop is not None:
            self.tasks.spawn(self.send_due(), f"{REMINDER_LOOP}-now")

    async def send_due(self) -> bool:
        """Send every reminder due now at the tables this process holds, :data:`AT_ONCE` at a
        time (one pass at a time; none begun once the bot is stopping: the next start sends
        them); one whose table's messages are still being brought up to date is held back for
        a pass a few seconds later (after a restart, its thread or channel may be found deleted
        while the bot was away, its match closed, or its turn's table message posted anew:
        the reminder would point to what is gone). True (the loop goes on)."""
        async with self._passing:
            due = await self.reminding.due(self.leases.holding)
            ready = [r for r in due if not self.settling(r.record)]
            self._held = len(ready) < len(due)
            due = ready
            gate = asyncio.Semaphore(AT_ONCE)

            async def one(reminder: Reminder) -> None:
                async with gate:
                    if not self.tasks.stopping:
                        await self.send(reminder)

            await asyncio.gather(*(one(r) for r in due))
        return True

    async def send(self, reminder: Reminder) -> None:
        """Record one reminder as sent and send its direct message (none when another pass
        or process recorded it first; a refusal for closed direct messages noted). When
        nothing went out (the direct messages could not be opened, the connection failed
        before the message was sent, the bot was stopped while it waited), the reminder is
        released for the next pass. Another failure is logged: the reminder stays recorded as
        sent (Discord may have posted it), never two per turn."""
        record = reminder.record
        text = translate(msg("remind.dm", table=record.id, link=jump_url(record),
                             left=time_left(reminder.deadline - self.clock()),
                             deadline=int(reminder.deadline)), reminder.language)
        post, claimed = _Post(), False
        try:
            if not (claimed := await self.reminding.claim(reminder)):
                return
            channel = await self.direct(reminder.user)
            token = _POSTING.set(post)
            try:
                await channel.send(content=text[:2000], allowed_mentions=NO_MENTIONS)
            finally:
                _POSTING.reset(token)
        except UNDELIVERED as exc:
            if await self._closed(reminder, exc):
                return
            if post.out:
                log.warning("could not remind user %s of table %s (%s)", reminder.user,
                            record.id, why(exc))
                return
            log.warning("could not reach Discord to remind user %s of table %s (%s): tried "
                        "again", reminder.user, record.id, why(exc))
            await self.reminding.unsent(reminder)
            return
        except asyncio.CancelledError:
            if claimed and not post.out:  # stopped before it went out: sent after the restart
                await self._cut_off(reminder)
            raise
        self.sent += 1

    async def _cut_off(self, reminder: Reminder) -> None:
        """The bot stopped before ``reminder``'s direct message went out: released."""
        log.info("stopped before reminding user %s of table %s: left for the next start",
                 reminder.user, reminder.record.id)
        try:
            await self.reminding.unsent(reminder)
        except Exception:  # noqa: BLE001 - the stop goes on; the reminder stays recorded
            log.warning("could not release the reminder of user %s at table %s",
                        reminder.user, reminder.record.id, exc_info=True)

    async def _closed(self, reminder: Reminder, exc: BaseException) -> bool:
        """True when ``exc`` says the person's direct messages are closed (then noted), or
        that they share no server with the bot any more, having left the match's (not noted:
        no reminder for this turn)."""
        if not isinstance(exc, discord.Forbidden) or exc.code != DMS_CLOSED:
            return False
        guild = reminder.record.guild_id
        if guild is not None and not await self.member(guild, reminder.user):
            log.info("user %s is no longer in the server of table %s: not reminded",
                     reminder.user, reminder.record.id)
            await self.reminding.away(reminder)
            return True
        log.info("the direct messages of user %s are closed: no reminder is sent to them",
                 reminder.user)
        await self.reminding.refused(reminder)
        return True

    async def member(self, guild: int, user: int) -> bool:
        """Whether ``user`` is still a member of server ``guild``, asked of Discord (the bot
        hears nothing when someone leaves); True when Discord could not tell."""
        try:
            await self.client.http.get_member(guild, user)
        except discord.NotFound as exc:
            return exc.code not in NOT_A_MEMBER
        except UNDELIVERED as exc:
            log.warning("could not ask whether user %s is in server %s (%s): reminded",
                        user, guild, why(exc))
        return True

    async def direct(self, user: int) -> discord.PartialMessageable:
        """The direct-message channel with ``user`` (opened once per user and kept: one
        request per person, not one per reminder). The user id goes as a string, as
        Discord's API describes it (discord.py's ``create_dm`` sends a number)."""
        known = self._dms.get(user)
        if known is None:
            data = await self.client.http.request(Route("POST", "/users/@me/channels"),
                                                  json={"recipient_id": str(user)})
            known = self._dms[user] = int(data["id"])
        return self.client.get_partial_messageable(known, type=discord.ChannelType.private)

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        """Any interaction: the language its person's client speaks (see
        :meth:`Reminding.spoke`); a click on a table's component: its person is active there
        (see :meth:`Reminding.clicked`)."""
        try:
            await self.reminding.spoke(interaction.user.id, spoken(interaction))
        except StorageError as exc:  # the database away or failing: the next interaction
            log.info("could not note the language of user %s (%s)", interaction.user.id, exc)
        except Exception:  # noqa: BLE001 - a reminder's language is no reason to fail anything
            log.warning("could not note the language of user %s", interaction.user.id,
                        exc_info=True)
        if interaction.type is not discord.InteractionType.component:
            return
        data: Any = interaction.data or {}
        custom_id = data.get("custom_id") if isinstance(data, dict) else None
        if not isinstance(custom_id, str):
            return
        table = getattr(parse(custom_id), "table", None)
        if isinstance(table, int):
            try:
                await self.reminding.clicked(table, interaction.user.id)
            except CannotSave as exc:  # the database away or failing: the click says so itself
                log.warning("could not note a click on table %s (%s)", table, exc)
            except Exception:  # noqa: BLE001 - a reminder too many is no reason to fail a click
                log.exception("could not note a click on table %s", table)


__all__ = ["POLL", "REMINDER_LOOP", "Reminders"]
