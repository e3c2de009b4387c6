"""A finished match's animation shared in a channel: at most one post of a match per channel
within :data:`SHARE_WINDOW` (a later click is pointed at the earlier post), and a person's shares
in a channel no more often than the channel's slowmode lets them post. A post a moderator
deleted no longer holds the match's post in the channel (:meth:`Shares.gone`).

Each claim is checked and taken in one write of the store (:meth:`~bot.storage.interface.
ShareStorage.claim_share`), so of many clicks at once, even through several processes, exactly
one posts; what is stored outlives a restart. A claim whose process stopped before its message
was posted lapses after :data:`POSTING_LIMIT`.
"""

from __future__ import annotations

from bot.storage.interface import Storage
from bot.storage.shares import ShareClaim, SharedPost

#: Seconds during which a match's animation is posted at most once in a channel.
SHARE_WINDOW = 600.0
#: Seconds after which a claim that never got its message (drawing or posting never finished)
#: no longer holds the channel's post.
POSTING_LIMIT = 300.0


class Shares:
    """The claims to post a match's animation in a channel."""

    def __init__(self, store: Storage) -> None:
        self.store = store

    async def claim(self, table: int, channel: int, user: int, slowmode: float) -> ShareClaim:
        """Claim the post of ``table``'s animation in ``channel`` for ``user``, whose shares
        there are spaced by ``slowmode`` seconds (0: no slowmode for them)."""
        return await self.store.claim_share(table, channel, user, window=SHARE_WINDOW,
                                            slowmode=slowmode, posting=POSTING_LIMIT)

    async def posted(self, table: int, channel: int, claim: ShareClaim, message: int) -> None:
        """The granted ``claim``'s animation is posted as message ``message``."""
        await self.store.share_posted(table, channel, claim.at, message)

    async def gone(self, post: SharedPost) -> None:
        """The earlier ``post`` (its message) was deleted: the match may be posted again."""
        if post.message_id is not None:
            await self.store.share_gone(post.table_id, post.channel_id, post.message_id)

    async def failed(self, table: int, channel: int, user: int, claim: ShareClaim) -> None:
        """Nothing was posted for the granted ``claim``: give it up."""
        await self.store.drop_share(table, channel, user, claim.at)


__all__ = ["POSTING_LIMIT", "SHARE_WINDOW", "Shares"]
