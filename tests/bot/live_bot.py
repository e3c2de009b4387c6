"""The real bot in the test's event loop, connected to the loopback stand-in.

:class:`LiveBot` wires the bot as ``bot/process/app.py`` does (a real SQLite file, the game service,
:class:`~bot.discord_side.client.KarakBot` with real discord.py) but with an injected clock,
seeded games,
no AI pace, and discord.py's HTTP and gateway pointed at a :class:`~loopback.Loopback` served on
127.0.0.1 in the same loop. People act through the stand-in (``lb.command``, ``lb.click``,
``lb.select``: every check Discord makes), and tests read what Discord would show: the stand-in's
messages, components, attachments and interactions, and its record of broken rules.

:meth:`LiveBot.settle` waits until everything the bot started (answers, AI turns, table edits)
is done, so a test reads the outcome without sleeping. :func:`record_requests` keeps the requests
the stand-in received, bodies included, for the few checks about how the bot asked.
"""
from __future__ import annotations

import asyncio
import contextlib
import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from discordpy_client import discordpy_client
from pace_clock import PaceClock

from bot.discord_side.client import KarakBot
from bot.discord_side.ui.custom_ids import (
    AbandonButton,
    HandButton,
    LobbyOp,
    Move,
    MoveMenu,
    OpenHand,
    SureButton,
    parse,
)
from bot.game.service import GameService
from bot.process.compose import compose
from bot.storage.interface import Storage
from bot.storage.sqlite import Store
from bot.workers.pool import FEEDER
from bot.workers.thinking import Thinking
from loopback import (
    Channel,
    Guild,
    Interaction,
    InteractionFailed,
    Loopback,
    Message,
    User,
)
from loopback.world import Reply, Upload

GUILD = 1200000000000000001
CHANNEL = 1300000000000000001
LINK = f"https://discord.com/channels/{GUILD}/{CHANNEL}/"

__all__ = ["CHANNEL", "GUILD", "LINK", "Call", "LiveBot", "User", "component",
           "dismissed_on_answer", "offered", "on_answer", "record_requests", "resolve",
           "table_id"]

#: Tasks of the stand-in's server side and of a running client that never end by themselves.
_RESIDENT = ("RequestHandler.start", "RequestHandler._handle_request", "Connection.writer",
             "Loopback._watch", "Client.connect", "AutoShardedClient.connect", "KarakBot.connect",
             "Shard.worker",
             # a PostgreSQL store's: its listening connection, and its pool refilling itself
             # while the server is out of reach; a test's relay to the server
             "Listener._keep", "Pool._maintain_min_size", "Relay._pump")


# ---------------------------------------------------------------------------- requests


@dataclass
class Call:
    """One request the stand-in received: method, path after ``/api/v10``, JSON body, the names
    of the uploaded files, and the status it answered."""

    method: str
    path: str
    body: Any
    files: list[str]
    status: int = 0

    @property
    def callback(self) -> bool:
        """An interaction's initial response."""
        return self.path.startswith("/interactions/") and self.path.endswith("/callback")

    @property
    def followup(self) -> bool:
        """A follow-up message through an interaction's token."""
        return self.method == "POST" and bool(re.fullmatch(r"/webhooks/[^/]+/[^/]+", self.path))

    @property
    def original_edit(self) -> bool:
        """An edit of an interaction's original response."""
        return self.method == "PATCH" and self.path.endswith("/messages/@original")

    @property
    def channel_post(self) -> bool:
        """A new message posted in a channel."""
        return self.method == "POST" and bool(re.fullmatch(r"/channels/\d+/messages", self.path))


def record_requests(lb: Loopback) -> list[Call]:
    """From now on, every request ``lb`` receives is appended to the returned list."""
    calls: list[Call] = []
    real = lb.world.rest

    async def rest(method: str, path: str, query: dict[str, str], auth: str | None, body: Any,
                   uploads: list[Upload]) -> Reply:
        call = Call(method.upper(), path, body, [u.filename for u in uploads])
        calls.append(call)
        reply = await real(method, path, query, auth, body, uploads)
        call.status = reply.status
        return reply

    lb.world.rest = rest  # type: ignore[method-assign]
    return calls


