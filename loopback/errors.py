"""The stand-in's answers and refusals: :class:`LoopbackError` (what a Discord user cannot do),
:class:`ApiError` (an error answer of the API), :class:`Reply` (an HTTP answer), and
:class:`Upload` (a file part of a multipart request)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any


class LoopbackError(ValueError):
    """Something a Discord user cannot do (click a hidden message, run an unknown command...).

    The text (``str(error)``) is English, for tests and logs; ``code`` names the refusal and
    ``params`` fill its placeholders, so the playground shows it in the viewer's language
    (``playground.page.refusal.<code>`` in ``i18n/locales/*/playground.toml``)."""

    def __init__(self, text: str, code: str = "bad_request", **params: str | int) -> None:
        super().__init__(text)
        self.code = code
        self.params = {k: str(v) for k, v in params.items()}

    def public(self) -> dict[str, Any]:
        """The error as the control API answers it: English text, code and parameters."""
        return {"error": str(self), "code": self.code, "params": self.params}


class ApiError(Exception):
    """An error answer of the API: HTTP status, Discord error code and message."""

    def __init__(self, status: int, code: int, message: str,
                 errors: dict[str, Any] | None = None, retry_after: float | None = None) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors
        self.retry_after = retry_after

    def reply(self) -> Reply:
        """The HTTP answer."""
        body: dict[str, Any] = {"message": self.message, "code": self.code}
        if self.errors:
            body["errors"] = self.errors
        if self.retry_after is not None:
            body["retry_after"] = self.retry_after
            body["global"] = False
        return Reply(self.status, body)


@dataclass
class Upload:
    """A file part of a multipart request (``files[n]``)."""

    field: str
    filename: str
    content_type: str
    data: bytes

    @property
    def index(self) -> int | None:
        """``n`` of a ``files[n]`` field name."""
        m = re.fullmatch(r"files\[(\d+)\]", self.field)
        return int(m.group(1)) if m else None


@dataclass
class Reply:
    """An HTTP answer of the API (JSON body, or no body)."""

    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


def dumps(value: Any) -> str:
    """Compact JSON."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
