"""Interaction routes: the initial response (``POST /interactions/{id}/{token}/callback``) and
the webhook of an interaction's token (follow-ups, and reading, editing and deleting its
messages), with Discord's time rules: one initial response within 3 s, then 15 minutes of
token."""

from __future__ import annotations

from typing import Any

from loopback import limits
from loopback.errors import ApiError, Reply, Upload
from loopback.interaction import Interaction
from loopback.messages import Messages
from loopback.model import EPHEMERAL, LOADING, Message
from loopback.referee import Referee
from loopback.state import State


class Hooks:
    """Answers the interaction callback and webhook routes."""

    def __init__(self, state: State, referee: Referee, writer: Messages) -> None:
        self.state = state
        self.referee = referee
        self.writer = writer

    async def callback(self, params: dict[str, str], body: Any, uploads: list[Upload],
                        query: dict[str, str]) -> Reply:
        """The initial response to an interaction (one, within 3 s, of a type that fits)."""
        route = "POST /interactions/{id}/{token}/callback"
        iid = params["iid"]
        ix = self.state.interactions.get(int(iid)) if iid.isdigit() else None
        if ix is None or ix.token != params["token"]:
            self.referee.breach("unknown", f"callback for unknown interaction {iid}", route)
            raise ApiError(404, 10062, "Unknown interaction")
        now = self.state.now()
        if ix.responded is not None:
            self.referee.breach("double", "a second initial response", route, ix)
            raise ApiError(400, 40060, "Interaction has already been acknowledged.")
        if ix.failed is not None:  # already failed (and recorded): too late, or orphaned
            raise ApiError(404, 10062, "Unknown interaction")
        if now - ix.created > self.referee.response_deadline:
            self.referee.breach("late", f"initial response after {now - ix.created:.2f} s "
                        f"(at most {self.referee.response_deadline:g} s)", route, ix)
            self.referee.pending.discard(ix.id)
            ix.mark_failed("answered too late")
            raise ApiError(404, 10062, "Unknown interaction")
        kind = body.get("type") if isinstance(body, dict) else None
        if kind not in limits.RESPONSES.get(ix.type, ()):
            self.referee.breach("response-type", f"response type {kind} to a {ix.kind} interaction",
                        route, ix)
            raise ApiError(400, 50035, "Invalid Form Body")
        data = body.get("data") or {}
        flags = int(data.get("flags") or 0)
        message: Message | None = None
        channel = self.state.channels.get(ix.channel_id)
        if channel is None:  # a thread deleted since the person acted
            raise ApiError(404, 10003, "Unknown Channel")
        if kind == 4:
            message = self.writer.write(None, data, uploads, route, ix, channel_id=channel.id,
                                  owner=ix.user.id if flags & EPHEMERAL else None)
            ix.original_id, ix.ephemeral = message.id, bool(flags & EPHEMERAL)
        elif kind == 5:
            message = self.writer.write(None, {}, [], route, ix, channel_id=channel.id,
                                  owner=ix.user.id if flags & EPHEMERAL else None,
                                  create_flags=LOADING | (flags & EPHEMERAL))
            ix.original_id, ix.ephemeral = message.id, bool(flags & EPHEMERAL)
        elif kind in (6, 7):
            target = self.state.messages.get(ix.message_id or 0)
            if target is None or target.deleted:
                raise ApiError(404, 10008, "Unknown Message")
            ix.original_id = target.id
            if kind == 7:
                message = self.writer.write(target, data, uploads, route, ix)
        elif kind == 8:
            choices = data.get("choices") or []
            problems = limits.choices_problems(choices)
            for p in problems:
                self.referee.breach("limits", p, route, ix)
            if problems:
                raise ApiError(400, 50035, "Invalid Form Body")
            ix.choices = list(choices)
        elif kind == 9:
            ix.modal = dict(data)
        ix.response_type = kind
        self.referee.pending.discard(ix.id)
        ix.mark_responded(now)
        if kind in (4, 7, 8, 9):
            ix.mark_completed(now)
        if uploads and ix.imaged is None:
            ix.imaged = now
        if query.get("with_response", "").lower() not in ("true", "1"):
            return Reply(204)
        resource: dict[str, Any] = {"type": kind}
        if message is not None:
            resource["message"] = self.state.payload(message)
        return Reply(200, {"interaction": {
            "id": str(ix.id), "type": ix.type, "activity_instance_id": None,
            "response_message_id": str(ix.original_id) if ix.original_id else None,
            "response_message_loading": kind == 5, "response_message_ephemeral": ix.ephemeral},
            "resource": resource})

    def _hook(self, params: dict[str, str], route: str) -> Interaction:
        if params["app"] != str(self.state.application_id):
            raise ApiError(404, 10015, "Unknown Webhook")
        ix = self.state.by_token.get(params["token"])
        if ix is None:
            self.referee.breach("unknown", "webhook call with an unknown token", route)
            raise ApiError(404, 10015, "Unknown Webhook")
        if self.state.now() - ix.created > self.referee.token_lifetime:
            self.referee.breach("expired", f"interaction token used after "
                        f"{(self.state.now() - ix.created) / 60:.1f} minutes", route, ix)
            raise ApiError(401, 50027, "Invalid Webhook Token")
        if ix.responded is None:
            self.referee.breach("early", "webhook call before the initial response", route, ix)
            raise ApiError(404, 10015, "Unknown Webhook")
        return ix

    def _hook_message(self, ix: Interaction, mid: str) -> Message:
        if mid == "@original":
            found = self.state.messages.get(ix.original_id or 0)
        else:
            found = (self.state.messages.get(int(mid))
                     if mid.isdigit() and int(mid) in ix.followups else None)
        if found is None or found.deleted:
            raise ApiError(404, 10008, "Unknown Message")
        return found

    def _complete(self, ix: Interaction, uploads: list[Upload]) -> None:
        now = self.state.now()
        ix.mark_completed(now)
        if uploads and ix.imaged is None:
            ix.imaged = now

    async def followup(self, params: dict[str, str], body: Any, uploads: list[Upload],
                        query: dict[str, str]) -> Reply:
        """A follow-up through the token (the first one of a deferred reply fills it)."""
        route = "POST /webhooks/{id}/{token}"
        ix = self._hook(params, route)
        body = body or {}
        flags = int(body.get("flags") or 0)
        original = self.state.messages.get(ix.original_id or 0)
        if (ix.response_type == 5 and original is not None and original.loading
                and not ix.followups):
            # the first follow-up of a deferred reply fills the "thinking..." message
            message = self.writer.write(original, body, uploads, route, ix)
        else:
            message = self.writer.write(None, body, uploads, route, ix, channel_id=ix.channel_id,
                                  owner=ix.user.id if flags & EPHEMERAL else None)
        ix.followups.append(message.id)
        self._complete(ix, uploads)
        if query.get("wait", "").lower() in ("true", "1"):
            return Reply(200, self.state.payload(message))
        return Reply(204)

    async def hook_get(self, params: dict[str, str], body: Any, uploads: list[Upload],
                        query: dict[str, str]) -> Reply:
        """A message of the interaction (``@original`` or a follow-up)."""
        ix = self._hook(params, "GET /webhooks/{id}/{token}/messages/{id}")
        return Reply(200, self.state.payload(self._hook_message(ix, params["mid"])))

    async def hook_edit(self, params: dict[str, str], body: Any, uploads: list[Upload],
                         query: dict[str, str]) -> Reply:
        """Edit a message of the interaction through its token."""
        route = "PATCH /webhooks/{id}/{token}/messages/{id}"
        ix = self._hook(params, route)
        message = self._hook_message(ix, params["mid"])
        self.writer.write(message, body or {}, uploads, route, ix)
        self._complete(ix, uploads)
        return Reply(200, self.state.payload(message))

    async def hook_delete(self, params: dict[str, str], body: Any, uploads: list[Upload],
                           query: dict[str, str]) -> Reply:
        """Delete a message of the interaction through its token."""
        ix = self._hook(params, "DELETE /webhooks/{id}/{token}/messages/{id}")
        message = self._hook_message(ix, params["mid"])
        self.state.delete_message(message)
        self._complete(ix, [])
        return Reply(204)
