"""Which shard of the bot hears a server: Discord sends each server's events (its commands and
clicks, its channel changes) on one gateway connection only, the shard ``(server id >> 22) %
shard count``; direct messages come on shard 0."""

from __future__ import annotations


def shard_of(guild_id: int | None, shard_count: int) -> int:
    """The shard that receives the events of server ``guild_id`` (None: a direct message,
    shard 0) when the bot runs ``shard_count`` shards in all."""
    if guild_id is None:
        return 0
    return (guild_id >> 22) % shard_count


__all__ = ["shard_of"]
