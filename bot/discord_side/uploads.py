"""Pictures as discord.py sends them: a new PNG upload, or a picture an edited message keeps."""

from __future__ import annotations

import io
from typing import Any

import discord


class ImageFile(discord.File):
    """A PNG upload whose attachment id is sent as a snowflake string, as the API specifies
    (discord.py sends the bare index as a number)."""

    def __init__(self, data: bytes, filename: str) -> None:
        super().__init__(io.BytesIO(data), filename=filename)

    def to_dict(self, index: int) -> dict[str, Any]:
        """The attachment entry of the request's payload_json."""
        payload = super().to_dict(index)
        payload["id"] = str(index)
        return payload


class KeptPicture(discord.Attachment):
    """A picture the edited message already carries, sent back by its attachment id (a
    snowflake string, as the API specifies) instead of being drawn and uploaded again.

    Only the id and the file name are known and sent (discord.py's attachment sends every
    field it read, the id as a number), so the parent's constructor, which reads a whole
    attachment payload, is not called."""

    def __init__(self, attachment_id: int, filename: str) -> None:
        self.id = attachment_id
        self.filename = filename

    def to_dict(self) -> Any:
        """The attachment entry of the edit's payload: keep this one."""
        return {"id": str(self.id), "filename": self.filename}


__all__ = ["ImageFile", "KeptPicture"]
