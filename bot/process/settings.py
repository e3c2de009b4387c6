"""The bot's settings, read from the environment and an optional ``.env`` file by
pydantic-settings, then validated.

Every problem stops the bot with one line naming the setting and what is wrong; no value is ever
echoed (a token pasted into the wrong setting stays secret), and the token is never printed, logged
or kept in an exception message. A line of ``.env`` that is not an assignment is
refused with its line number (python-dotenv would skip it silently). A ``KARAK_`` name no setting
has (mistyped) is not refused: :func:`unknown_settings` names it and the closest setting, for
the bot to warn about.
"""

from __future__ import annotations

import difflib
import io
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Literal

from dotenv import dotenv_values
from pydantic import Field, SecretStr, ValidationError, ValidationInfo, field_validator
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from bot.game.leases import instance_name
from bot.game.limits import MATCH_LIMIT, MAX_MATCH_LIMIT
from bot.process.logs import LogFormat
from bot.storage.choice import is_database_url
from i18n import Msg, msg, translate

#: A bot token: three dot-separated base64url parts (user id, timestamp, HMAC).
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{20,}$")
LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]
MAX_TIMER = 7 * 24 * 3600  # a week: slow matches played across days
#: Drawing processes allowed at most (the machine a bot runs on rarely has more cores).
MAX_WORKERS = 4
#: Shards a bot may have at most (far above what Discord recommends to the largest bots).
MAX_SHARDS = 1 << 16
#: The highest global rate limit a bot may say Discord gave it (requests a second).
MAX_RATE_LIMIT = 100_000


class ConfigProblem(Exception):
    """A setting that keeps the bot from starting; ``str()`` is the one-line explanation."""


class NoToken(ConfigProblem):
    """No ``DISCORD_TOKEN`` at all (``python -m bot`` says where to get one; ``python3
    scripts/dev.py run`` opens the browser playground instead)."""


class Refusal(ValueError):
    """A value a validator refuses with its own explanation instead of the setting's usual
    ``bot.config.bad.<field>`` line."""

    def __init__(self, explanation: Msg) -> None:
        super().__init__(explanation.key)
        self.explanation = explanation


def parse_shard_ids(text: str) -> tuple[int, ...]:
    """``"0-3,6"`` -> ``(0, 1, 2, 3, 6)``: shard ids and inclusive ranges separated by commas,
    sorted, each once; ValueError for anything else (an empty item, a reversed range)."""
    found: set[int] = set()
    for item in text.split(","):
        first, dash, last = item.strip().partition("-")
        if not first.strip().isdigit() or (dash and not last.strip().isdigit()):
            raise ValueError("shard_ids")
        low, high = int(first), int(last) if dash else int(first)
        if not low <= high < MAX_SHARDS:
            raise ValueError("shard_ids")
        found.update(range(low, high + 1))
    return tuple(sorted(found))


