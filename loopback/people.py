"""The user side: people run slash commands, type into autocompleted options, click buttons
and pick in select menus, with every check Discord's client and servers make
(``forge=True`` skips what only the client checks). Each act becomes an interaction delivered
to the bot through :attr:`People.deliver` (the world hands it to the gateway)."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

from loopback.errors import LoopbackError, Upload
from loopback.interaction import Interaction
from loopback.layout import LINK
from loopback.limits import FILE_SIZE
from loopback.model import (
    BOT_DM_CONTEXT,
    EPHEMERAL,
    Channel,
    Message,
    User,
    snowflake,
)
from loopback.permissions import (
    BOT_DM_APP_PERMISSIONS,
    GROUP_DM_APP_PERMISSIONS,
    VIEW_CHANNEL,
)
from loopback.referee import Referee
from loopback.slash import command_data, with_resolved_users
from loopback.state import State

Deliver = Callable[[dict[str, Any]], "str | None"]


#: The ways a component interaction's ``data`` can arrive damaged (see :func:`malform`).
MALFORMED = ("no_custom_id", "int_custom_id", "no_component_type")


def malform(data: dict[str, Any], how: str) -> dict[str, Any]:
    """A copy of a component interaction's ``data`` damaged as ``how`` says: without its
    ``custom_id``, with an integer ``custom_id``, or without ``component_type`` (what a broken
    client or proxy could send; the bot must not fall over)."""
    out = dict(data)
    if how == "no_custom_id":
        out.pop("custom_id", None)
    elif how == "int_custom_id":
        out["custom_id"] = 1234567890
    elif how == "no_component_type":
        out.pop("component_type", None)
    else:
        raise ValueError(f"unknown damage {how!r} (one of {', '.join(MALFORMED)})")
    return out


#: Gateway events as a broken Discord or proxy could send them, each unreadable by discord.py:
#: a message without its channel, a server whose id is no number, a channel update without id.
#: Each holds a secret that must never reach the bot's log.
MALFORMED_EVENTS: dict[str, dict[str, Any]] = {
    "MESSAGE_CREATE": {"id": "1", "content": "leaked-secret-token", "author": None},
    "GUILD_CREATE": {"id": "leaked-secret-token", "name": "Karak Club"},
    "CHANNEL_UPDATE": {"id": None, "type": 0, "topic": "leaked-secret-token"},
}


def _nobody(payload: dict[str, Any]) -> str | None:
    """No gateway: nobody receives the interaction."""
    return None


class People:
    """Discord users acting in the stand-in's channels."""

    def __init__(self, state: State, referee: Referee) -> None:
        self.state = state
        self.referee = referee
        self.deliver: Deliver = _nobody
        self.malformed: str | None = None  # one of MALFORMED: how to damage component events

    async def command(self, user: User, channel: Channel, path: str, *, forge: bool = False,
                      **options: Any) -> Interaction:
        """``user`` runs the slash command ``path`` (``"goblin new"``) in ``channel``.

        Options are checked against the registered command like Discord's client does (types,
        choices, lengths, required ones); ``forge=True`` sends them unchecked, as a modified
        client could. Returns at once; await :meth:`Interaction.answered` / ``done``.
        """
        self._check_private(user, channel)
        data = command_data(self.state.registered(channel.guild_id), channel, path, options,
                            None, forge, user)
        with_resolved_users(data, self.state.users)
        return self._interact(user, channel, 2, data, None)

    async def autocomplete(self, user: User, channel: Channel, path: str, option: str,
                           text: str, timeout: float = 5.0,
                           **options: Any) -> list[dict[str, Any]]:
        """``user`` types ``text`` into ``option`` of ``path``; returns the bot's choices."""
        self._check_private(user, channel)
        data = command_data(self.state.registered(channel.guild_id), channel, path,
                            {**options, option: text}, option, False, user)
        ix = self._interact(user, channel, 4, data, None)
        await ix.done(timeout)
        return list(ix.choices or [])

    def _component_target(self, user: User, message: Message, custom_id: str, kind: int,
                          forge: bool) -> dict[str, Any]:
        if not message.visible_to(user.id) and not forge:
            raise LoopbackError(f"{user.name} cannot see message {message.id}", "message_hidden")
        if not forge:
            self._check_private(user, self.state.channel(message.channel_id))
        component = message.component(custom_id)
        # Discord's servers (not only its client) refuse a component the message does not have
        if component is None:
            raise LoopbackError(f"message {message.id} has no component {custom_id!r}",
                                "no_component")
        if component.get("type") != kind:
            raise LoopbackError(f"component {custom_id!r} is not of type {kind}", "component_type")
        if forge:
            return component
        if component.get("disabled"):
            raise LoopbackError(f"component {custom_id!r} is disabled", "component_disabled")
        if message.loading:
            raise LoopbackError(f"message {message.id} is still loading", "message_loading")
        return component

    async def click(self, user: User, message: Message, custom_id: str, *,
                    forge: bool = False) -> Interaction:
        """``user`` clicks the button ``custom_id`` on ``message`` (which they must see).

        ``forge=True`` skips what only the client checks (the user sees the message, the
        button is enabled), as a modified client could; Discord's servers still refuse a
        custom_id the message does not carry (use :meth:`plant_message` for damaged ones)."""
        component = self._component_target(user, message, custom_id, 2, forge)
        if component.get("style") == LINK and not forge:
            raise LoopbackError("a link button opens a URL, it sends no interaction", "link_button")
        return self._interact(user, self.state.channel(message.channel_id), 3,
                              {"custom_id": custom_id, "component_type": 2}, message)

    async def select(self, user: User, message: Message, custom_id: str, values: list[str], *,
                     forge: bool = False) -> Interaction:
        """``user`` picks ``values`` in the select menu ``custom_id`` on ``message``."""
        component = self._component_target(user, message, custom_id, 3, forge)
        if not forge:
            offered = {o["value"] for o in component.get("options") or []}
            unknown = [v for v in values if v not in offered]
            if unknown:
                raise LoopbackError(f"{unknown} are not options of {custom_id!r}", "not_options")
            low, high = component.get("min_values", 1), component.get("max_values", 1)
            if not low <= len(values) <= high:
                raise LoopbackError(f"{len(values)} values, the menu takes {low}..{high}",
                                    "value_count", low=low, high=high)
        return self._interact(user, self.state.channel(message.channel_id), 3,
                              {"custom_id": custom_id, "component_type": 3,
                               "values": list(values)}, message)

    def plant_message(self, channel: Channel, components: list[dict[str, Any]],
                      content: str = "", owner: User | None = None, *, flags: int = 0,
                      files: dict[str, bytes] | None = None) -> Message:
        """A message of the bot's application written without the bot: as if an older
        version of the bot (or a corrupted one) had posted it, e.g. with damaged custom_ids.
        ``files`` (name -> bytes, PNG pictures) become its attachments."""
        message = Message(snowflake(), channel.id, channel.guild_id, self.state.bot,
                          content=content, components=components, owner=owner.id if owner else None,
                          flags=flags | (EPHEMERAL if owner else 0), created=self.state.now())
        message.attachments = [self.state.new_attachment(Upload(f"files[{i}]", name, "image/png",
                                                           data))
                               for i, (name, data) in enumerate((files or {}).items())]
        message.revision = 1
        self.state.messages[message.id] = message
        self.state.channel_log.setdefault(channel.id, []).append(message.id)
        if channel.thread and owner is None:
            self.state.thread_message(channel, message, True)
        self.state.bump(channel.id)
        return message

    def delete(self, message: Message) -> None:
        """A moderator deletes ``message`` (or its owner dismisses an ephemeral one): it is
        gone for everyone, and the API answers Unknown Message for it (a thread no longer
        counts it)."""
        self.state.delete_message(message)

    def _interact(self, user: User, channel: Channel, kind: int, data: dict[str, Any],
                  message: Message | None) -> Interaction:
        ix = Interaction(snowflake(), "aW50" + secrets.token_urlsafe(60), kind, user, channel.id,
                         channel.guild_id, data, self.state.now(),
                         message_id=message.id if message else None)
        self.state.interactions[ix.id] = ix
        self.state.by_token[ix.token] = ix
        payload = self._interaction_payload(ix, channel, message)
        if self.malformed is not None and kind == 3:
            payload["data"] = malform(payload["data"], self.malformed)
        ix.session = self.deliver(payload)
        if ix.session is None:
            ix.mark_failed("the bot is offline")
        else:
            self.referee.pending.add(ix.id)
        self.state.bump(channel.id)
        return ix

    def _check_private(self, user: User, channel: Channel) -> None:
        """Only its people act in a private channel, and only those who may view it in a
        server's channel (Discord shows it to nobody else)."""
        if channel.private and user not in channel.recipients:
            raise LoopbackError(f"{user.name} is not in the private channel {channel.id}",
                                "not_a_recipient")
        guild = self.state.guilds.get(channel.guild_id or 0)
        if channel.guild_id is not None and guild is None:
            raise LoopbackError(f"the bot is no longer in the server of channel {channel.id}",
                                "bot_removed")
        if guild is not None and not guild.permissions_in(user, channel) & VIEW_CHANNEL:
            raise LoopbackError(f"{user.name} cannot view channel {channel.id}",
                                "channel_hidden")

    def _interaction_payload(self, ix: Interaction, channel: Channel,
                             message: Message | None) -> dict[str, Any]:
        if channel.private:
            return self._private_payload(ix, channel, message)
        guild = self.state.guilds.get(channel.guild_id or 0)
        out: dict[str, Any] = {
            "id": str(ix.id), "application_id": str(self.state.application_id), "type": ix.type,
            "token": ix.token, "version": 1, "guild_id": str(channel.guild_id),
            "guild": {"id": str(channel.guild_id), "locale": guild.locale if guild else "en-US",
                      "features": []},
            "channel_id": str(channel.id), "channel": channel.payload(),
            "member": guild.member(ix.user, channel) if guild else ix.user.member(),
            "locale": ix.user.locale,
            "guild_locale": guild.locale if guild else "en-US",
            "app_permissions": str(channel.bot_rights), "entitlements": [],
            "authorizing_integration_owners": {"0": str(channel.guild_id)}, "context": 0,
            "attachment_size_limit": FILE_SIZE, "data": ix.data,
        }
        if message is not None:
            out["message"] = message.payload(self.state.base_url, self.state.application_id)
        return out

    def _private_payload(self, ix: Interaction, channel: Channel,
                         message: Message | None) -> dict[str, Any]:
        """An interaction outside any server: ``user`` instead of ``member``, no guild, the
        context 1 (the bot's direct messages; the bot's install authorises it, key "0" with
        the value "0") or 2 (a group direct message: only a user install works there, and the
        app's permissions are the few Discord grants it in one)."""
        owners = ({"0": "0"} if channel.context == BOT_DM_CONTEXT
                  else {"1": str(ix.user.id)})
        rights = (BOT_DM_APP_PERMISSIONS if channel.context == BOT_DM_CONTEXT
                  else GROUP_DM_APP_PERMISSIONS)
        out: dict[str, Any] = {
            "id": str(ix.id), "application_id": str(self.state.application_id), "type": ix.type,
            "token": ix.token, "version": 1, "channel_id": str(channel.id),
            "channel": channel.payload(), "user": ix.user.payload(), "locale": ix.user.locale,
            "app_permissions": str(rights), "entitlements": [],
            "authorizing_integration_owners": owners, "context": channel.context,
            "attachment_size_limit": FILE_SIZE, "data": ix.data,
        }
        if message is not None:
            out["message"] = message.payload(self.state.base_url, self.state.application_id)
        return out
