"""A file the bot uploaded to the stand-in, as Discord's CDN keeps and serves it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class Attachment:
    """A stored upload, served at ``/attachments/{id}/{secret}/{filename}``."""

    id: int
    filename: str
    size: int
    content_type: str
    data: bytes | None
    secret: str
    description: str | None = None

    @property
    def picture(self) -> bool:
        """True for an image (which Discord's client shows rather than links)."""
        return self.content_type.startswith("image/") or self.filename.lower().endswith(
            (".png", ".jpg", ".jpeg", ".gif", ".webp"))

    @property
    def path(self) -> str:
        """The URL path the file is served at (unguessable, like Discord's signed CDN URLs)."""
        return f"/attachments/{self.id}/{self.secret}/{self.filename}"

    def payload(self, base: str) -> dict[str, Any]:
        """The attachment object, its URLs under ``base`` (``http://127.0.0.1:port``)."""
        out: dict[str, Any] = {"id": str(self.id), "filename": self.filename, "size": self.size,
                               "url": base + self.path, "proxy_url": base + self.path,
                               "content_type": self.content_type}
        if self.description:
            out["description"] = self.description
        return out


__all__ = ["Attachment"]
