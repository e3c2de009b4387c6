"""What an interaction tells the bot about who asks and where: their language, the server's
language, the permissions the bot lacks in the channel; links to a table's message, the channel
a table was opened in, and who a message may ping; noting in the database what was posted."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import aiohttp
import discord

from bot.game.places import Place
from bot.storage.records import CannotSave, TableRecord
from i18n import Msg, msg, normalise_locale, translate

log = logging.getLogger(__name__)

#: What the bot needs in a channel to run a table there (threads: sending in threads instead).
NEEDED = ("view_channel", "send_messages", "embed_links", "attach_files")
THREAD_TYPES = (discord.ChannelType.public_thread, discord.ChannelType.private_thread,
                discord.ChannelType.news_thread)
#: Who a message mentioning only people the bot chose may ping: those people (a rematch offer,
#: which names no one by the name they chose).
MENTIONS = discord.AllowedMentions(everyone=False, roles=False, users=True, replied_user=False)
#: A message that pings no one (names are shown, never pinged).
NO_MENTIONS = discord.AllowedMentions.none()
#: Discord's JSON error code for an edit refused because the message is older than an hour and
#: was edited too often since.
TOO_OLD_TO_EDIT = 30046
#: Discord's JSON error code for a channel (or thread) that no longer exists.
UNKNOWN_CHANNEL = 10003
#: Discord's JSON error code for a message that no longer exists (deleted).
UNKNOWN_MESSAGE = 10008
#: Discord's JSON error code for a request about a channel the bot may not see (also every
#: channel of a server the bot was removed from).
MISSING_ACCESS = 50001
#: Discord's JSON error code for a request the bot lacks a permission for where it goes.
MISSING_PERMISSIONS = 50013
#: Discord's JSON error code for a direct message refused ("Cannot send messages to this
#: user": the person closed their direct messages, blocked the bot, or shares no server with
#: it).
DMS_CLOSED = 50007
#: What a request to Discord that did not go through raises: Discord refused it, or the
#: connection failed (dropped, timed out) on its way.
UNDELIVERED = (discord.HTTPException, aiohttp.ClientError, OSError)


class _Pinging(discord.AllowedMentions):
    """Mentions allowing the users listed only, their ids sent as Discord's API describes
    snowflakes: strings (discord.py sends numbers)."""

    def to_dict(self) -> Any:
        data: dict[str, Any] = dict(super().to_dict())
        users: list[int] | None = data.get("users")
        if users is not None:
            data["users"] = [str(user) for user in users]
        return data


def pinging(user_id: int) -> discord.AllowedMentions:
    """Who a message that names the person to move may ping: that person only (a player's
    display name may be a mention of someone else, shown in the message's lines)."""
    return _Pinging(everyone=False, roles=False, users=[discord.Object(user_id)],
                    replied_user=False)


def posted_at(message_id: int) -> float:
    """When the message ``message_id`` was posted (seconds since 1970, as ``time.time()``):
    Discord's ids tell when they were made, to the millisecond."""
    return discord.utils.snowflake_time(message_id).timestamp()


def why(exc: BaseException) -> object:
    """What a log line says of a request that did not go through: Discord's HTTP status, or
    the connection's failure."""
    return exc.status if isinstance(exc, discord.HTTPException) else repr(exc)


def loc(interaction: discord.Interaction[Any]) -> str:
    """The asking user's locale, mapped onto a shipped one."""
    return normalise_locale(str(interaction.locale.value) if interaction.locale else None)


def spoken(interaction: discord.Interaction[Any]) -> str:
    """The Discord locale the asking user's client speaks, as Discord names it (``fr``,
    ``en-US``; one the bot ships no language for too)."""
    return str(interaction.locale.value)


def clicked_at(interaction: discord.Interaction[Any]) -> str:
    """The key of the place a click was made at: its server, or the clicker's direct
    messages."""
    return Place.of(interaction.guild_id, interaction.user.id).key


def views_channel(interaction: discord.Interaction[Any]) -> bool:
    """Whether the clicker may view the channel the click was made in, as Discord resolved
    their permissions there (direct messages: always). Only a modified client clicks in a
    channel its person may not view."""
    return interaction.guild_id is None or interaction.permissions.view_channel


def public_locale(interaction: discord.Interaction[Any]) -> str:
    """The language of what everyone sees: the server's preferred language in Discord (the
    asking user's outside a server); a server's forced language is applied by the service."""
    if interaction.guild_locale is not None:
        return normalise_locale(str(interaction.guild_locale.value))
    return loc(interaction)


#: What the bot may always do in its own direct messages with a person, which Discord leaves
#: out of an interaction's app permissions there: they list only Attach Files, Embed Links,
#: Mention Everyone and Use External Emojis.
IN_OWN_DMS = discord.Permissions(view_channel=True, send_messages=True,
                                 read_message_history=True)


def app_rights(interaction: discord.Interaction[Any]) -> discord.Permissions:
    """What the bot may do where ``interaction`` comes from: its app permissions there, and
    in its own direct messages with a person also seeing and posting (:data:`IN_OWN_DMS`)."""
    have = interaction.app_permissions
    if interaction.guild_id is None and interaction.context.dm_channel:
        return have | IN_OWN_DMS
    return have


def lacking(interaction: discord.Interaction[Any], have: discord.Permissions,
            needed: Sequence[str]) -> list[str]:
    """Which of ``needed`` (names of :class:`discord.Permissions` flags; in a thread, sending
    in threads stands for sending messages) ``have`` lacks in the interaction's channel, in
    order."""
    in_thread = getattr(interaction.channel, "type", None) in THREAD_TYPES
    wanted = [("send_messages_in_threads" if in_thread and p == "send_messages" else p)
              for p in needed]
    return [p for p in wanted if not getattr(have, p)]


def table_lacks(interaction: discord.Interaction[Any], record: TableRecord) -> list[str]:
    """The permissions a table needs (:data:`NEEDED`) that the bot lacks where ``record``'s
    table is shown, read from a click in its channel or its thread: a thread's permissions are
    its channel's, and there sending in threads stands for sending messages."""
    in_thread = (record.thread_id is not None
                 or getattr(interaction.channel, "type", None) in THREAD_TYPES)
    wanted = [("send_messages_in_threads" if in_thread and p == "send_messages" else p)
              for p in NEEDED]
    have = app_rights(interaction)
    return [p for p in wanted if not getattr(have, p)]


def missing_permissions(interaction: discord.Interaction[Any]) -> list[str]:
    """The permissions the bot lacks in the interaction's channel to post a table there (names
    of :class:`discord.Permissions` flags, in a fixed order)."""
    return lacking(interaction, app_rights(interaction), NEEDED)


def permission_names(missing: Sequence[str]) -> Msg | str:
    """The permissions ``missing`` as Discord's settings call them, listed in a sentence."""
    names: Msg | str = msg("list.0")
    for i, name in enumerate(missing):
        part = msg(f"bot.perm.{name}")
        names = part if i == 0 else msg("list.more", head=names, tail=part)
    return names


def missing_message(missing: Sequence[str], key: str = "bot.error.missing_permissions") -> Msg:
    """The text ``key`` (by default the refusal to run a table here) naming the permissions
    ``missing`` as Discord's settings call them, in its singular or plural form as they are
    one or more."""
    return msg(key, missing=permission_names(missing), count=len(missing))


def jump_url(record: TableRecord) -> str:
    """Link to the table's current message (in its thread, for a match played in one), or its
    lobby message (in the channel), or its channel."""
    where = record.message_id or record.lobby_message_id
    guild = record.guild_id if record.guild_id else "@me"
    channel = record.where if record.message_id else record.channel_id
    base = f"https://discord.com/channels/{guild}/{channel}"
    return f"{base}/{where}" if where else base


def lobby_channel(client: discord.Client, record: TableRecord) -> discord.PartialMessageable:
    """The channel the table was opened in, where its lobby message (or its line) is."""
    return client.get_partial_messageable(record.channel_id, guild_id=record.guild_id)


def place_refusal(interaction: discord.Interaction[Any]) -> Msg | None:
    """Why no table can live where the command was run, or None: a table lives in a server
    channel of a server that installed the bot, or in the bot's own direct messages. In a group
    direct message, or a server the bot is no member of (the app installed by a user only),
    the bot may answer interactions but never post, and a table needs posts that outlive an
    interaction's 15 minutes."""
    if interaction.guild_id is None:
        return None if interaction.context.dm_channel else msg("learn.error.group_dm")
    if not interaction.is_guild_integration():
        return msg("learn.error.not_in_server")
    return None


def can_manage_channel(interaction: discord.Interaction[Any]) -> bool:
    """True when the asking member may Manage Channels here (never outside a server)."""
    return interaction.guild_id is not None and bool(interaction.permissions.manage_channels)


__all__ = ["DMS_CLOSED", "IN_OWN_DMS", "MENTIONS", "MISSING_ACCESS", "MISSING_PERMISSIONS",
           "NEEDED", "NO_MENTIONS",
           "TOO_OLD_TO_EDIT", "UNDELIVERED", "UNKNOWN_CHANNEL", "UNKNOWN_MESSAGE",
           "answer_privately", "app_rights", "can_manage_channel", "clicked_at",
           "jump_url", "lacking", "lobby_channel", "loc", "missing_message",
           "missing_permissions", "noted", "permission_names", "pinging", "place_refusal",
           "public_locale", "spoken", "table_lacks", "told_privately", "views_channel"]


def expired(error: discord.HTTPException) -> bool:
    """Whether Discord no longer takes answers to the interaction: it expired (JSON code 10062,
    its 3 seconds ran out; 50027, the 15 minutes of its token for follow-ups and edits) or its
    answer stayed rate limited past every retry (429)."""
    return error.code in (10062, 50027) or error.status == 429


async def answer_privately(interaction: discord.Interaction[Any], text: str) -> None:
    """A private answer: the interaction's first response, or a private follow-up after it. An
    answer Discord refuses is logged in one line (there is nobody left to tell)."""
    try:
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)
    except discord.HTTPException as exc:
        log.warning("could not answer interaction %s (%s %s)", interaction.id, exc.status,
                    exc.code)


def told_privately(interaction: discord.Interaction[Any]) -> Callable[[Msg], Awaitable[None]]:
    """What tells the person behind ``interaction`` a text later, privately and in their
    language (:func:`answer_privately`: a follow-up once it is answered, which needs no
    permission where the table is)."""
    async def tell(text: Msg) -> None:
        await answer_privately(interaction, translate(text, loc(interaction)))
    return tell


async def noted(write: Awaitable[object], what: str) -> bool:
    """Await ``write``, which notes in the database something already posted on Discord
    (``what`` names it in the log: "table 3: its lobby message"). When the database takes no
    write, what was posted stands, a warning says what could not be saved, and the answer is
    False."""
    try:
        await write
    except CannotSave as exc:
        log.warning("%s could not be saved (%s)", what, exc)
        return False
    return True
