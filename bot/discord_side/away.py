"""The top of a hand message opened after others moved: what happened since the person's last
move (:meth:`bot.game.play.Play.since_last_move`), up to a screen of lines, then how many more the
Log button tells."""

from __future__ import annotations

from collections.abc import Sequence

import discord

from bot.discord_side.ui.parts import MAX_TEXT, cut, text_length
from bot.game.markup import plain_names
from bot.game.service import GameService
from bot.storage.records import TableRecord
from engine import Event
from i18n import msg, translate

#: Lines of narration shown at most ("up to a screen")...
MAX_LINES = 12
#: ... and characters.
MAX_CHARS = 1500


def away_lines(events: Sequence[Event], locale: str) -> list[str]:
    """The block told above the hand: a title, the first events' lines (within
    :data:`MAX_LINES` and :data:`MAX_CHARS`), then "… and N more" when some were left out;
    none for no event."""
    if not events:
        return []
    told = [translate(plain_names(e.text), locale) for e in events]
    shown: list[str] = []
    size = 0
    for line in told[:MAX_LINES]:
        size += len(line) + 3
        if size > MAX_CHARS and shown:
            break
        shown.append(f"> {line}")
    out = [translate(msg("remind.away.title"), locale), *shown]
    if len(shown) < len(told):
        more = translate(msg("remind.away.more", count=len(told) - len(shown)), locale)
        out.append(f"*{more}*")  # not a "-#" line: the hand's first one is its seat line
    return out


def prepend(view: discord.ui.LayoutView, lines: Sequence[str]) -> None:
    """Put ``lines`` under the first line (the title) of the view's first text block, within
    Discord's limit on a message's text."""
    if not lines:
        return
    first = next((i for i in view.walk_children() if isinstance(i, discord.ui.TextDisplay)),
                 None)
    if first is None:
        return
    title, _, rest = first.content.partition("\n")
    room = MAX_TEXT - (text_length(view) - len(first.content))
    first.content = cut("\n".join([title, *lines, rest]), room)


async def add_away(view: discord.ui.LayoutView, service: GameService, record: TableRecord,
                   seat: int, locale: str) -> None:
    """Start the hand message ``view`` of ``seat`` with what happened since its last move."""
    prepend(view, away_lines(await service.play.since_last_move(record, seat), locale))



__all__ = ["MAX_LINES", "add_away", "away_lines", "prepend"]
