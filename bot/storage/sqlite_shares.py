"""A match's animation posted in a channel, in SQLite: one ``shares`` row per match and channel
(who posted it, when, its message) and one ``sharers`` row per channel and person (when they
last shared there). A claim checks and takes both in one write transaction, so of two clicks at
once exactly one is granted. The :class:`~bot.storage.sqlite.Store` takes them in as a base
class."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager

import aiosqlite

from bot.storage.shares import ShareClaim, ShareRefused, read_post
from bot.storage.sqlite_rows import as_float

#: The match's post in the channel is taken when there is none, when it is older than the
#: window, or when it never got its message (its poster stopped) and is older than the posting
#: limit. Parameters: table, channel, person, now, now - window, now - posting limit.
CLAIM_POST = ("INSERT INTO shares (table_id, channel_id, user_id, posted_at, message_id) "
              "VALUES (?, ?, ?, ?, NULL) ON CONFLICT (table_id, channel_id) DO UPDATE SET "
              "user_id = excluded.user_id, posted_at = excluded.posted_at, message_id = NULL "
              "WHERE shares.posted_at <= ? OR (shares.message_id IS NULL "
              "AND shares.posted_at <= ?)")
#: The person's turn to share in the channel is taken when they never shared there, or last
#: did before the slowmode. Parameters: channel, person, now, now - slowmode.
CLAIM_TURN = ("INSERT INTO sharers (channel_id, user_id, shared_at) VALUES (?, ?, ?) "
              "ON CONFLICT (channel_id, user_id) DO UPDATE SET shared_at = excluded.shared_at "
              "WHERE sharers.shared_at <= ?")
POST_COLUMNS = "table_id, channel_id, user_id, posted_at, message_id"


class ShareRows:
    """The animations' posts, on the store's write transactions (``_tx``) and its ``clock``."""

    clock: Callable[[], float]

    def _tx(self) -> AbstractAsyncContextManager[aiosqlite.Connection]:
        raise NotImplementedError  # the store's own

    async def claim_share(self, table_id: int, channel_id: int, user_id: int, *,
                          window: float, slowmode: float, posting: float) -> ShareClaim:
        """Claim the post of table ``table_id``'s animation in ``channel_id`` for ``user_id``
        now (see :meth:`~bot.storage.interface.ShareStorage.claim_share`)."""
        now = self.clock()
        try:
            async with self._tx() as db:
                cur = await db.execute(CLAIM_POST, (table_id, channel_id, user_id, now,
                                                    now - window, now - posting))
                if cur.rowcount != 1:
                    async with db.execute(
                            f"SELECT {POST_COLUMNS} FROM shares "
                            "WHERE table_id = ? AND channel_id = ?",
                            (table_id, channel_id)) as found:
                        row = await found.fetchone()
                    assert row is not None  # the conflict's row, in this very transaction
                    raise ShareRefused(ShareClaim(now, earlier=read_post(tuple(row))))
                cur = await db.execute(CLAIM_TURN, (channel_id, user_id, now, now - slowmode))
                if cur.rowcount != 1:
                    async with db.execute(
                            "SELECT shared_at FROM sharers WHERE channel_id = ? AND user_id = ?",
                            (channel_id, user_id)) as found:
                        row = await found.fetchone()
                    assert row is not None
                    last = as_float(row[0], "shared_at")
                    raise ShareRefused(ShareClaim(now, wait_until=last + slowmode))
        except ShareRefused as refused:
            return refused.claim
        return ShareClaim(now)

    async def share_posted(self, table_id: int, channel_id: int, at: float,
                           message_id: int) -> None:
        """The animation claimed at ``at`` is posted as message ``message_id``."""
        async with self._tx() as db:
            await db.execute("UPDATE shares SET message_id = ? WHERE table_id = ? "
                             "AND channel_id = ? AND posted_at = ?",
                             (message_id, table_id, channel_id, at))

    async def drop_share(self, table_id: int, channel_id: int, user_id: int,
                         at: float) -> None:
        """Give up the claim made at ``at`` (its post failed): the match may be posted there
        again, and the person's share does not count against the slowmode."""
        async with self._tx() as db:
            await db.execute("DELETE FROM shares WHERE table_id = ? AND channel_id = ? "
                             "AND posted_at = ? AND message_id IS NULL",
                             (table_id, channel_id, at))
            await db.execute("DELETE FROM sharers WHERE channel_id = ? AND user_id = ? "
                             "AND shared_at = ?", (channel_id, user_id, at))


__all__ = ["CLAIM_POST", "CLAIM_TURN", "POST_COLUMNS", "ShareRows"]