def on_answer(lb: Loopback, message: Message, then: Callable[[], None],
              before: bool = False) -> None:
    """Run ``then`` once, the moment the stand-in has taken the bot's first answer to a click
    on ``message`` (something happening on Discord while the bot is at work); ``before``: the
    moment that answer arrives, before the stand-in takes it."""
    real = lb.world.rest
    done: list[bool] = []

    async def rest(method: str, path: str, query: dict[str, str], auth: str | None, body: Any,
                   uploads: list[Upload]) -> Reply:
        iid = path.split("/")[2] if path.startswith("/interactions/") else ""
        ix = lb.interactions.get(int(iid)) if iid.isdigit() else None
        now = ix is not None and ix.message_id == message.id and not done
        if now and before:
            done.append(True)
            then()
        reply = await real(method, path, query, auth, body, uploads)
        if now and not done:
            done.append(True)
            then()
        return reply

    lb.world.rest = rest  # type: ignore[method-assign]


def dismissed_on_answer(lb: Loopback, message: Message) -> None:
    """The person dismisses ``message`` (deletes it) after clicking on it, while the bot is at
    work: just before the bot's answer to the click reaches Discord."""
    on_answer(lb, message, lambda: lb.delete_message(message), before=True)


# ---------------------------------------------------------------------------- messages


def resolve(message: Message, custom_id: str) -> str:
    """``custom_id`` as the message carries it: a lobby button named without the lobby revision
    it was drawn at (as an older bot wrote it) is found with it."""
    ids = message.custom_ids()
    if custom_id in ids:
        return custom_id
    longer = [i for i in ids if i.startswith(custom_id + ":")]
    return longer[0] if len(longer) == 1 else custom_id


def component(message: Message, custom_id: str) -> dict[str, Any]:
    """The button or menu ``custom_id`` (see :func:`resolve`) of ``message``."""
    found = message.component(resolve(message, custom_id))
    if found is None:
        raise KeyError(custom_id)
    return found


def offered(message: Message) -> dict[str, tuple[str, str | None]]:
    """notation -> (custom_id, option value or None) of every move the message offers."""
    out: dict[str, tuple[str, str | None]] = {}
    for c in message.items():
        cid = str(c.get("custom_id", ""))
        target = parse(cid)
        if c.get("type") == 2 and isinstance(target, Move):
            out[target.notation] = (cid, None)
        elif c.get("type") == 3 and cid.startswith(MoveMenu.prefix):
            for o in c.get("options") or []:
                out[o["value"]] = (cid, o["value"])
    return out


def table_id(message: Message) -> int:
    """The table of a lobby or table message (its first lobby or "My hand" button)."""
    targets = [parse(c) for c in message.custom_ids()]
    return next(t.table for t in targets if isinstance(t, LobbyOp | OpenHand))


# ---------------------------------------------------------------------------- the bot


