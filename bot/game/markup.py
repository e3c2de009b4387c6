"""Text people chose (a display name, a server nickname) shown as they typed it in a message's
markdown: the bot's texts are Discord markdown, and a name such as ``**Kat**``, ``||x||``,
``# Big``, ``[free nitro](https://…)`` or ``<@123>`` would otherwise be bold, hidden, a heading,
a masked link or a mention of someone else. Pictures, thread names, button labels and menu
options show text as it is, and take the name untouched."""

from __future__ import annotations

import re
from functools import lru_cache

from i18n import Msg, Param

#: What Discord's markdown reads anywhere in a line: the backslash itself, emphasis,
#: underline, strike-through, code, spoilers, masked links, and the ``<`` of mentions, channels
#: and timestamps; ``@`` of ``@everyone`` and ``@here``.
_INLINE = re.compile(r"([\\*_~`|\[\]<@])")
#: What it reads at a line's start (a name begins many lines): quotes, headings, subtext,
#: lists (the dot of a numbered one).
_START = re.compile(r"^(\s*)([>#+-])")
_NUMBERED = re.compile(r"^(\s*\d+)\.")


#: Control characters (C0 and DEL): none shows, and PostgreSQL refuses NUL in text; the ones
#: that space text out become a space, the others are left out.
_CONTROLS = {code: (" " if chr(code) in "\t\n\v\f\r" else None)
             for code in (*range(0x20), 0x7F)}


def typed(text: str) -> str:
    """Text people gave (a name, a slash command's free text) as the bot keeps it: without
    control characters, so it is the same on either database (SQLite would keep a NUL that
    PostgreSQL refuses)."""
    return text.translate(_CONTROLS)


@lru_cache(maxsize=4096)  # the same few names, over and over
def plain(text: str) -> str:
    """``text`` escaped so Discord shows it as typed (a backslash before each character its
    markdown would read; Discord shows the character and not the backslash)."""
    return _NUMBERED.sub(r"\1\\.", _START.sub(r"\1\\\2", _INLINE.sub(r"\\\1", text)))


def plain_param(value: Param) -> Param:
    """A message parameter with the text in it shown as typed (a message's own parameters
    too: see :func:`plain_names`)."""
    if isinstance(value, str):
        return plain(value)
    if isinstance(value, Msg):
        return plain_names(value)
    return value


def plain_names(message: Msg) -> Msg:
    """``message`` with every text among its parameters, at any depth, shown as typed: for the
    game's own messages (its events, whose turn it is), whose only texts are the names of the
    people seated (a message whose parameters hold markup the bot wrote, such as a mention,
    must escape its names itself)."""
    if not message.params:
        return message
    return Msg(message.key, tuple((k, plain_param(v)) for k, v in message.params))


__all__ = ["plain", "plain_names", "plain_param", "typed"]