class Settings(BaseSettings):
    """Validated settings of one bot process: the environment first, then ``.env``."""

    model_config = SettingsConfigDict(frozen=True, extra="ignore", case_sensitive=True,
                                      env_ignore_empty=True, populate_by_name=True,
                                      env_file_encoding="utf-8")

    token: SecretStr = Field(validation_alias="DISCORD_TOKEN")
    # an SQLite file, or a postgresql:// URL (a database several bot processes share)
    db: str = Field("karak.sqlite3", validation_alias="KARAK_DB")
    dev_guild: int | None = Field(None, validation_alias="KARAK_DEV_GUILD")
    log_level: LogLevel = Field("INFO", validation_alias="KARAK_LOG_LEVEL")
    # how log lines look: readable text, or one JSON object a line (bot.process.logs)
    log_format: LogFormat = Field("text", validation_alias="KARAK_LOG_FORMAT")
    api_base: str | None = Field(None, validation_alias="KARAK_API_BASE")
    gateway_url: str | None = Field(None,
                                    validation_alias="KARAK_GATEWAY_URL")
    # default turn timer (seconds) of new tables; 0 = no timer
    turn_timer: int = Field(0, validation_alias="KARAK_TURN_TIMER")
    # each new match in a thread of its own where the bot may create threads, unless a server
    # chose otherwise with /goblin settings threads
    threads: bool = Field(True, validation_alias="KARAK_THREADS")
    # seconds between two moves of an AI seat
    ai_pace: float = Field(1.5, validation_alias="KARAK_AI_PACE")
    # seconds a hard AI seat may think about one decision (in a worker process)
    ai_think: float = Field(1.0, validation_alias="KARAK_AI_THINK")
    # file touched while connected (container health check)
    heartbeat: Path | None = Field(None, validation_alias="KARAK_HEARTBEAT")
    # processes drawing the pictures; 0 = one thread of the bot's own process
    drawing_workers: int = Field(1, validation_alias="KARAK_DRAWING_WORKERS")
    # the bot's shards in all (None: as many as Discord recommends, all run by this process)
    shard_count: int | None = Field(None, validation_alias="KARAK_SHARD_COUNT")
    # the shards this process runs (None: every one); needs shard_count
    shard_ids: Annotated[tuple[int, ...] | None, NoDecode] = Field(
        None, validation_alias="KARAK_SHARD_IDS")
    # this process's name as a lease owner among processes on one database (None: by its shards)
    instance: str | None = Field(None, validation_alias="KARAK_INSTANCE")
    # the port serving Prometheus metrics (None: no metrics served, no port opened)
    metrics_port: int | None = Field(None, validation_alias="KARAK_METRICS_PORT")
    # the address the metrics port listens on (the Docker image: every address of the container)
    metrics_host: str = Field("127.0.0.1", validation_alias="KARAK_METRICS_HOST")
    # seconds the bot waits on Discord when it stops, once its own work is done (the client's
    # DISCORD_WAIT, not imported here: the settings are read without loading discord.py)
    discord_stop_wait: float = Field(2.0, validation_alias="KARAK_DISCORD_STOP_WAIT")
    # requests a second Discord lets the bot make outside interactions (its global limit, shared
    # by all its processes): 50 unless Discord raised the bot's
    discord_rate_limit: int = Field(50, validation_alias="KARAK_DISCORD_RATE_LIMIT")
    # how many matches (not slow ones) one person may play at once; 0 = no limit
    match_limit: int = Field(MATCH_LIMIT, validation_alias="KARAK_MATCH_LIMIT")

    @field_validator("metrics_port")
    @classmethod
    def _metrics_port(cls, value: int | None) -> int | None:
        if value is not None and not 1 <= value <= 65535:
            raise ValueError("metrics_port")
        return value

    @field_validator("metrics_host")
    @classmethod
    def _metrics_host(cls, value: str) -> str:
        value = value.strip()
        if not re.fullmatch(r"[A-Za-z0-9.:_-]+", value):
            raise ValueError("metrics_host")
        return value

    @field_validator("instance", mode="before")
    @classmethod
    def _instance(cls, value: object) -> object:
        return (value.strip() or None) if isinstance(value, str) else value

    @property
    def owner(self) -> str:
        """This process's name as a lease owner: ``KARAK_INSTANCE``, else by its shards."""
        return instance_name(self.instance, self.shard_ids)

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper(cls, value: object) -> object:
        return value.strip().upper() if isinstance(value, str) else value

    @field_validator("log_format", mode="before")
    @classmethod
    def _lower(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value

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

    @field_validator("ai_think")
    @classmethod
    def _think(cls, value: float) -> float:
        if not 0.1 <= value <= 10:
            raise ValueError("ai_think")
        return value

    @field_validator("discord_stop_wait")
    @classmethod
    def _discord_wait(cls, value: float) -> float:
        if not 0.1 <= value <= 30:
            raise ValueError("discord_stop_wait")
        return value

    @field_validator("discord_rate_limit")
    @classmethod
    def _rate_limit(cls, value: int) -> int:
        if not 10 <= value <= MAX_RATE_LIMIT:
            raise ValueError("discord_rate_limit")
        return value

    @field_validator("match_limit")
    @classmethod
    def _match_limit(cls, value: int) -> int:
        if not 0 <= value <= MAX_MATCH_LIMIT:
            raise ValueError("match_limit")
        return value

    @field_validator("drawing_workers")
    @classmethod
    def _workers(cls, value: int) -> int:
        if not 0 <= value <= MAX_WORKERS:
            raise ValueError("drawing_workers")
        return value

    @field_validator("shard_count")
    @classmethod
    def _shard_count(cls, value: int | None) -> int | None:
        if value is not None and not 1 <= value <= MAX_SHARDS:
            raise ValueError("shard_count")
        return value

    @field_validator("shard_ids", mode="before")
    @classmethod
    def _shard_list(cls, value: object) -> object:
        return parse_shard_ids(value) if isinstance(value, str) else value

    @field_validator("shard_ids")
    @classmethod
    def _shard_ids(cls, value: tuple[int, ...] | None,
                   info: ValidationInfo) -> tuple[int, ...] | None:
        if value is None or "shard_count" not in info.data:  # a bad count is told first
            return value
        count = info.data["shard_count"]
        if count is None:
            raise Refusal(msg("bot.config.shards.needs_count"))
        if not value or value[-1] >= count:
            raise Refusal(msg("bot.config.shards.too_high", count=count, last=count - 1))
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
    "KARAK_LOG_FORMAT": "log_format",
    "KARAK_API_BASE": "api_base",
    "KARAK_GATEWAY_URL": "gateway_url",
    "KARAK_TURN_TIMER": "turn_timer",
    "KARAK_THREADS": "threads",
    "KARAK_AI_PACE": "ai_pace",
    "KARAK_AI_THINK": "ai_think",
    "KARAK_HEARTBEAT": "heartbeat",
    "KARAK_DRAWING_WORKERS": "drawing_workers",
    "KARAK_SHARD_COUNT": "shard_count",
    "KARAK_SHARD_IDS": "shard_ids",
    "KARAK_INSTANCE": "instance",
    "KARAK_METRICS_PORT": "metrics_port",
    "KARAK_METRICS_HOST": "metrics_host",
    "KARAK_DISCORD_STOP_WAIT": "discord_stop_wait",
    "KARAK_DISCORD_RATE_LIMIT": "discord_rate_limit",
    "KARAK_MATCH_LIMIT": "match_limit",
}
_FIELD_ENV = {v: k for k, v in ENV.items()}
#: The other names beginning with ``KARAK_`` that an admin may set (docs/settings.md): the
#: playground's, Docker Compose's, and those of the tests and developer tools.
OTHER_NAMES = ("KARAK_PLAYGROUND_DB", "KARAK_PLAYGROUND_PORT", "KARAK_PLAYGROUND_HOST",
               "KARAK_PLAYGROUND_LOCALE", "KARAK_PG_PASSWORD", "KARAK_DISCORD_OPENAPI",
               "KARAK_SKIP_DOCKER_INSTALL")