class LiveBot:
    """One running bot (a "process") on ``lb``, in guild :data:`GUILD`, channel
    :data:`CHANNEL`."""

    #: The bots started and not stopped yet: the bot tests stop those a test left running when
    #: it ends, passed or failed (:meth:`stop_left`, the ``left_bots_stopped`` fixture).
    running: ClassVar[list[LiveBot]] = []

    def __init__(self, lb: Loopback, bot: KarakBot, store: Storage,
                 connection: contextlib.AsyncExitStack) -> None:
        self.lb = lb
        self.bot = bot
        self.store = store
        self.guild: Guild = lb.guilds[GUILD]
        self.channel: Channel = lb.channels[CHANNEL]
        self._connection = connection

    @staticmethod
    def world(lb: Loopback, guild_locale: str = "en-US") -> None:
        """Create the guild and channel the bot plays in (before the bot connects)."""
        guild = lb.create_guild("Karak Club", locale=guild_locale, guild_id=GUILD)
        lb.create_channel(guild, "games", channel_id=CHANNEL)

    @classmethod
    async def start(cls, lb: Loopback, db: Path | Storage, renderer: Any = None, *,
                    clock: Callable[[], float], seeds: Callable[[], int] | None = None,
                    thinking: Thinking | None = None, dev_guild: int | None = None,
                    pace: PaceClock | None = None, threads: bool = False) -> LiveBot:
        """Open the database (``db``: an SQLite file, or a store opened already, which
        :meth:`stop` closes too) and connect a new bot to ``lb`` (commands synced when they
        changed, tables resumed, READY received), settled; ``thinking`` makes the AI seats'
        decisions (default: as the bot does, hard ones in a worker process). ``threads``: a
        server that never chose plays each match in a thread of its own (the bot's own
        default; off here, so a test's table message is in the channel unless it asks).
        The bot is in :attr:`running` until it is stopped; a start that fails closes what it
        opened."""
        if seeds is None:
            numbers = itertools.count(7)
            seeds = lambda: next(numbers)  # noqa: E731 - deterministic games in tests
        store = await Store.open(db, clock=clock) if isinstance(db, Path) else db
        connection = contextlib.AsyncExitStack()
        try:
            service = GameService(store, clock=clock, seeds=seeds,
                                  thinking=thinking or Thinking(), default_threads=threads)
            paced = pace or PaceClock()  # table edits wait on a clock of the bot's own work
            bot = compose(service, renderer, dev_guild=dev_guild, ai_pace=0, pace=paced.pace(),
                          timer_poll=3600, guild_ready_timeout=0.0)
            paced.follow(bot.tasks)
            await connection.enter_async_context(discordpy_client(lb, bot))
        except BaseException:
            await connection.aclose()
            await store.close()
            raise
        live = cls(lb, bot, store, connection)
        cls.running.append(live)
        await live.settle()
        return live

    async def stop(self) -> None:
        """Let the bot finish what it started, close it, its database and its connection (all
        three closed even when it does not settle); nothing when it is stopped already."""
        if self not in LiveBot.running:
            return
        LiveBot.running.remove(self)
        try:
            await self.settle()
        finally:
            try:
                await self._connection.aclose()
            finally:
                await self.store.close()
        left = [t.get_name() for t in self._waiting()] + [
            t.get_name() for t in self.bot.tasks.endless if not t.done()]
        assert not left, f"the bot left tasks behind: {left}"

    @classmethod
    async def stop_left(cls, lb: Loopback) -> None:
        """Stop every bot still running on ``lb`` (a test that failed before stopping its
        bot, or never did), each whatever happens to the others; the first failure raised."""
        failures: list[Exception] = []
        for live in [b for b in cls.running if b.lb is lb]:
            try:
                await live.stop()
            except Exception as exc:  # noqa: BLE001 - the next bot is stopped all the same
                failures.append(exc)
        if failures:
            raise failures[0]

    def _waiting(self, but: str | tuple[str, ...] | None = None) -> list[asyncio.Task[Any]]:
        me = asyncio.current_task()
        return [t for t in asyncio.all_tasks() if t is not me and not t.done()
                and t not in self.bot.tasks.endless
                and getattr(t.get_coro(), "__qualname__", "") not in _RESIDENT
                and not t.get_name().startswith(FEEDER)  # the workers' feeders never end
                and not (but and t.get_name().startswith(but))]

    async def settle(self, *, but: str | tuple[str, ...] | None = None) -> None:
        """Wait until every task the bot started (answers, AI turns, edits) is done, but the
        tasks whose names start with ``but`` (``"ai-"``: AI turns still thinking; a tuple:
        any of those)."""
        while pending := self._waiting(but):
            _, left = await asyncio.wait(pending, timeout=30)
            if left:
                raise AssertionError(f"the bot never settled: {[t.get_name() for t in left]}")

    # -- people acting

    def _known(self, user: User) -> User:
        self.lb.users.setdefault(user.id, user)
        return user

    async def handled(self, *interactions: Interaction) -> Interaction:
        """Wait until the bot received and answered ``interactions`` (or they failed), and
        settled; the last one."""
        for ix in interactions:
            with contextlib.suppress(InteractionFailed):
                await ix.answered(20)
        await self.settle()
        return interactions[-1]

    async def command(self, user: User, sub: str, *, forge: bool = False,
                      channel: Channel | None = None, **options: Any) -> Interaction:
        """``user`` runs ``/goblin <sub>`` with ``options`` (``forge``: unchecked options)."""
        ix = await self.lb.command(self._known(user), channel or self.channel, f"goblin {sub}",
                                   forge=forge, **options)
        return await self.handled(ix)

    async def abandon(self, user: User, channel: Channel | None = None) -> Interaction:
        """``user`` runs /goblin abandon and, when asked to confirm (a running match), confirms;
        the last interaction (the confirmation's click, or the command)."""
        ix = await self.command(user, "abandon", channel=channel)
        asked = self.lb.messages.get(ix.original_id or 0)
        buttons = [] if asked is None else [c for c in asked.custom_ids()
                                            if c.startswith(AbandonButton.prefix)]
        if asked is not None and buttons:
            button = buttons[0]
            return await self.click(user, asked, button)
        return ix

    async def autocomplete(self, user: User, sub: str, option: str,
                           text: Any) -> list[dict[str, Any]]:
        """The choices the bot suggests while ``user`` types ``text`` into ``option``."""
        choices = await self.lb.autocomplete(self._known(user), self.channel, f"goblin {sub}",
                                             option, text)
        await self.settle()
        return choices

    async def click(self, user: User, message: Message, custom_id: str, *,
                    forge: bool = False) -> Interaction:
        """``user`` clicks the button ``custom_id`` (see :func:`resolve`) on ``message``."""
        ix = await self.lb.click(self._known(user), message, resolve(message, custom_id),
                                 forge=forge)
        return await self.handled(ix)

    async def choose(self, user: User, message: Message, custom_id: str, values: list[str], *,
                     forge: bool = False) -> Interaction:
        """``user`` picks ``values`` in the menu ``custom_id`` on ``message``."""
        ix = await self.lb.select(self._known(user), message, resolve(message, custom_id),
                                  values, forge=forge)
        return await self.handled(ix)

    async def play(self, user: User, message: Message, move: str, *,
                   sure: bool = True) -> Interaction:
        """``user`` plays the move ``move`` (notation) the message offers; when the bot asks
        once more before it (a move easy to regret), ``user`` confirms unless ``sure`` is
        false. The interaction of the click on the move."""
        cid, value = offered(message)[move]
        if value is None:
            ix = await self.click(user, message, cid)
        else:
            ix = await self.choose(user, message, cid, [value])
        if not sure:
            return ix
        for mid in [ix.original_id, *ix.followups]:  # asked in the hand, or anew
            asked = self.lb.messages.get(mid or 0)
            confirm = None if asked is None or asked.deleted else next(
                (c for c in asked.custom_ids() if c.startswith(SureButton.prefix)), None)
            if asked is not None and confirm is not None:
                await self.click(user, asked, confirm)
                break
        return ix

    # -- what people see

    def reply(self, ix: Interaction) -> Message:
        """The message of the interaction's response (for a click that edited the clicked
        message: that message)."""
        assert ix.original_id is not None, f"interaction {ix.id} has no response message"
        return self.lb.message(ix.original_id)

    def said(self, *interactions: Interaction) -> list[str]:
        """What the interactions showed their user privately: the texts of their ephemeral
        response and follow-ups, in order."""
        out = []
        for ix in interactions:
            for mid in [ix.original_id, *ix.followups]:
                found = self.lb.messages.get(mid or 0)
                if found is not None and found.ephemeral:
                    out.append(found.text())
        return out

    def followups(self, ix: Interaction) -> list[Message]:
        """The interaction's follow-up messages."""
        return [self.lb.message(mid) for mid in ix.followups]

    def new_answers(self, ix: Interaction) -> list[Message]:
        """The messages the bot sent in answer to the interaction: its first response when
        that is a message of its own (not the clicked one edited), then its follow-ups."""
        first = ([self.lb.message(ix.original_id)]
                 if ix.original_id is not None and ix.original_id != ix.message_id else [])
        return first + self.followups(ix)

    def public(self, channel: Channel | None = None) -> list[Message]:
        """The channel's public messages, oldest first (deleted ones are gone)."""
        return [m for m in self.lb.messages_for(channel or self.channel, 0) if m.owner is None]

    def last_table_message(self) -> Message:
        """The newest public message with a "My hand" button."""
        for message in reversed(self.public()):
            if any(c.startswith(HandButton.prefix) for c in message.custom_ids()):
                return message
        raise AssertionError("no table message")

    def message(self, message: Message) -> Message:
        """``message`` as it is now (the stand-in keeps one object per message)."""
        return self.lb.message(message.id)
