"""Discord's OpenAPI document as a request validator.

:class:`Spec` finds the operation a request path belongs to (``/channels/123/messages`` ->
``/channels/{channel_id}/messages``) and validates a request body against that operation's JSON
schema. The stand-in validates every body the bot sends, and the offline harness of
``tests/bot`` uses the same class, so both hold the bot to one reading of the API.

The document lives outside the repository: the path in the ``KARAK_DISCORD_OPENAPI`` environment
variable, else ``../shared/discord-api/openapi.json`` (relative to the project root); another file
can be given explicitly. ``jsonschema-rs`` (a development dependency, compiled: it validates a
Components V2 message in microseconds, where a pure-Python validator took milliseconds and most of
the end-to-end tests' time) does the validation; :func:`available` tells whether it can be used.
"""

from __future__ import annotations

import json
import os
import re
import urllib.parse
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
#: Discord's OpenAPI description: ``KARAK_DISCORD_OPENAPI`` when set, else beside the project.
SPEC_PATH = Path(os.environ.get("KARAK_DISCORD_OPENAPI")
                 or ROOT.parent / "shared" / "discord-api" / "openapi.json")


class SpecUnavailable(RuntimeError):
    """The OpenAPI document or the ``jsonschema-rs`` package is missing."""


def unavailable_reason(path: Path = SPEC_PATH) -> str | None:
    """Why request bodies cannot be validated here (None when they can): the ``jsonschema-rs``
    package is missing, or the OpenAPI document is not at ``path``."""
    try:
        import jsonschema_rs  # noqa: F401
    except ImportError:
        return "the jsonschema-rs package is not installed"
    if not path.is_file():
        return (f"the Discord API description {path} is missing; "
                "KARAK_DISCORD_OPENAPI may name where it is")
    return None


def validation_off(reason: str) -> str:
    """The one line that says a stand-in runs without validating request bodies, and why
    (``reason`` from :func:`unavailable_reason`)."""
    return (f"request validation is off ({reason}): the bot's requests are not checked "
            "against Discord's API description")


def available(path: Path = SPEC_PATH) -> bool:
    """True when the document exists and ``jsonschema-rs`` can be imported."""
    return unavailable_reason(path) is None


class Spec:
    """Discord's OpenAPI document: find the operation of a request and validate its body."""

    def __init__(self, path: Path = SPEC_PATH) -> None:
        try:
            import jsonschema_rs  # noqa: F401
        except ImportError as exc:  # pragma: no cover - a dev dependency
            raise SpecUnavailable("request validation needs the jsonschema-rs package") from exc
        try:
            self.doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise SpecUnavailable(f"cannot read the Discord API document {path}") from exc
        self.paths: list[tuple[re.Pattern[str], str]] = []
        for template in self.doc["paths"]:
            regex = re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template))
            self.paths.append((re.compile(f"^{regex}$"), template))
        # static paths first (e.g. /messages/@original before /messages/{message_id})
        self.paths.sort(key=lambda p: p[1].count("{"))
        self._validators: dict[tuple[str, str], Any] = {}

    def find(self, path: str) -> str | None:
        """The path template matching ``path`` (without query), or None."""
        for regex, template in self.paths:
            if regex.match(path):
                return template
        return None

    def template(self, path: str) -> str:
        """The path template matching ``path``; AssertionError when there is none."""
        found = self.find(path)
        if found is None:
            raise AssertionError(f"{path} is not an endpoint of the Discord API")
        return found

    def has_operation(self, method: str, template: str) -> bool:
        """True when the API defines ``method`` on ``template``."""
        return method.lower() in self.doc["paths"].get(template, {})

    def _compiled(self, *pointer: str) -> Any:
        """A validator of the schema at ``pointer`` inside the document (its ``$ref`` resolve
        against the whole document, which the validator is given with that one reference)."""
        import jsonschema_rs

        escaped = "/".join(p.replace("~", "~0").replace("/", "~1") for p in pointer)
        schema = dict(self.doc)
        schema["$ref"] = "#/" + urllib.parse.quote(escaped, safe="/~")
        return jsonschema_rs.Draft202012Validator(schema)

    def validator(self, method: str, template: str) -> Any:
        """The JSON schema validator of an operation's body (None when it takes no body)."""
        key = (method.upper(), template)
        if key not in self._validators:
            op = self.doc["paths"][template].get(method.lower())
            if op is None:
                raise AssertionError(f"{method} {template} is not in the Discord API")
            body = op.get("requestBody")
            if body is None:
                self._validators[key] = None
            else:
                if "application/json" not in body["content"]:
                    raise AssertionError(f"{method} {template}: no JSON body in the API")
                self._validators[key] = self._compiled(
                    "paths", template, method.lower(), "requestBody", "content",
                    "application/json", "schema")
        return self._validators[key]

    def problems(self, method: str, path: str, body: Any) -> tuple[str | None, list[str]]:
        """The template of the request and what is wrong with it (empty when it is valid)."""
        template = self.find(path)
        if template is None:
            return None, [f"{method} {path} is not an endpoint of the Discord API"]
        if not self.has_operation(method, template):
            return template, [f"{method} {template} is not in the Discord API"]
        validator = self.validator(method, template)
        if validator is None:
            if body is not None:
                return template, [f"{method} {template} takes no body, got "
                                  f"{json.dumps(body)[:200]}"]
            return template, []
        if body is None:
            return template, []
        wrong = _worst(validator, body)
        if wrong is None:
            return template, []
        return template, [f"{method} {template}: body violates the Discord API schema: {wrong}"]

    def schema_problems(self, name: str, body: Any) -> list[str]:
        """What is wrong with ``body`` against the component schema ``name`` (empty when it is
        valid): for a request whose schema is a union the target picks, as a channel's type
        picks the variant of ``PATCH /channels/{id}``."""
        key = ("schema", name)
        if key not in self._validators:
            self._validators[key] = self._compiled("components", "schemas", name)
        wrong = _worst(self._validators[key], body)
        return [] if wrong is None else [f"body violates the Discord API schema {name}: {wrong}"]

    def check(self, method: str, path: str, body: Any) -> str:
        """Validate a request; returns its template, raises AssertionError when it is wrong."""
        template, problems = self.problems(method, path, body)
        if problems:
            raise AssertionError(f"{problems[0]}\n{json.dumps(body)[:1500]}")
        assert template is not None
        return template


def _worst(validator: Any, body: Any) -> str | None:
    """The deepest of ``body``'s errors against ``validator`` and where it is, or None when
    ``body`` is valid."""
    if validator.is_valid(body):
        return None
    errors = sorted(validator.iter_errors(body), key=lambda e: -len(e.instance_path))
    best = errors[0]
    return f"{best.message[:300]} at {list(best.instance_path)}"


@cache
def spec(path: Path = SPEC_PATH) -> Spec:
    """The shared (cached) :class:`Spec` of ``path``."""
    return Spec(path)
