"""What a simulated person reads in a message: its move controls and the table and version
they are for, the "My hand" and lobby buttons, its texts, and whether it opens with a refusal."""
from __future__ import annotations

import re

from bot.discord_side.ui.custom_ids import (
    HandButton,
    LobbyButton,
    LobbyOp,
    Move,
    Pick,
    Sure,
    SureButton,
    parse,
)
from loopback import Message
from loopback.components import TEXT_DISPLAY, walk

NOTE = re.compile(r"^\*[^*]")


def moves_of(message: Message) -> dict[str, tuple[str, str | None]]:
    """notation -> (custom_id, option value or None) of every move control in a message (a
    question's Confirm button included)."""
    out: dict[str, tuple[str, str | None]] = {}
    for c in message.items():
        target = parse(str(c.get("custom_id", "")))
        if isinstance(target, Move | Sure):
            out[target.notation] = (c["custom_id"], None)
        elif isinstance(target, Pick):
            for o in c.get("options") or []:
                out[o["value"]] = (c["custom_id"], o["value"])
    return out


def asking(message: Message) -> bool:
    """True for a hand message asking once more before a move easy to regret (its Confirm
    button carries the move)."""
    return any(c.startswith(SureButton.prefix) for c in message.custom_ids())


def table_of(message: Message) -> tuple[int, int] | None:
    """(table, version) of a message's move controls."""
    for cid in message.custom_ids():
        target = parse(cid)
        if isinstance(target, Move | Sure | Pick):
            return target.table, target.version
    return None


def message_texts(message: Message) -> list[str]:
    """The message's text displays (Components V2), then its embeds' descriptions."""
    return ([str(c.get("content") or "") for c in walk(message.components)
             if c.get("type") == TEXT_DISPLAY]
            + [str(e.get("description") or "") for e in message.embeds])


def refused(message: Message) -> bool:
    """True when a hand message opens with a note in italics (a refusal: "already played")."""
    first = message_texts(message)[:1]
    lines = first[0].split("\n") if first else []
    return any(NOTE.match(line) for line in lines[:2])


def lobby_button(message: Message, table: int, op: str) -> str:
    """The custom_id of a lobby button as the message carries it (with the lobby revision it
    was drawn at)."""
    prefix = LobbyButton.id_for(table, op, None)
    return next((c for c in message.custom_ids() if c == prefix or c.startswith(prefix + ":")),
                prefix)


def hand_button(message: Message) -> str | None:
    """The custom_id of a table message's "My hand" button, if it has one."""
    return next((c for c in message.custom_ids() if c.startswith(HandButton.prefix)), None)


def lobby_table(message: Message) -> int:
    """The table of a lobby message (named by its lobby buttons)."""
    targets = [parse(c) for c in message.custom_ids()]
    return next(t.table for t in targets if isinstance(t, LobbyOp))


def full_text(message: Message) -> str:
    """Every text a person can read in a message (see :meth:`Message.text`)."""
    return message.text()
