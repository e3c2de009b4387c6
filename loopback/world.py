"""The stand-in's state and rules: guilds, channels, users, messages, interactions, commands,
Discord's REST semantics, and the record of every rule the bot broke.

:class:`World` puts the stand-in together and is what tests, benchmarks and the playground
use: the state (:mod:`.state`), the referee of Discord's rules (:mod:`.referee`), rate limits
(:mod:`.ratelimit`), the people (:mod:`.people`), the REST routes (:mod:`.rest`,
:mod:`.messages`, :mod:`.hooks`) and the gateway (:mod:`.gateway`), which it wires together:
new guilds and channels and people's interactions go out through the gateway, and a connection
lost there explains an unanswered interaction. :mod:`loopback.server` serves a world over HTTP.

Faults on demand: ``World(rate_limits=Schedule(seed=7, rate=0.05))`` answers a seeded share of
requests with 429s (global or per route; ``world.limiter.retries`` tells whether each
``retry_after`` was honoured, ``world.limiter.early`` counts those that were not), and
:meth:`World.send_malformed` damages the component interactions the bot receives, and
:meth:`World.send_malformed_event` sends other gateway events it cannot read.

Rules held (each breach is appended to :attr:`World.breaches`, and the request is answered the
way Discord answers it):

- ``schema``: a request body that does not validate against Discord's OpenAPI document;
- ``limits``: content, embed, component, Components V2 layout, attachment or autocomplete
  limits (:mod:`.limits`, :mod:`.layout`; 400 with code 50035 and Discord's error tree);
- ``late``: no initial response within 3 s (the user sees "interaction failed"; a response
  that comes later gets 404 Unknown interaction, as from Discord);
- ``double``: a second initial response (400 "already acknowledged");
- ``response-type``: a response type that does not fit the interaction;
- ``expired``: a follow-up or edit through a token older than 15 minutes (401);
- ``early``: a webhook call of an interaction before its initial response;
- ``retry``: a request repeated before the ``retry_after`` of a 429 elapsed;
- ``old-edit``: too many edits of a message older than an hour (429, JSON code 30046);
- ``attachment``: an embed showing ``attachment://name`` that the message does not carry;
- ``empty``, ``unknown``, ``unsupported``: empty messages, unknown objects, routes the stand-in
  does not implement (so a test notices when the bot starts using something new).

An interaction pending when the bot's connection closed (a crash) is not a breach: it goes to
:attr:`World.orphaned` and fails, as on Discord.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from loopback.clock import Clock, SystemClock
from loopback.errors import ApiError, LoopbackError, Reply, Upload, dumps
from loopback.gateway import Gateway
from loopback.interaction import Breach, Interaction
from loopback.model import PUBLIC_THREAD, Channel, Guild, Message, User, snowflake
from loopback.people import MALFORMED, MALFORMED_EVENTS, People
from loopback.permissions import MEMBER_PERMISSIONS, Role
from loopback.ratelimit import ChannelLimit, GlobalLimit, Limiter, RateLimit, Schedule
from loopback.referee import RESPONSE_DEADLINE, TOKEN_LIFETIME, Referee
from loopback.rest import Rest
from loopback.sharding import snowflake_on
from loopback.spec import SPEC_PATH, spec
from loopback.state import State, Watcher

__all__ = ["ApiError", "LoopbackError", "Reply", "Upload", "World", "dumps"]


class World:
    """An in-memory Discord for one bot application."""

    def __init__(self, *, clock: Clock | None = None, validate: bool = True,
                 spec_path: Path = SPEC_PATH, token: str | None = None,
                 application_id: int | None = None, bot_name: str = "Karak",
                 keep_files: bool = True, heartbeat_interval: float = 41.25,
                 response_deadline: float = RESPONSE_DEADLINE,
                 token_lifetime: float = TOKEN_LIFETIME,
                 old_message_edits: int | None = None,
                 rate_limits: Schedule | None = None,
                 channel_limit: ChannelLimit | None = None,
                 global_limit: GlobalLimit | None = None, shards: int = 1,
                 required_shards: int = 1) -> None:
        self.clock: Clock = clock or SystemClock()
        self.state = State(self.clock, application_id or snowflake(), bot_name, keep_files)
        self.referee = Referee(self.state, response_deadline, token_lifetime)
        self.limiter = Limiter(self.clock, self.referee, rate_limits, channel_limit,
                               global_limit)
        self.people = People(self.state, self.referee)
        # the description is read, and its validators built, once for every world
        self.rest_api = Rest(self.state, self.referee, self.limiter,
                             spec(spec_path) if validate else None, token, old_message_edits)
        self.gateway = Gateway(self, heartbeat_interval=heartbeat_interval, shards=shards,
                               required_shards=required_shards)
        self.state.announce = self.gateway.broadcast
        self.people.deliver = self.gateway.deliver
        self.referee.lost_since = self.gateway.lost_since
        self.rest_api.gateway_url = lambda: self.gateway.url
        self.rest_api.recommended_shards = lambda: self.gateway.shards
        # the records tests and pages read, shared with the parts that keep them
        self.token = token
        self.application_id = self.state.application_id
        self.bot = self.state.bot
        self.users = self.state.users
        self.guilds = self.state.guilds
        self.channels = self.state.channels
        self.messages = self.state.messages
        self.files = self.state.files
        self.interactions = self.state.interactions
        self.commands = self.state.commands
        self.channel_versions = self.state.channel_versions
        self.watchers: list[Watcher] = self.state.watchers
        self.breaches: list[Breach] = self.referee.breaches
        self.orphaned: list[Interaction] = self.referee.orphaned
        self.requests = self.rest_api.requests

    @property
    def version(self) -> int:
        """Grows whenever something visible changes."""
        return self.state.version

    @property
    def base_url(self) -> str:
        """Where the stand-in is served (``http://127.0.0.1:port``): attachment URLs use it."""
        return self.state.base_url

    @base_url.setter
    def base_url(self, value: str) -> None:
        self.state.base_url = value

    @property
    def old_message_edits(self) -> int:
        """Edits let through within an hour to a message older than an hour."""
        return self.rest_api.messages.old_message_edits

    # ------------------------------------------------------------------ state

    def now(self) -> float:
        """The stand-in's clock."""
        return self.clock()

    def bump(self, channel_id: int | None = None) -> None:
        """Something visible changed (in ``channel_id``): wake the waiters."""
        self.state.bump(channel_id)

    async def changed(self, after: int, timeout: float = 25.0) -> int:
        """Wait until :attr:`version` is above ``after`` (or ``timeout``); return it."""
        return await self.state.changed(after, timeout)

    async def channel_changed(self, channel_id: int, after: int, timeout: float = 25.0) -> int:
        """Wait until the channel's version is above ``after`` (or ``timeout``); return it."""
        return await self.state.channel_changed(channel_id, after, timeout)

    def create_user(self, name: str, locale: str = "en-US", admin: bool = False,
                    user_id: int | None = None) -> User:
        """A new user (``admin``: every permission)."""
        return self.state.create_user(name, locale, admin, user_id)

    def create_guild(self, name: str = "Karak Club", locale: str = "en-US",
                     owner: User | None = None, guild_id: int | None = None,
                     shard: int | None = None) -> Guild:
        """A new guild the bot is in (sent to a connected bot as GUILD_CREATE, on its shard);
        ``shard``: an id landing on that shard of the recommended count (``shards``)."""
        if guild_id is None and shard is not None:
            guild_id = snowflake_on(shard, self.gateway.shards)
        return self.state.create_guild(name, locale, owner, guild_id)

    def create_channel(self, guild: Guild, name: str = "goblin",
                       channel_id: int | None = None) -> Channel:
        """A new text channel of ``guild`` (sent as CHANNEL_CREATE)."""
        return self.state.create_channel(guild, name, channel_id)

    def create_thread(self, parent: Channel, name: str = "goblin thread",
                      channel_id: int | None = None, *, owner: User | None = None,
                      message: Message | None = None, kind: int = PUBLIC_THREAD,
                      auto_archive: int = 1440) -> Channel:
        """A new thread under ``parent`` (sent as THREAD_CREATE), as a person starts one:
        ``owner`` (None: the guild's owner), from ``message`` (the thread takes its id), or on
        its own (``kind`` 11 public, 12 private), archived after ``auto_archive`` idle
        minutes."""
        return self.state.create_thread(parent, name, channel_id, owner=owner, message=message,
                                        kind=kind, auto_archive=auto_archive)

    def threads_of(self, parent: Channel, archived: bool | None = None) -> list[Channel]:
        """The threads under ``parent``, oldest first (``archived`` True or False: only the
        archived or the active ones)."""
        return self.state.threads_of(parent, archived)

    def starter(self, thread: Channel) -> Message | None:
        """The message ``thread`` was started from (None: none, or deleted)."""
        return self.state.starter(thread)

    def archive_thread(self, thread: Channel, *, locked: bool = False) -> None:
        """A moderator (or Discord, after the idle time) archives ``thread`` now, ``locked``
        too if asked (sent as THREAD_UPDATE)."""
        self.state.set_archived(thread, True, locked)

    def lock_thread(self, thread: Channel) -> None:
        """A moderator locks ``thread`` and leaves it open (not archived): only those who may
        manage threads write there any more (sent as THREAD_UPDATE)."""
        self.state.set_archived(thread, thread.archived, True)

    def unarchive_thread(self, thread: Channel) -> None:
        """A moderator unarchives (and unlocks) ``thread`` (sent as THREAD_UPDATE)."""
        self.state.set_archived(thread, False, False)

    def delete_thread(self, thread: Channel) -> None:
        """A moderator deletes ``thread`` (sent as THREAD_DELETE): its messages go with it,
        and the API answers Unknown Channel (10003) for it from now on."""
        self.state.delete_thread(thread)

    def delete_channel(self, channel: Channel) -> None:
        """A moderator deletes the text channel ``channel`` (sent as CHANNEL_DELETE; its
        threads go with it, with no THREAD_DELETE of their own, as on Discord): the API answers
        Unknown Channel (10003) for it and its threads from now on."""
        self.state.delete_channel(channel)

    def remove_guild(self, guild: Guild) -> None:
        """A moderator removes the bot from ``guild`` (sent as GUILD_DELETE): its channels and
        threads answer Missing Access (403, 50001) from now on, and no one acts there."""
        self.state.remove_guild(guild)

    def set_slowmode(self, channel: Channel, seconds: int) -> None:
        """A moderator sets the channel's slowmode (0 to 21600 seconds; sent to the bot)."""
        self.state.set_slowmode(channel, seconds)
    def create_role(self, guild: Guild, name: str,
                    permissions: int = MEMBER_PERMISSIONS) -> Role:
        """A new role of ``guild`` granting ``permissions`` (sent as GUILD_ROLE_CREATE)."""
        return self.state.create_role(guild, name, permissions)

    def leave_guild(self, guild: Guild, user: User) -> None:
        """``user`` leaves ``guild`` or is removed from it (no event without the members
        intent): its member route answers Unknown Member (404, 10007), and a direct message
        to them is refused (403, 50007) once they share no guild with the bot."""
        self.state.leave_guild(guild, user)

    def join_guild(self, guild: Guild, user: User) -> None:
        """``user`` joins ``guild`` again."""
        self.state.join_guild(guild, user)

    def give_role(self, guild: Guild, user: User, role: Role) -> None:
        """``user`` gets ``role`` in ``guild`` (interactions carry their roles)."""
        self.state.give_role(guild, user, role)

    def set_overwrite(self, channel: Channel, target: Role | User, *, allow: int = 0,
                      deny: int = 0) -> None:
        """Set ``channel``'s permission overwrite of a role (``guild.everyone`` for
        @everyone) or a member (sent as CHANNEL_UPDATE); e.g. a private channel:
        ``deny=VIEW_CHANNEL`` for @everyone, ``allow=VIEW_CHANNEL`` for a role."""
        self.state.set_overwrite(channel, target, allow=allow, deny=deny)

    def dm(self, user: User, channel_id: int | None = None) -> Channel:
        """The direct message channel between ``user`` and the bot (made the first time, with
        ``channel_id`` if given)."""
        return self.state.dm(user, channel_id)

    def create_group_dm(self, people: list[User], name: str = "friends",
                        channel_id: int | None = None) -> Channel:
        """A group direct message of ``people``; the bot is no member of it."""
        return self.state.create_group_dm(people, name, channel_id)

    def guild_payload(self, guild: Guild) -> dict[str, Any]:
        """GUILD_CREATE data of ``guild``."""
        return self.state.guild_payload(guild)

    def user(self, user_id: int | str) -> User:
        """The user with this id; LoopbackError when there is none."""
        return self.state.user(user_id)

    def channel(self, channel_id: int | str) -> Channel:
        """The channel with this id; LoopbackError when there is none."""
        return self.state.channel(channel_id)

    def message(self, message_id: int | str) -> Message:
        """The message with this id; LoopbackError when there is none."""
        return self.state.message(message_id)

    def messages_for(self, channel: Channel | int, viewer: User | int) -> list[Message]:
        """The channel's messages as ``viewer`` sees them, oldest first."""
        return self.state.messages_for(channel, viewer)

    def latest(self, channel: Channel | int, viewer: User | int, where: Any = None,
               scan: int = 200) -> Message | None:
        """The newest message of the channel ``viewer`` sees and ``where`` accepts."""
        if where is None:
            return self.state.latest(channel, viewer, scan=scan)
        return self.state.latest(channel, viewer, where, scan)

    def view(self, message: Message) -> dict[str, Any]:
        """A message's JSON as the control API shows it."""
        return self.state.view(message)

    def registered(self, guild_id: int | None) -> list[dict[str, Any]]:
        """The commands a user of ``guild_id`` sees: the guild's, then global ones."""
        return self.state.registered(guild_id)

    # ------------------------------------------------------------------ rules

    def breach(self, rule: str, detail: str, route: str = "",
               interaction: Interaction | None = None) -> None:
        """Record a rule the bot broke."""
        self.referee.breach(rule, detail, route, interaction)

    def check_deadlines(self) -> None:
        """Fail every interaction left without an initial response past its deadline, and
        archive the threads idle for their auto-archive duration."""
        self.referee.check_deadlines()
        self.state.archive_idle_threads()

    def session_ended(self, session: str) -> None:
        """A new IDENTIFY replaced ``session``: what it still held is lost."""
        self.referee.session_ended(session)

    def inject_429(self, pattern: str = ".", *, method: str | None = None, count: int = 1,
                   retry_after: float = 0.3, scope: str = "user",
                   global_: bool = False) -> RateLimit:
        """Answer the next ``count`` requests whose path matches ``pattern`` with a 429."""
        return self.limiter.inject_429(pattern, method=method, count=count,
                                       retry_after=retry_after, scope=scope, global_=global_)

    def send_malformed(self, how: str | None) -> None:
        """From now on, deliver component interactions damaged ``how`` (``no_custom_id``,
        ``int_custom_id`` or ``no_component_type``); None delivers them whole again."""
        if how is not None and how not in MALFORMED:
            raise ValueError(f"unknown damage {how!r} (one of {', '.join(MALFORMED)})")
        self.people.malformed = how

    def send_malformed_event(self, event: str) -> None:
        """Dispatch one gateway ``event`` damaged so discord.py cannot read it (one of
        :data:`~loopback.people.MALFORMED_EVENTS`: ``MESSAGE_CREATE``, ``GUILD_CREATE``,
        ``CHANNEL_UPDATE``) to the bot (on the shard of the guild it names, else shard 0)."""
        if event not in MALFORMED_EVENTS:
            raise ValueError(f"unknown event {event!r} (one of {', '.join(MALFORMED_EVENTS)})")
        self.gateway.broadcast(event, dict(MALFORMED_EVENTS[event]))

    # ------------------------------------------------------------------ people

    async def command(self, user: User, channel: Channel, path: str, *, forge: bool = False,
                      **options: Any) -> Interaction:
        """``user`` runs the slash command ``path`` in ``channel`` (see :class:`People`)."""
        return await self.people.command(user, channel, path, forge=forge, **options)

    async def autocomplete(self, user: User, channel: Channel, path: str, option: str,
                           text: str, timeout: float = 5.0,
                           **options: Any) -> list[dict[str, Any]]:
        """``user`` types ``text`` into ``option`` of ``path``; returns the bot's choices."""
        return await self.people.autocomplete(user, channel, path, option, text, timeout,
                                              **options)

    async def click(self, user: User, message: Message, custom_id: str, *,
                    forge: bool = False) -> Interaction:
        """``user`` clicks the button ``custom_id`` on ``message``."""
        return await self.people.click(user, message, custom_id, forge=forge)

    async def select(self, user: User, message: Message, custom_id: str, values: list[str], *,
                     forge: bool = False) -> Interaction:
        """``user`` picks ``values`` in the select menu ``custom_id`` on ``message``."""
        return await self.people.select(user, message, custom_id, values, forge=forge)

    def delete_message(self, message: Message) -> None:
        """A moderator deletes ``message`` (or its owner dismisses an ephemeral one)."""
        self.people.delete(message)

    def plant_message(self, channel: Channel, components: list[dict[str, Any]],
                      content: str = "", owner: User | None = None, *, flags: int = 0,
                      files: dict[str, bytes] | None = None) -> Message:
        """A message of the bot's application written without the bot."""
        return self.people.plant_message(channel, components, content, owner, flags=flags,
                                         files=files)

    # ------------------------------------------------------------------ the bot's side

    def authorised(self, header: str | None) -> bool:
        """True for ``Bot <token>`` with the expected (or a well-formed) token."""
        return self.rest_api.authorised(header)

    async def rest(self, method: str, path: str, query: dict[str, str], auth: str | None,
                   body: Any, uploads: list[Upload]) -> Reply:
        """Answer one REST request (``path`` after ``/api/v10``), enforcing the rules."""
        return await self.rest_api.rest(method, path, query, auth, body, uploads)

    def unfinished(self) -> int:
        """Interactions of the last 15 minutes (a token's life) whose visible result has not
        come yet: not answered, or deferred and not yet edited or followed up."""
        since = self.state.now() - 15 * 60
        return sum(1 for ix in self.interactions.values()
                   if ix.created >= since and ix.status() in ("pending", "deferred"))

    def summary(self) -> dict[str, Any]:
        """Counts for the control API and reports."""
        return {"users": len(self.users), "guilds": len(self.guilds),
                "messages": len(self.messages), "interactions": len(self.interactions),
                "breaches": [str(b) for b in self.breaches],
                "orphaned": [ix.id for ix in self.orphaned],
                "unfinished": self.unfinished(),
                "bot_connected": self.gateway.connected(), "version": self.version,
                "shards": {str(i): s.conn is not None
                           for i, s in sorted(self.gateway.current.items())},
                "commands": sum(len(v) for v in self.commands.values())}
