"""The bot's settings, read from the environment and an optional ``.env`` file, then validated.

Every problem stops the bot with one line naming the setting and what is wrong; the token is never
printed, logged or kept in an exception message.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, SecretStr, ValidationError, field_validator

from i18n import msg, translate

#: A bot token: three dot-separated base64url parts (user id, timestamp, HMAC).
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{20,}$")
LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]
MAX_TIMER = 24 * 3600


class ConfigProblem(Exception):
    """A setting that keeps the bot from starting; ``str()`` is the one-line explanation."""


class NoToken(ConfigProblem):
    """No ``DISCORD_TOKEN`` at all (``python -m bot`` then opens the browser playground)."""


class Settings(BaseModel):
    """Validated settings of one bot process."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    token: SecretStr
    db: Path = Path("karak.sqlite3")
    dev_guild: int | None = None
    log_level: LogLevel = "INFO"
    api_base: str | None = None
    gateway_url: str | None = None
    turn_timer: int = 0  # default turn timer (seconds) of new tables; 0 = no timer
    ai_pace: float = 1.5  # seconds between two moves of an AI seat
    heartbeat: Path | None = None  # file touched while connected (container health check)

    @field_validator("token")
    @classmethod
    def _token(cls, value: SecretStr) -> SecretStr:
        text = value.get_secret_value().strip()
        if text.lower().startswith("bot "):
            text = text[4:].strip()
        if not _TOKEN.match(text):
            raise ValueError("malformed")
        return SecretStr(text)

    @field_validator("dev_guild")
    @classmethod
    def _guild(cls, value: int | None) -> int | None:
        if value is not None and value <= 0:
            raise ValueError("dev_guild")
        return value

    @field_validator("turn_timer")
    @classmethod
    def _timer(cls, value: int) -> int:
        if value != 0 and not 30 <= value <= MAX_TIMER:
            raise ValueError("turn_timer")
        return value

    @field_validator("ai_pace")
    @classmethod
    def _pace(cls, value: float) -> float:
        if not 0 <= value <= 30:
            raise ValueError("ai_pace")
        return value

    @field_validator("api_base", "gateway_url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        if value is None or value == "":
            return None
        if not re.match(r"^(https?|wss?)://[^\s/]+", value):
            raise ValueError("url")
        return value.rstrip("/")


#: Environment variable -> settings field.
ENV = {
    "DISCORD_TOKEN": "token",
    "KARAK_DB": "db",
    "KARAK_DEV_GUILD": "dev_guild",
    "KARAK_LOG_LEVEL": "log_level",
    "KARAK_API_BASE": "api_base",
    "KARAK_GATEWAY_URL": "gateway_url",
    "KARAK_TURN_TIMER": "turn_timer",
    "KARAK_AI_PACE": "ai_pace",
    "KARAK_HEARTBEAT": "heartbeat",
}
_FIELD_ENV = {v: k for k, v in ENV.items()}


def read_env_file(path: Path) -> dict[str, str]:
    """The ``KEY=value`` lines of a ``.env`` file (comments, blanks and ``export`` allowed)."""
    out: dict[str, str] = {}
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return out
    except OSError as exc:
        raise ConfigProblem(translate(msg("bot.config.env_unreadable", path=str(path),
                                          error=exc.strerror or str(exc)))) from None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("export "):
            line = line[7:].lstrip()
        name, sep, value = line.partition("=")
        name = name.strip()
        if not sep or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise ConfigProblem(translate(msg("bot.config.env_syntax", path=str(path),
                                              line=number)))
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        elif " #" in value:
            value = value.split(" #", 1)[0].rstrip()
        out[name] = value
    return out


def check_db_path(path: Path) -> None:
    """Raise :class:`ConfigProblem` unless the database file can be created or written."""
    folder = path.parent if str(path.parent) else Path(".")
    if path.exists():
        if path.is_dir() or not os.access(path, os.R_OK | os.W_OK):
            raise ConfigProblem(translate(msg("bot.config.db_unwritable", path=str(path))))
        return
    if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
        raise ConfigProblem(translate(msg("bot.config.db_unwritable", path=str(path))))


def load_settings(environ: Mapping[str, str] | None = None,
                  env_file: Path | None = Path(".env")) -> Settings:
    """Read, validate and return the settings; raise :class:`ConfigProblem` with one line.

    Values in the real environment win over the ``.env`` file.
    """
    values: dict[str, str] = {}
    if env_file is not None:
        values.update(read_env_file(env_file))
    values.update(os.environ if environ is None else environ)
    data: dict[str, str] = {}
    for name, field in ENV.items():
        value = values.get(name, "").strip()
        if value:
            data[field] = value.upper() if field == "log_level" else value
    if "token" not in data:
        raise NoToken(translate(msg("bot.config.no_token")))
    try:
        settings = Settings.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = str(err["loc"][0]) if err["loc"] else "?"
        if field == "token":
            raise ConfigProblem(translate(msg("bot.config.bad_token"))) from None
        name = _FIELD_ENV.get(field, field)
        raise ConfigProblem(translate(msg(
            f"bot.config.bad.{field}", name=name, value=str(data.get(field, ""))[:80]))) from None
    check_db_path(settings.db)
    return settings