def read_env_file(path: Path) -> dict[str, str]:
    """The ``KEY=value`` lines of a ``.env`` file (comments, blanks and ``export`` allowed),
    each value as the bot's own reading of the file takes it (python-dotenv, through
    pydantic-settings: quotes and a comment after them, a comment after a tab, ``${NAME}``),
    so the admin commands and the playground act on the settings the bot runs with."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigProblem(translate(msg("bot.config.env_unreadable", path=str(path),
                                          error=exc.strerror or str(exc)))) from None
    except UnicodeDecodeError:  # saved in another encoding: the line is not echoed (a secret)
        raise ConfigProblem(translate(msg("bot.config.env_not_utf8", path=str(path)))) from None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("export "):
            line = line[7:].lstrip()
        name, sep, _ = line.partition("=")
        if not sep or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name.strip()):
            raise ConfigProblem(translate(msg("bot.config.env_syntax", path=str(path),
                                              line=number)))
    values = dotenv_values(stream=io.StringIO(text), interpolate=True)
    return {name: value or "" for name, value in values.items()}


def setting(name: str, env_file: Path | None, environ: Mapping[str, str] | None = None) -> str:
    """The value the bot takes for the setting ``name``: from the environment (``environ``,
    when given, instead of it), else from ``env_file``; empty (values stripped) when unset in
    both, an empty value counting as unset, as the bot's own reading does."""
    value = (os.environ if environ is None else environ).get(name, "").strip()
    if not value and env_file is not None:
        value = read_env_file(env_file).get(name, "").strip()
    return value


def env_file_named(path: Path | None) -> Path:
    """The ``.env`` file to read: ``path`` as ``--env-file`` named it, which must be there
    (:class:`ConfigProblem` otherwise: a typo would read as an empty file), else ``.env`` in
    the current folder, which may be missing (the settings all in the environment)."""
    if path is None:
        return Path(".env")
    if not path.exists():
        raise ConfigProblem(translate(msg("bot.config.env_missing", path=str(path))))
    return path


