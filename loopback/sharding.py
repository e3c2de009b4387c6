"""Discord's sharding, as the stand-in's gateway applies it: a bot's connection (a session)
runs shard ``i`` of ``n`` (IDENTIFY's ``shard: [i, n]``, ``[0, 1]`` when absent) and hears the
events of the guilds with ``(guild_id >> 22) % n == i``; direct messages go to shard 0.

:func:`snowflake_on` makes ids of guilds that land on a chosen shard.
"""

from __future__ import annotations

from typing import Any

from loopback.model import snowflake

#: The gateway's close codes: an invalid ``shard`` in IDENTIFY; a bot that must use more shards.
INVALID_SHARD, SHARDING_REQUIRED = 4010, 4011
#: Events whose own ``id`` is their guild's (the others name it in ``guild_id``).
GUILD_EVENTS = ("GUILD_CREATE", "GUILD_UPDATE", "GUILD_DELETE")


def shard_of(guild_id: int | None, shard_count: int) -> int:
    """The shard hearing guild ``guild_id`` (None: a direct message, shard 0)."""
    return 0 if guild_id is None else (guild_id >> 22) % shard_count


def snowflake_on(shard: int, shard_count: int) -> int:
    """A new unique snowflake that lands on ``shard`` of ``shard_count`` (its timestamp moved
    back by less than ``shard_count`` milliseconds)."""
    if not 0 <= shard < shard_count:
        raise ValueError(f"shard {shard} is not one of 0..{shard_count - 1}")
    fresh = snowflake()
    ms = fresh >> 22
    ms -= (ms - shard) % shard_count
    return (ms << 22) | (fresh & 0x3FFFFF)


def identified_shard(value: Any) -> tuple[int, int] | None:
    """IDENTIFY's ``shard`` as ``(shard id, shard count)`` (absent: ``(0, 1)``); None when it is
    invalid (Discord closes with :data:`INVALID_SHARD`)."""
    if value is None:
        return 0, 1
    if not isinstance(value, list) or len(value) != 2 or not all(
            type(v) is int for v in value):
        return None
    shard, count = value
    return (shard, count) if 0 <= shard < count else None


def guild_of(event: str, data: Any) -> int | None:
    """The guild a dispatched event belongs to, None for a direct message's (or one naming no
    readable guild: a damaged event goes where direct messages go)."""
    if not isinstance(data, dict):
        return None
    found = data.get("id") if event in GUILD_EVENTS else data.get("guild_id")
    text = str(found) if isinstance(found, int | str) else ""
    return int(text) if text.isdigit() else None


__all__ = ["GUILD_EVENTS", "INVALID_SHARD", "SHARDING_REQUIRED", "guild_of", "identified_shard",
           "shard_of", "snowflake_on"]
