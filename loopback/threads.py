"""Threads as Discord's API runs them: start one from a message or on its own, edit it (name,
archive, lock, auto-archive, slowmode), delete it, join or leave it, and list a guild's active
threads or a channel's archived ones.

Who may do what follows Discord's documentation, with the bot's permissions in the thread's
parent (a thread has no overwrites of its own): starting a public thread needs View Channel and
Create Public Threads, a private one Create Private Threads; unarchiving an unlocked thread needs
Send Messages in Threads, anything touching a locked thread, locking, the slowmode and deleting
need Manage Threads; renaming, archiving and the auto-archive duration are also the thread's
owner's. A refusal is Discord's error answer (403, code 50013), not a breach: the bot did nothing
wrong by trying.

Not modelled: thread membership (every thread reaches the bot, ``member_count`` is 1; a private
thread is seen by whoever sees its parent), forum and announcement channels' threads, and the
system messages Discord posts around a thread (``THREAD_CREATED``, ``THREAD_STARTER_MESSAGE``).
"""

from __future__ import annotations

from typing import Any

from loopback.errors import ApiError, Reply, Upload
from loopback.messages import Messages
from loopback.model import PRIVATE_THREAD, PUBLIC_THREAD, TEXT_CHANNEL, Channel
from loopback.permissions import (
    CREATE_PRIVATE_THREADS,
    CREATE_PUBLIC_THREADS,
    MANAGE_THREADS,
    SEND_MESSAGES_IN_THREADS,
    VIEW_CHANNEL,
)
from loopback.referee import Referee
from loopback.spec import Spec
from loopback.state import State


def _missing() -> ApiError:
    return ApiError(403, 50013, "Missing Permissions")


