"""Which picture each message carries, by key: a picture is drawn and uploaded again only when
what it shows changed.

``render.table_key`` (``battle_key``, ``hand_key``) is computed from exactly what its picture
reads of an observation. For each table message (per table and language) and each hand message
(per table, seat and language) :class:`Shown` keeps the message last edited or posted, and for
each of its pictures the key it was drawn at and the attachment Discord made of it. An edit of
that same message whose picture has the same key sends the existing attachment back instead of a
new drawing; any other message (a new one, an older hand message) gets drawn pictures.

A table message also remembers the table version it showed: when the bot runs as several
processes, another one may have edited the message since (with other attachments), so its
pictures are kept only while every move since that version was written by this process (see
:meth:`bot.game.play.Play.wrote_all`), and they are forgotten when another process writes the
table without a move (a change of the server's language redraws it there).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

import discord

from bot.discord_side.uploads import KeptPicture

#: (table, seat or None for the table message, language)
Slot = tuple[int, int | None, str]
#: Messages remembered at most (the oldest forgotten first; forgetting costs one drawing).
SHOWN_MESSAGES = 4096


@dataclass
class _Message:
    """One message and its pictures: file name -> (key, attachment id); the table version
    it showed (None: a hand message, which only its own clicks edit)."""

    id: int
    pictures: dict[str, tuple[str, int]] = field(default_factory=dict)
    version: int | None = None


class Shown:
    """The pictures of the last message of each slot (table message or a seat's hand)."""

    def __init__(self, size: int = SHOWN_MESSAGES) -> None:
        self.size = size
        self._slots: OrderedDict[Slot, _Message] = OrderedDict()
        self._owner: dict[int, Slot] = {}  # message id -> the slot whose message it is

    def kept(self, slot: Slot, message: int | None, name: str,
             key: str) -> KeptPicture | None:
        """The attachment ``name`` of ``message`` when it shows the picture of ``key`` already
        (send it back instead of drawing), else None."""
        known = self._slots.get(slot)
        if message is None or known is None or known.id != message:
            return None
        found = known.pictures.get(name)
        return KeptPicture(found[1], name) if found is not None and found[0] == key else None

    def version(self, slot: Slot) -> int | None:
        """The table version the slot's message was last posted or edited at (None: not
        known)."""
        known = self._slots.get(slot)
        return None if known is None else known.version

    def remember(self, slot: Slot, message: discord.Message, keys: dict[str, str],
                 version: int | None = None) -> None:
        """``message`` was just posted or edited with the pictures of ``keys`` (file name ->
        key), showing the table at ``version``: it is the slot's message now, and no other
        slot's (an edit in another language replaced the pictures it carried)."""
        by_name = {a.filename: a.id for a in message.attachments}
        other = self._owner.get(message.id)
        if other is not None and other != slot:
            self.drop(other)  # the message shows another language now: that one is gone
        self.drop(slot)
        self._slots[slot] = _Message(message.id, {
            name: (key, by_name[name]) for name, key in keys.items() if name in by_name},
            version)
        self._owner[message.id] = slot
        while len(self._slots) > self.size:
            self.drop(next(iter(self._slots)))

    def drop(self, slot: Slot) -> None:
        """Forget the slot's message (its edit failed: what it shows is not known)."""
        known = self._slots.pop(slot, None)
        if known is not None and self._owner.get(known.id) == slot:
            del self._owner[known.id]

    def unsure(self, table: int) -> None:
        """Forget the table messages of ``table`` (in every language; its hand messages are
        kept, which only their own clicks edit): another process may have edited them."""
        for slot in [s for s in self._slots if s[0] == table and s[1] is None]:
            self.drop(slot)

    def forget(self, table: int) -> None:
        """Forget every message of a table that ended."""
        for slot in [s for s in self._slots if s[0] == table]:
            self.drop(slot)

    def __len__(self) -> int:
        return len(self._slots)


__all__ = ["SHOWN_MESSAGES", "Shown", "Slot"]