def unknown_settings(environ: Mapping[str, str] | None = None,
                     env_file: Path | None = Path(".env")) -> list[str]:
    """One line for each name in ``env_file`` or the environment (``environ``, when given,
    instead of it) that begins with ``KARAK_`` but is no known setting, naming the closest one;
    the bot would ignore it. Values are never read into the lines."""
    names = set(read_env_file(env_file)) if env_file is not None else set()
    names |= set(os.environ if environ is None else environ)
    known = (*ENV, *OTHER_NAMES)
    lines = []
    for name in sorted(n for n in names if n.upper().startswith("KARAK_") and n not in known):
        closest = difflib.get_close_matches(name.upper(), known, n=1, cutoff=0.6)
        lines.append(translate(msg("bot.config.unknown", name=name, known=closest[0])
                               if closest else msg("bot.config.unknown_far", name=name)))
    return lines


def check_db_path(path: Path) -> None:
    """Raise :class:`ConfigProblem` unless the database file can be created or written, in a
    folder that can be written too: SQLite writes its ``-wal`` and ``-shm`` files beside the
    database (an existing file in a read-only folder would fail once opened)."""
    folder = path.parent if str(path.parent) else Path(".")
    if path.exists() and (path.is_dir() or not os.access(path, os.R_OK | os.W_OK)):
        raise ConfigProblem(translate(msg("bot.config.db_unwritable", path=str(path))))
    if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
        raise ConfigProblem(translate(msg("bot.config.db_unwritable", path=str(path))))


class _Given(Settings):
    """Settings from a given mapping only (tests, the playground): no other source is read."""

    @classmethod
    def settings_customise_sources(
            cls, settings_cls: type[BaseSettings], init_settings: PydanticBaseSettingsSource,
            env_settings: PydanticBaseSettingsSource,
            dotenv_settings: PydanticBaseSettingsSource,
            file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Only the values passed in."""
        return (init_settings,)


def load_settings(environ: Mapping[str, str] | None = None,
                  env_file: Path | None = Path(".env")) -> Settings:
    """Read, validate and return the settings; raise :class:`ConfigProblem` with one line.

    Values in the real environment (or ``environ``, when given, instead of it) win over the
    ``.env`` file; empty values count as unset.
    """
    file_values = read_env_file(env_file) if env_file is not None else {}  # syntax checked
    given = os.environ if environ is None else environ
    present = {k: v for k, v in {**file_values, **given}.items() if k in ENV and v.strip()}
    if not present.get("DISCORD_TOKEN", "").strip():
        raise NoToken(translate(msg("bot.config.no_token")))
    try:
        if environ is None:
            settings: Settings = Settings(_env_file=env_file)  # type: ignore[call-arg]
        else:
            settings = _Given.model_validate({k: v.strip() for k, v in present.items()})
    except ValidationError as exc:
        err = exc.errors()[0]
        where = str(err["loc"][0]) if err["loc"] else "?"
        field = ENV.get(where, where)
        if field == "token":
            raise ConfigProblem(translate(msg("bot.config.bad_token"))) from None
        name = _FIELD_ENV.get(field, field)
        refusal = err.get("ctx", {}).get("error")
        if isinstance(refusal, Refusal):
            raise ConfigProblem(translate(refusal.explanation)) from None
        # the value itself is never shown: it may be a secret pasted into the wrong setting
        raise ConfigProblem(translate(msg(f"bot.config.bad.{field}", name=name))) from None
    if not is_database_url(settings.db):
        check_some_shards_alone(settings)
        check_db_path(Path(settings.db))
    if settings.heartbeat is not None:
        check_heartbeat_path(settings.heartbeat)
    return settings


def check_heartbeat_path(path: Path) -> None:
    """Raise :class:`ConfigProblem` unless the heartbeat file can be written: not a folder, in
    a folder that exists and can be written (the file is replaced whole, beside itself)."""
    folder = path.parent if str(path.parent) else Path(".")
    if path.is_dir() or not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
        raise ConfigProblem(translate(msg("bot.config.heartbeat_unwritable", path=str(path))))


def check_some_shards_alone(settings: Settings) -> None:
    """Raise :class:`ConfigProblem` when a process on a SQLite file runs only some of the
    bot's shards: the others need processes of their own, and only one process may use the
    file, so their servers would never be answered."""
    ids, count = settings.shard_ids, settings.shard_count
    if ids is not None and count is not None and ids != tuple(range(count)):
        raise ConfigProblem(translate(msg("bot.config.shards.sqlite_some", count=count)))
