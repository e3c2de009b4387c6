"""Messages: writing one from a request body (create, edit, interaction response, follow-up)
under Discord's rules, and the channel message routes.

Every body is judged before anything changes: the limits of :mod:`loopback.limits` and the
Components V2 layout (:mod:`loopback.layout`), the flags an edit may set but never remove, the
attachments a layout shows, and the edit limit of messages older than an hour. A refusal answers
as Discord does and is recorded as a breach.
"""

from __future__ import annotations

import re
from typing import Any

from loopback import limits
from loopback.attachment import Attachment
from loopback.components import TEXT_DISPLAY, file_urls, media_urls, walk
from loopback.errors import ApiError, Reply, Upload
from loopback.interaction import Interaction
from loopback.layout import IS_COMPONENTS_V2, error_tree
from loopback.model import (
    DM_CHANNEL,
    EPHEMERAL,
    GROUP_DM,
    LOADING,
    Channel,
    Message,
    command_path,
    iso_now,
    snowflake,
)
from loopback.permissions import MANAGE_THREADS, READ_MESSAGE_HISTORY, VIEW_CHANNEL
from loopback.referee import Referee
from loopback.state import State

#: A message older than this (seconds) takes only a few edits an hour (JSON error 30046).
OLD_MESSAGE_AGE = 3600.0
#: Edits Discord lets through, within any hour, to a message older than an hour (see
#: :meth:`Messages._old_message_edit`).
OLD_MESSAGE_EDITS = 3
#: Seconds a post's nonce sent with ``enforce_nonce`` is not made again (Discord: "the past
#: few minutes"): the same post answers with the message made the first time.
NONCE_WINDOW = 120.0
SUPPRESS_EMBEDS = 1 << 2
SUPPRESS_NOTIFICATIONS = 1 << 12