class Threads:
    """Answers the thread routes of the REST API."""

    def __init__(self, state: State, messages: Messages, referee: Referee,
                 spec: Spec | None) -> None:
        self.state = state
        self.messages = messages
        self.referee = referee
        self.spec = spec

    def _parent(self, params: dict[str, str], needs: int) -> Channel:
        """The channel a thread is started in, when the bot may start one there."""
        channel = self.messages._channel_param(params)  # noqa: SLF001 - one lookup for both
        if channel.type != TEXT_CHANNEL:
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        if not channel.bot_may(VIEW_CHANNEL):
            raise ApiError(403, 50001, "Missing Access")
        if not channel.bot_may(needs):
            raise _missing()
        return channel

    def _thread(self, params: dict[str, str]) -> Channel:
        channel = self.messages._channel_param(params)  # noqa: SLF001
        if not channel.thread:
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        self.messages._viewable(channel)  # noqa: SLF001 - Missing Access, as for its messages
        return channel

    @staticmethod
    def _options(body: dict[str, Any]) -> dict[str, Any]:
        return {"auto_archive": int(body.get("auto_archive_duration") or 1440),
                "slowmode": int(body.get("rate_limit_per_user") or 0)}

    async def from_message(self, params: dict[str, str], body: Any, uploads: list[Upload],
                           query: dict[str, str]) -> Reply:
        """``POST /channels/{id}/messages/{id}/threads``: a public thread started from a
        message (one per message), which takes the message's id."""
        parent = self._parent(params, CREATE_PUBLIC_THREADS)
        message = self.messages._channel_message(params)  # noqa: SLF001
        if message.thread is not None:
            raise ApiError(400, 160004, "A thread has already been created for this message")
        body = body or {}
        thread = self.state.create_thread(parent, str(body.get("name", "")),
                                          owner=self.state.bot, message=message,
                                          **self._options(body))
        return Reply(201, thread.payload())

    async def create(self, params: dict[str, str], body: Any, uploads: list[Upload],
                     query: dict[str, str]) -> Reply:
        """``POST /channels/{id}/threads``: a thread without a message (``type`` 11 public, 12
        private: Discord's default when none is given)."""
        body = body or {}
        kind = int(body.get("type") or PRIVATE_THREAD)
        if kind not in (PUBLIC_THREAD, PRIVATE_THREAD):
            raise ApiError(400, 50035, "Invalid Form Body",
                           {"type": {"_errors": [{"code": "BASE_TYPE_CHOICES",
                                                  "message": "Value must be 11 or 12."}]}})
        needs = CREATE_PUBLIC_THREADS if kind == PUBLIC_THREAD else CREATE_PRIVATE_THREADS
        parent = self._parent(params, needs)
        thread = self.state.create_thread(parent, str(body.get("name", "")),
                                          owner=self.state.bot, kind=kind,
                                          **self._options(body))
        return Reply(201, thread.payload())

    async def edit(self, params: dict[str, str], body: Any, uploads: list[Upload],
                   query: dict[str, str]) -> Reply:
        """``PATCH /channels/{id}`` of a thread (the stand-in edits no other channel)."""
        thread = self._thread(params)
        body = body or {}
        # the API's description allows any variant of the union; the channel's type picks one
        problems = [] if self.spec is None else self.spec.schema_problems(
            "UpdateThreadRequestPartial", body)
        for p in problems:
            self.referee.breach("schema", p, "PATCH /channels/{id}")
        if problems:
            raise ApiError(400, 50035, "Invalid Form Body",
                           {"_errors": [{"code": "SCHEMA", "message": problems[0]}]})
        manage = thread.bot_may(MANAGE_THREADS)
        owner = thread.owner_id == self.state.bot.id
        archived = body.get("archived", thread.archived)
        locked = body.get("locked", thread.locked)
        if thread.archived and archived:
            raise ApiError(400, 50083, "Operation cannot be performed on an archived thread")
        if not manage:
            if (thread.locked or locked) and (thread.archived or "locked" in body):
                raise _missing()
            if any(k in body for k in ("rate_limit_per_user", "invitable", "flags",
                                       "applied_tags")):
                raise _missing()
            if not owner and (archived or any(k in body for k in (
                    "name", "auto_archive_duration"))):
                raise _missing()
            if not thread.bot_may(SEND_MESSAGES_IN_THREADS):
                raise _missing()
        if "name" in body:
            thread.name = str(body["name"])
        if "auto_archive_duration" in body:
            thread.auto_archive = int(body["auto_archive_duration"])
        if "rate_limit_per_user" in body:
            thread.slowmode = int(body["rate_limit_per_user"] or 0)
        before = (thread.archived, thread.locked)
        self.state.set_archived(thread, bool(archived), bool(locked))
        if (thread.archived, thread.locked) == before:  # set_archived sent nothing
            self.state.thread_changed(thread)
        return Reply(200, thread.payload())

    async def delete(self, params: dict[str, str], body: Any, uploads: list[Upload],
                     query: dict[str, str]) -> Reply:
        """``DELETE /channels/{id}`` of a thread: needs Manage Threads (its owner too)."""
        thread = self._thread(params)
        if not thread.bot_may(MANAGE_THREADS):
            raise _missing()
        payload = thread.payload()
        self.state.delete_thread(thread)
        return Reply(200, payload)

    async def join(self, params: dict[str, str], body: Any, uploads: list[Upload],
                   query: dict[str, str]) -> Reply:
        """``PUT`` / ``DELETE /channels/{id}/thread-members/@me``: the bot joins or leaves a
        thread (membership is not modelled: every thread reaches the bot)."""
        thread = self._thread(params)
        if thread.archived:
            raise ApiError(400, 50083, "Operation cannot be performed on an archived thread")
        return Reply(204)

    async def active(self, params: dict[str, str], body: Any, uploads: list[Upload],
                     query: dict[str, str]) -> Reply:
        """``GET /guilds/{id}/threads/active``: the guild's active threads."""
        gid = int(params["guild"]) if params["guild"].isdigit() else -1
        guild = self.state.guilds.get(gid)
        if guild is None:
            raise ApiError(404, 10004, "Unknown Guild")
        return Reply(200, {"threads": [c.payload() for c in guild.channels
                                       if c.thread and not c.archived], "members": []})

    async def archived(self, params: dict[str, str], body: Any, uploads: list[Upload],
                       query: dict[str, str]) -> Reply:
        """``GET /channels/{id}/threads/archived/public``: the channel's archived public
        threads, the most recently archived first."""
        parent = self.messages._channel_param(params)  # noqa: SLF001
        if not parent.bot_may(VIEW_CHANNEL):
            raise ApiError(403, 50001, "Missing Access")
        found = sorted((c for c in self.state.threads_of(parent, archived=True)
                        if c.type == PUBLIC_THREAD), key=lambda c: c.archived_at, reverse=True)
        return Reply(200, {"threads": [c.payload() for c in found], "members": [],
                           "has_more": False})
