"""A match's animation posted in a channel: one ``shares`` row per match and channel (who posted
it, when, its message) and one ``sharers`` row per channel and person (when they last shared
there). A claim checks and takes both in one write transaction: of two claims at once (in one
process or two), the row's lock lets one in first and the other finds the post taken, so
exactly one is granted."""

from __future__ import annotations

from bot.storage.core.base import Base
from bot.storage.core.db import Row, lock_person
from bot.storage.core.rows import as_float, as_int, opt_int
from bot.storage.shares import ShareClaim, SharedPost, ShareRefused

#: The match's post in the channel is taken when there is none, when it is older than the
#: window, or when it never got its message (its poster stopped) and is older than the posting
#: limit; the row comes back when taken. Arguments: table, channel, person, now,
#: now - window, now - posting limit.
CLAIM_POST = ("INSERT INTO shares (table_id, channel_id, user_id, posted_at, message_id) "
              "VALUES (?, ?, ?, ?, NULL) ON CONFLICT (table_id, channel_id) DO UPDATE SET "
              "user_id = excluded.user_id, posted_at = excluded.posted_at, message_id = NULL "
              "WHERE shares.posted_at <= ? OR (shares.message_id IS NULL "
              "AND shares.posted_at <= ?) RETURNING table_id")
#: The person's turn to share in the channel is taken when they never shared there, or last
#: did before the slowmode; the row comes back when taken. Arguments: channel, person, now,
#: now - slowmode.
CLAIM_TURN = ("INSERT INTO sharers (channel_id, user_id, shared_at) VALUES (?, ?, ?) "
              "ON CONFLICT (channel_id, user_id) DO UPDATE SET shared_at = excluded.shared_at "
              "WHERE sharers.shared_at <= ? RETURNING channel_id")
POST_COLUMNS = "table_id, channel_id, user_id, posted_at, message_id"
#: A row when the match was played in direct messages that are not the claimer's. Arguments:
#: table, the claimer's place (``dm:<id>``).
OTHERS_DMS = ("SELECT 1 FROM tables WHERE id = ? AND place_key LIKE 'dm:%' "
              "AND place_key <> ?")


def read_post(row: Row) -> SharedPost:
    """A ``shares`` row (table_id, channel_id, user_id, posted_at, message_id) read."""
    table_id, channel_id, user_id, posted_at, message_id = row
    return SharedPost(as_int(table_id, "table_id"), as_int(channel_id, "channel_id"),
                      as_int(user_id, "user_id"), as_float(posted_at, "posted_at"),
                      opt_int(message_id, "message_id"))


class ShareRows(Base):
    """The animations' posts."""

    async def claim_share(self, table_id: int, channel_id: int, user_id: int, *,
                          window: float, slowmode: float, posting: float) -> ShareClaim:
        """Claim the post of table ``table_id``'s animation in ``channel_id`` for ``user_id``
        now (see :meth:`~bot.storage.interface.ShareStorage.claim_share`). A post or a last
        share whose time is kept damaged is taken as one long past (the claim mends it),
        named once in a warning. The claimer's lock is taken first: a claim made while they
        are being forgotten waits, then finds a match of their direct messages their
        pseudonym's, and is refused with nothing written under their id."""
        now = self.clock()
        try:
            async with self._tx() as db:
                await lock_person(db, self.dialect, user_id)
                if await db.fetchrow(OTHERS_DMS, table_id, f"dm:{user_id}") is not None:
                    raise ShareRefused(ShareClaim(now, not_theirs=True))
                if await db.fetchrow(CLAIM_POST, table_id, channel_id, user_id, now,
                                     now - window, now - posting) is None:
                    row = await db.fetchrow(f"SELECT {POST_COLUMNS} FROM shares "
                                            "WHERE table_id = ? AND channel_id = ?",
                                            table_id, channel_id)
                    assert row is not None  # the conflict's row
                    try:
                        earlier = read_post(row)
                    except ValueError as exc:  # damaged: taken, as a post whose window is over
                        self._damaged(f"the shares row of table {table_id} in channel "
                                      f"{channel_id}", exc)
                        await db.execute("UPDATE shares SET user_id = ?, posted_at = ?, "
                                         "message_id = NULL WHERE table_id = ? "
                                         "AND channel_id = ?",
                                         user_id, now, table_id, channel_id)
                    else:
                        raise ShareRefused(ShareClaim(now, earlier=earlier))
                if await db.fetchrow(CLAIM_TURN, channel_id, user_id, now,
                                     now - slowmode) is None:
                    row = await db.fetchrow("SELECT shared_at FROM sharers "
                                            "WHERE channel_id = ? AND user_id = ?",
                                            channel_id, user_id)
                    assert row is not None
                    try:
                        last = as_float(row[0], "shared_at")
                    except ValueError as exc:  # damaged: taken, as a share long ago
                        self._damaged(f"the sharers row of person {user_id} in channel "
                                      f"{channel_id}", exc)
                        await db.execute("UPDATE sharers SET shared_at = ? "
                                         "WHERE channel_id = ? AND user_id = ?",
                                         now, channel_id, user_id)
                    else:
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
                             message_id, table_id, channel_id, at)

    async def share_gone(self, table_id: int, channel_id: int, message_id: int) -> None:
        """The post of table ``table_id``'s animation in ``channel_id`` as message
        ``message_id`` is gone (deleted): the match may be posted there again. The sharer's
        turn stays taken, as Discord's slowmode counts a message deleted since."""
        async with self._tx() as db:
            await db.execute("DELETE FROM shares WHERE table_id = ? AND channel_id = ? "
                             "AND message_id = ?", table_id, channel_id, message_id)

    async def drop_share(self, table_id: int, channel_id: int, user_id: int,
                         at: float) -> None:
        """Give up the claim made at ``at`` (its post failed): the match may be posted there
        again, and the person's share does not count against the slowmode."""
        async with self._tx() as db:
            await db.execute("DELETE FROM shares WHERE table_id = ? AND channel_id = ? "
                             "AND posted_at = ? AND message_id IS NULL",
                             table_id, channel_id, at)
            await db.execute("DELETE FROM sharers WHERE channel_id = ? AND user_id = ? "
                             "AND shared_at = ?", channel_id, user_id, at)


__all__ = ["CLAIM_POST", "CLAIM_TURN", "OTHERS_DMS", "POST_COLUMNS", "ShareRows"]