class Messages:
    """Writes messages under Discord's rules and answers the channel message routes."""

    def __init__(self, state: State, referee: Referee,
                 old_message_edits: int = OLD_MESSAGE_EDITS) -> None:
        self.state = state
        self.referee = referee
        self.old_message_edits = old_message_edits

    def _attachments(self, message: Message | None, body: dict[str, Any],
                     uploads: list[Upload]) -> list[Attachment]:
        """The attachments after a create or edit: kept ones, then the new uploads."""
        old = {str(a.id): a for a in (message.attachments if message else [])}
        by_index = {u.index: u for u in uploads if u.index is not None}
        used: set[int] = set()
        out: list[Attachment] = []
        listed = body.get("attachments")
        if listed is None:
            out = list(old.values())
        else:
            for entry in listed:
                ref = str(entry.get("id"))
                if ref in old:
                    out.append(old[ref])
                elif ref.isdigit() and int(ref) in by_index:
                    used.add(int(ref))
                    out.append(self.state.new_attachment(by_index[int(ref)],
                                                    entry.get("description")))
                else:
                    raise ApiError(400, 50035, "Invalid Form Body", {"attachments": {
                        "_errors": [{"code": "ATTACHMENT_NOT_FOUND",
                                     "message": f"no attachment {ref}"}]}})
        for u in uploads:
            if u.index is None or u.index not in used:
                out.append(self.state.new_attachment(u))
        for dropped in set(old) - {str(a.id) for a in out}:
            self.state.replace_file(int(dropped))
        return out

    def _mentions(self, body: dict[str, Any]) -> list[int]:
        # a Components V2 message mentions people in its text displays
        said = "\n".join([body.get("content") or "", *(
            str(c.get("content") or "") for c in walk(body.get("components") or [])
            if c.get("type") == TEXT_DISPLAY)])
        ids = [int(i) for i in re.findall(r"<@!?(\d+)>", said)]
        allowed = body.get("allowed_mentions")
        if allowed is None:
            return ids
        if "users" in (allowed.get("parse") or []):
            return ids
        return [i for i in ids if str(i) in {str(u) for u in allowed.get("users") or []}]

    def _flags_after(self, message: Message | None, body: dict[str, Any], route: str,
                     interaction: Interaction | None) -> int:
        """The message's flags after the request: a new message takes the flags a bot may set
        (suppress embeds, suppress notifications, Components V2); an edit may set Components
        V2 (or toggle suppress embeds) but never remove Components V2, as on Discord."""
        raw = body.get("flags")
        asked = raw if isinstance(raw, int) else 0
        settable = SUPPRESS_EMBEDS | IS_COMPONENTS_V2
        if message is None:
            return asked & (settable | SUPPRESS_NOTIFICATIONS)
        if message.components_v2 and isinstance(raw, int) and not raw & IS_COMPONENTS_V2:
            problem = "the IS_COMPONENTS_V2 flag cannot be removed from a message"
            self.referee.breach("limits", problem, route, interaction)
            raise ApiError(400, 50035, "Invalid Form Body",
                           error_tree([(("flags",), problem)]))
        if not isinstance(raw, int):
            return message.flags
        return (message.flags & ~SUPPRESS_EMBEDS) | (asked & settable)

    def _check_body(self, message: Message | None, body: dict[str, Any], uploads: list[Upload],
                    flags: int, route: str, interaction: Interaction | None) -> None:
        """Refuse (400, code 50035 with Discord's error tree) a body breaking a limit. An edit
        is judged with what it leaves of the message: content or embeds kept from before
        break a Components V2 message too."""
        whole = dict(body)
        if message is not None:
            whole.setdefault("content", message.content)
            whole.setdefault("embeds", message.embeds)
        problems = limits.message_errors(whole, len(uploads), flags)
        if flags & IS_COMPONENTS_V2:
            names = self._names_after(message, body, uploads)
            components = body.get("components") or []
            problems += [(("components",), f"{url} is not among the message's attachments "
                          f"{sorted(names)}")
                         for url in media_urls(components) + file_urls(components)
                         if url.startswith("attachment://") and url[13:] not in names]
        if problems:
            for path, text in problems:
                self.referee.breach("limits", f"{'.'.join(map(str, path))}: {text}", route,
                                    interaction)
            raise ApiError(400, 50035, "Invalid Form Body", error_tree(problems))

    def _old_message_edit(self, message: Message, route: str,
                          interaction: Interaction | None) -> None:
        """Discord's JSON error 30046, "Maximum number of edits to messages older than 1 hour
        reached. Try again later.": Discord documents the refusal but not its number. The
        stand-in lets :attr:`old_message_edits` (3 by default) edits through within any hour
        to a message whose age by the stand-in's clock is over an hour, and refuses the next
        ones until an hour has passed since the oldest of them. Discord answers this refusal
        with HTTP 429 and the JSON code 30046, without the rate-limit headers (so clients
        such as discord.py raise it rather than wait), and so does the stand-in. Every edit
        counts: a channel message edit, a webhook (interaction) edit, and a component's
        "update message" response. It is recorded as a breach ``old-edit``."""
        now = self.state.now()
        if now - message.created <= OLD_MESSAGE_AGE:
            return
        message.old_edits = [t for t in message.old_edits if now - t < OLD_MESSAGE_AGE]
        if len(message.old_edits) >= self.old_message_edits:
            self.referee.breach("old-edit", f"edit {len(message.old_edits) + 1} within an hour "
                                f"of a message {(now - message.created) / 3600:.1f} hours old",
                                route, interaction)
            since = now - message.old_edits[0] if message.old_edits else 0.0  # none allowed
            raise ApiError(429, 30046, "Maximum number of edits to messages older than 1 "
                           "hour reached. Try again later.",
                           retry_after=round(OLD_MESSAGE_AGE - since, 3))
        message.old_edits.append(now)

    @staticmethod
    def _names_after(message: Message | None, body: dict[str, Any],
                     uploads: list[Upload]) -> set[str]:
        """The file names the message will carry after the request."""
        old = {str(a.id): a.filename for a in (message.attachments if message else [])}
        listed = body.get("attachments")
        kept = (set(old.values()) if listed is None else
                {old[str(e.get("id"))] for e in listed
                 if isinstance(e, dict) and str(e.get("id")) in old})
        return kept | {u.filename for u in uploads}

    def write(self, message: Message | None, body: dict[str, Any], uploads: list[Upload],
               route: str, interaction: Interaction | None = None, *,
               channel_id: int = 0, owner: int | None = None,
               create_flags: int = 0) -> Message:
        """Create (``message`` None) or edit a message from a request body, after the checks."""
        too_big = limits.upload_problems([len(u.data) for u in uploads])
        for problem in too_big:
            self.referee.breach("limits", problem, route, interaction)
        if too_big:
            raise ApiError(413, 40005, "Request entity too large")
        flags = self._flags_after(message, body, route, interaction)
        self._check_body(message, body, uploads, flags, route, interaction)
        if message is not None and not message.loading:
            self._old_message_edit(message, route, interaction)
        if message is None:
            if not (body.get("content") or body.get("embeds") or body.get("components")
                    or uploads or body.get("sticker_ids") or body.get("poll")
                    or create_flags & LOADING):
                self.referee.breach("empty", "cannot send an empty message", route, interaction)
                raise ApiError(400, 50006, "Cannot send an empty message")
            channel = self.state.channels.get(channel_id)
            if channel is None:  # a thread deleted meanwhile
                raise ApiError(404, 10003, "Unknown Channel")
            flags |= create_flags | (EPHEMERAL if owner is not None else 0)
            message = Message(snowflake(), channel_id, channel.guild_id, self.state.bot,
                              flags=flags, owner=owner, created=self.state.now())
            if interaction is not None:
                message.interaction_id = interaction.id
                message.interaction_user = interaction.user
                message.interaction_name = (command_path(interaction.data)
                                            if interaction.type == 2 else None)
            message.mentions = self._mentions(body)
            self.state.messages[message.id] = message
            self.state.channel_log.setdefault(channel_id, []).append(message.id)
            if channel.thread and owner is None:
                self._into_thread(channel, message)
        else:
            message.edited = message.edited if message.loading else iso_now()
            message.flags = flags & ~LOADING
        if "content" in body:
            message.content = body["content"] or ""
        if "embeds" in body:
            message.embeds = list(body["embeds"] or [])
        if "components" in body:
            message.components = list(body["components"] or [])
        if "attachments" in body or uploads:
            message.attachments = self._attachments(message, body, uploads)
        names = {a.filename for a in message.attachments}
        for e in message.embeds:
            for key in ("image", "thumbnail"):
                url = (e.get(key) or {}).get("url") or ""
                if url.startswith("attachment://") and url[13:] not in names:
                    self.referee.breach("attachment", f"embed {key} {url} is not among the "
                                f"message's attachments {sorted(names)}", route, interaction)
        message.revision += 1
        self.state.bump(message.channel_id)
        for watch in self.state.watchers:
            try:
                watch(message)
            except Exception as exc:  # a watcher's finding is a failure of the bot
                self.referee.breach("watch", f"{type(exc).__name__}: {exc}", route, interaction)
        return message

    def _into_thread(self, thread: Channel, message: Message) -> None:
        """A message is posted into ``thread``: an archived thread that is not locked is
        unarchived by it (a locked one only when the bot may manage threads, which
        :meth:`thread_writable` checked for the bot's own posts), and the thread counts it."""
        if thread.archived and (not thread.locked or thread.bot_may(MANAGE_THREADS)):
            self.state.set_archived(thread, False)
        self.state.thread_message(thread, message, True)

    @staticmethod
    def thread_writable(thread: Channel, posting: bool, *, editing: bool = False) -> None:
        """Refuse, as Discord does, a bot's post (``posting``), edit (``editing``) or deletion
        in a thread it may not write in: an edit or deletion in an archived thread (a post
        unarchives it instead), a post or an edit in a locked thread without Manage Threads
        (only moderators create or update messages there; a deletion in an active locked
        thread is let through)."""
        if not thread.thread:
            return
        manage = thread.bot_may(MANAGE_THREADS)
        if thread.archived and (not posting or (thread.locked and not manage)):
            raise ApiError(400, 50083, "Operation cannot be performed on an archived thread")
        if thread.locked and (posting or editing) and not manage:
            raise ApiError(403, 160005, "Thread is locked")

    def _channel_param(self, params: dict[str, str]) -> Channel:
        cid = params["cid"]
        channel = self.state.channels.get(int(cid)) if cid.isdigit() else None
        if channel is None:
            if not cid.isdigit() or int(cid) not in self.state.deleted_channels:
                # a thread deleted by someone else is no mistake of the bot's
                self.referee.breach("unknown", f"unknown channel {cid}")
            raise ApiError(404, 10003, "Unknown Channel")
        if channel.type == GROUP_DM:  # the bot is no member: it may only answer interactions
            raise ApiError(403, 50001, "Missing Access")
        return channel

    @staticmethod
    def _viewable(channel: Channel) -> None:
        """Refuse, as Discord does (403, code 50001 Missing Access), any request about a
        server's channel (a thread: its parent) the bot may not view."""
        if channel.guild_id is not None and not channel.bot_may(VIEW_CHANNEL):
            raise ApiError(403, 50001, "Missing Access")

    def _channel_message(self, params: dict[str, str]) -> Message:
        channel = self._channel_param(params)
        self._viewable(channel)
        mid = params["mid"]
        message = self.state.messages.get(int(mid)) if mid.isdigit() else None
        if (message is None or message.channel_id != channel.id or message.deleted
                or message.ephemeral):
            raise ApiError(404, 10008, "Unknown Message")
        return message

    async def channel_get(self, params: dict[str, str], body: Any, uploads: list[Upload],
                           query: dict[str, str]) -> Reply:
        """The channel object (a thread's also once it is archived, with its parent and type);
        Missing Access (403, 50001) for a server's channel the bot may not view (a thread:
        its parent)."""
        channel = self._channel_param(params)
        self._viewable(channel)
        return Reply(200, channel.payload())

    async def history(self, params: dict[str, str], body: Any, uploads: list[Upload],
                       query: dict[str, str]) -> Reply:
        """The channel's public messages, newest first (``limit``, at most 100); none in a
        server's channel where the bot may not read its history, as Discord answers."""
        channel = self._channel_param(params)
        self._viewable(channel)
        if not channel.private and not channel.bot_may(READ_MESSAGE_HISTORY):
            return Reply(200, [])
        limit = max(1, min(100, int(query.get("limit", "50") or 50)))
        public = [m for i in self.state.channel_log.get(channel.id, [])
                  if not (m := self.state.messages[i]).ephemeral and not m.deleted]
        return Reply(200, [self.state.payload(m) for m in reversed(public[-limit:])])

    async def post(self, params: dict[str, str], body: Any, uploads: list[Upload],
                    query: dict[str, str]) -> Reply:
        """Post a message in the channel."""
        channel = self._channel_param(params)
        self._viewable(channel)
        if not channel.may_post(len(uploads)):  # the bot lost its rights here: not a breach
            raise ApiError(403, 50013, "Missing Permissions")
        if channel.type == DM_CHANNEL and not all(u.dms_open and self.state.shares_guild(u)
                                                  for u in channel.recipients):
            raise ApiError(403, 50007, "Cannot send messages to this user")  # as Discord does
        self.thread_writable(channel, posting=True)
        body = body or {}
        nonce = str(body["nonce"]) if body.get("enforce_nonce") and body.get("nonce") else None
        made = self._made(nonce)
        if made is not None:
            return Reply(200, self.state.payload(made))
        message = self.write(None, body, uploads, "POST /channels/{id}/messages",
                              channel_id=channel.id)
        if nonce is not None:
            self.state.nonces[nonce] = (message.id, self.state.now())
        return Reply(200, self.state.payload(message))

    def _made(self, nonce: str | None) -> Message | None:
        """The bot's message posted with ``nonce`` enforced within :data:`NONCE_WINDOW` (the
        nonces older than that are forgotten); a post with that nonce makes nothing new.
        Deleted since: Unknown Message, as Discord answers such a post."""
        now = self.state.now()
        nonces = self.state.nonces
        while nonces and now - next(iter(nonces.values()))[1] >= NONCE_WINDOW:
            del nonces[next(iter(nonces))]
        if nonce is None or nonce not in nonces:
            return None
        message = self.state.messages[nonces[nonce][0]]
        if message.deleted:
            raise ApiError(404, 10008, "Unknown Message")
        return message

    async def message_get(self, params: dict[str, str], body: Any, uploads: list[Upload],
                           query: dict[str, str]) -> Reply:
        """One public message of the channel."""
        return Reply(200, self.state.payload(self._channel_message(params)))

    async def edit(self, params: dict[str, str], body: Any, uploads: list[Upload],
                    query: dict[str, str]) -> Reply:
        """Edit a message the bot wrote."""
        message = self._channel_message(params)
        if not message.author.bot:
            raise ApiError(403, 50005, "Cannot edit a message authored by another user")
        self.thread_writable(self.state.channels[message.channel_id], posting=False,
                             editing=True)
        self.write(message, body or {}, uploads, "PATCH /channels/{id}/messages/{id}")
        return Reply(200, self.state.payload(message))

    async def delete(self, params: dict[str, str], body: Any, uploads: list[Upload],
                      query: dict[str, str]) -> Reply:
        """Delete a message of the channel."""
        message = self._channel_message(params)
        self.thread_writable(self.state.channels[message.channel_id], posting=False)
        self.state.delete_message(message)
        return Reply(204)
