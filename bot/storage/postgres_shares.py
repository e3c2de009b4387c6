"""A match's animation posted in a channel, in PostgreSQL (as SQLite's,
:mod:`bot.storage.sqlite_shares`). Of two processes claiming one post at once, the row's lock
lets one in first and the other finds the post taken: exactly one is granted.
:class:`~bot.storage.postgres.Store` takes them in as a base class."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager

from bot.storage.postgres_rows import Db
from bot.storage.shares import ShareClaim, ShareRefused, read_post
from bot.storage.sqlite_rows import as_float
from bot.storage.sqlite_shares import POST_COLUMNS

#: As SQLite's :data:`~bot.storage.sqlite_shares.CLAIM_POST`; the row comes back when taken.
CLAIM_POST = ("INSERT INTO shares (table_id, channel_id, user_id, posted_at, message_id) "
              "VALUES ($1, $2, $3, $4, NULL) ON CONFLICT (table_id, channel_id) DO UPDATE SET "
              "user_id = excluded.user_id, posted_at = excluded.posted_at, message_id = NULL "
              "WHERE shares.posted_at <= $5 OR (shares.message_id IS NULL "
              "AND shares.posted_at <= $6) RETURNING table_id")
#: As SQLite's :data:`~bot.storage.sqlite_shares.CLAIM_TURN`; the row comes back when taken.
CLAIM_TURN = ("INSERT INTO sharers (channel_id, user_id, shared_at) VALUES ($1, $2, $3) "
              "ON CONFLICT (channel_id, user_id) DO UPDATE SET shared_at = excluded.shared_at "
              "WHERE sharers.shared_at <= $4 RETURNING channel_id")


class ShareRows:
    """The animations' posts, on the store's write transactions (``_tx``) and its ``clock``."""

    clock: Callable[[], float]

    def _tx(self) -> AbstractAsyncContextManager[Db]:
        raise NotImplementedError  # the store's own

    async def claim_share(self, table_id: int, channel_id: int, user_id: int, *,
                          window: float, slowmode: float, posting: float) -> ShareClaim:
        """Claim the post of table ``table_id``'s animation in ``channel_id`` for ``user_id``
        now (see :meth:`~bot.storage.interface.ShareStorage.claim_share`)."""
        now = self.clock()
        try:
            async with self._tx() as db:
                if await db.fetchval(CLAIM_POST, table_id, channel_id, user_id, now,
                                     now - window, now - posting) is None:
                    row = await db.fetchrow(f"SELECT {POST_COLUMNS} FROM shares "
                                            "WHERE table_id = $1 AND channel_id = $2",
                                            table_id, channel_id)
                    assert row is not None  # the conflict's row, committed before
                    raise ShareRefused(ShareClaim(now, earlier=read_post(tuple(row))))
                if await db.fetchval(CLAIM_TURN, channel_id, user_id, now,
                                     now - slowmode) is None:
                    last = await db.fetchval("SELECT shared_at FROM sharers "
                                             "WHERE channel_id = $1 AND user_id = $2",
                                             channel_id, user_id)
                    raise ShareRefused(ShareClaim(
                        now, wait_until=as_float(last, "shared_at") + slowmode))
        except ShareRefused as refused:
            return refused.claim
        return ShareClaim(now)

    async def share_posted(self, table_id: int, channel_id: int, at: float,
                           message_id: int) -> None:
        """The animation claimed at ``at`` is posted as message ``message_id``."""
        async with self._tx() as db:
            await db.execute("UPDATE shares SET message_id = $1 WHERE table_id = $2 "
                             "AND channel_id = $3 AND posted_at = $4",
                             message_id, table_id, channel_id, at)

    async def drop_share(self, table_id: int, channel_id: int, user_id: int,
                         at: float) -> None:
        """Give up the claim made at ``at`` (its post failed): the match may be posted there
        again, and the person's share does not count against the slowmode."""
        async with self._tx() as db:
            await db.execute("DELETE FROM shares WHERE table_id = $1 AND channel_id = $2 "
                             "AND posted_at = $3 AND message_id IS NULL",
                             table_id, channel_id, at)
            await db.execute("DELETE FROM sharers WHERE channel_id = $1 AND user_id = $2 "
                             "AND shared_at = $3", channel_id, user_id, at)


__all__ = ["ShareRows"]
