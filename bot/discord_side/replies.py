"""A click's answer in one request when it is ready soon, else acknowledged first.

Discord wants a first response to a click within 3 seconds. A click on a hand message is
usually answered well within that: the move is written and the hand drawn in some tens of
milliseconds. :class:`Reply` then answers with the result itself, one request: the clicked private
message edited (an "update message" response) or a new private message. Only when the answer is
not ready after :data:`GRACE` seconds (a busy bot, a slow database) is the click acknowledged on
its own (deferred), and the answer edited in when it is ready, as every click was before.

Use it as an async context manager around the work: on leaving it, a pending acknowledgement is
settled (sent or called off), so whatever answers next (a refusal, an error) finds the
interaction's state as it is.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from types import TracebackType
from typing import Any

import discord

log = logging.getLogger(__name__)

#: Seconds a click waits for its answer before it is acknowledged on its own (Discord allows 3;
#: the rest is left for the acknowledgement's own way there).
GRACE = 1.0


class Reply:
    """The answer to one click: ``in_place`` edits the clicked private message, else a new
    private message is sent. The first answer given within ``grace`` seconds is the click's
    response; after that the click has been deferred and answers edit the response."""

    def __init__(self, interaction: discord.Interaction[Any], in_place: bool,
                 grace: float = GRACE) -> None:
        self.interaction = interaction
        self.in_place = in_place
        self.grace = grace
        self._lock = asyncio.Lock()
        self._timer: asyncio.Task[None] | None = None

    async def __aenter__(self) -> Reply:
        if not self.interaction.response.is_done():
            self._timer = asyncio.get_running_loop().create_task(
                self._acknowledge_later(), name=f"acknowledge-{self.interaction.id}")
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        trace: TracebackType | None) -> None:
        if not self._lock.locked():  # no acknowledgement on its way: call it off at once
            self._stop_timer()
            return
        await self.settle()

    async def settle(self) -> None:
        """Call off the pending acknowledgement, or wait for it when it is on its way."""
        async with self._lock:
            self._stop_timer()

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    async def _acknowledge_later(self) -> None:
        await asyncio.sleep(self.grace)
        async with self._lock:
            self._timer = None
            if self.interaction.response.is_done():
                return
            try:
                if self.in_place:
                    await self.interaction.response.defer()
                else:
                    await self.interaction.response.defer(ephemeral=True, thinking=True)
            except discord.HTTPException as exc:  # the answer's own request will say it
                log.warning("could not acknowledge interaction %s (%s %s)",
                            self.interaction.id, exc.status, exc.code)

    async def show(self, view: discord.ui.LayoutView,
                   files: Sequence[discord.File | discord.Attachment]) -> discord.Message | None:
        """Show ``view`` with ``files`` (new pictures, or attachments the clicked message keeps)
        as the answer; returns the message as Discord now has it (None when it does not say).
        Raises :class:`discord.HTTPException` when Discord refuses (the clicked message was
        dismissed or deleted): :meth:`show_anew` then sends a new one."""
        async with self._lock:
            self._stop_timer()
            response = self.interaction.response
            if not response.is_done():
                if self.in_place:
                    done = await response.edit_message(view=view, attachments=files)
                else:
                    done = await response.send_message(view=view, ephemeral=True, files=[
                        f for f in files if isinstance(f, discord.File)])
                sent = done.resource if done is not None else None
                return sent if isinstance(sent, discord.InteractionMessage) else None
        return await self.interaction.edit_original_response(view=view, attachments=files)

    async def tell(self, text: str) -> None:
        """Answer with ``text`` alone, privately: the first response, the text in place of the
        "thinking" message of a click acknowledged on its own, or a private follow-up."""
        async with self._lock:
            self._stop_timer()
            response = self.interaction.response
            if not response.is_done():
                await response.send_message(text, ephemeral=True)
                return
        if self.in_place:
            await self.interaction.followup.send(text, ephemeral=True)
        else:
            await self.interaction.edit_original_response(content=text)

    async def show_anew(self, view: discord.ui.LayoutView, files: Sequence[discord.File]) -> None:
        """Show ``view`` in a new private message (the first response, or a follow-up)."""
        async with self._lock:
            self._stop_timer()
            if not self.interaction.response.is_done():
                await self.interaction.response.send_message(view=view, files=list(files),
                                                             ephemeral=True)
                return
        await self.interaction.followup.send(view=view, files=list(files), ephemeral=True)

