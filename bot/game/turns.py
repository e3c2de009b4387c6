"""Slow matches seen from one person: ``/goblin turns`` lists every running match they sit in,
across every server and direct-message channel, first those where it is their move, then those
where others are to move, each with a link to its table message, the time left and who plays
in it, and last those the AI plays their seat at while they still host them (they left it,
or their turn timer ran out for good): these count among their matches for the bot's limit
(:func:`~bot.game.limits.counted`), which points to this list, so the list says how to end
one; and ``/goblin notify`` keeps whether they want a direct message when their turn waits.

No Discord here: the list is plain rows and its pages plain text (:func:`page_text`). A match is
shown by its link alone (a channel's name from another server is never shown); Discord lets the
person follow it where they may see it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from bot.game.facts import joined
from bot.game.limits import counted
from bot.game.seats import seat_label, turn_end
from bot.game.spans import time_left
from bot.storage.interface import Storage
from bot.storage.records import TableRecord
from engine import Phase
from i18n import Msg, msg, translate

#: The matches one page of the list shows.
PER_PAGE = 12


@dataclass(frozen=True, slots=True)
class TurnRow:
    """One running match the person sits in: where it is, whether it is their move, the seconds
    left before the turn's deadline (None: no timer running), who else plays and who is to
    move; ``hosted``: the AI plays their seat there, and they still host it."""

    table: int
    link: str
    mine: bool
    left: float | None
    opponents: tuple[Msg | str, ...]
    current: Msg | str
    hosted: bool = False

    def order(self) -> tuple[float, int]:
        """Least time left first, matches without a timer last, then by table."""
        return (math.inf if self.left is None else self.left, self.table)


@dataclass(frozen=True, slots=True)
class TurnList:
    """A person's running matches: their move (``yours``), then others' (``waiting``), then
    those the AI plays their seat at while they host them (``hosted``)."""

    yours: tuple[TurnRow, ...]
    waiting: tuple[TurnRow, ...]
    hosted: tuple[TurnRow, ...] = ()

    @property
    def rows(self) -> tuple[TurnRow, ...]:
        """Every match, in the order the list shows them."""
        return self.yours + self.waiting + self.hosted

    @property
    def pages(self) -> int:
        """How many pages the list has (at least one)."""
        return max(1, math.ceil(len(self.rows) / PER_PAGE))


def jump_link(record: TableRecord) -> str:
    """The link to the table's message (to its channel, or its thread, before the message is
    posted); a match in direct messages is under ``@me``."""
    place = "@me" if record.guild_id is None else str(record.guild_id)
    link = f"https://discord.com/channels/{place}/{record.where}"
    return link if record.message_id is None else f"{link}/{record.message_id}"


def row_of(record: TableRecord, user_id: int, now: float,
           ends: float | None = None) -> TurnRow | None:
    """What the list shows of ``record`` for ``user_id`` (``ends``: when the tournament's round
    that opened it ends, deciding it as it stands: the turn's time ends then at the latest);
    None when the person no longer plays there (their seat went to the AI) and it does not
    count among their matches (:func:`~bot.game.limits.counted`: they no longer host it, or
    it is slow), or the game is over."""
    seat = record.seat_of(user_id)
    if seat is None or record.status != "running":
        return None
    hosted = record.seats[seat].ai
    if hosted and not counted(record, user_id):
        return None
    state = record.game
    if state.phase is Phase.OVER:
        return None
    current = state.current
    mine = current == seat and not hosted
    left = None if record.deadline is None else turn_end(record.deadline, ends) - now
    opponents = tuple(_who(record, i) for i in range(len(record.seats)) if i != seat)
    return TurnRow(record.id, jump_link(record), mine, left, opponents, _who(record, current),
                   hosted)


def _who(record: TableRecord, seat: int) -> Msg | str:
    """A seat's name, marked when the AI plays it."""
    label = seat_label(record, seat)
    return msg("turns.list.ai", who=label) if record.seats[seat].ai else label


def turn_list(records: list[TableRecord], user_id: int, now: float,
              ends: dict[int, float] | None = None) -> TurnList:
    """The list of ``user_id``'s matches among ``records``, each part sorted by time left
    (``ends``: when the tournament's round that opened a match ends, by table)."""
    ends = ends or {}
    rows = [r for r in (row_of(rec, user_id, now, ends.get(rec.id)) for rec in records)
            if r is not None]
    return TurnList(tuple(sorted((r for r in rows if r.mine), key=TurnRow.order)),
                    tuple(sorted((r for r in rows if not r.mine and not r.hosted),
                                 key=TurnRow.order)),
                    tuple(sorted((r for r in rows if r.hosted), key=lambda r: r.table)))


def _left(row: TurnRow) -> Msg:
    return msg("turns.left.no_timer") if row.left is None else time_left(row.left)


def _line(row: TurnRow, locale: str) -> str:
    count, names = len(row.opponents), joined(row.opponents)
    if row.hosted:
        key = "turns.list.hosted_line" if count else "turns.list.hosted_solo_line"
        return translate(msg(key, table=row.table, link=row.link, opponents=names,
                             count=count), locale)
    if not row.mine:
        return translate(msg("turns.list.wait_line", table=row.table, link=row.link,
                             who=row.current, left=_left(row)), locale)
    key = "turns.list.your_line" if count else "turns.list.solo_line"
    return translate(msg(key, table=row.table, link=row.link, opponents=names, count=count,
                         left=_left(row)), locale)


def page_of(turns: TurnList, page: int) -> int:
    """``page`` (from 0) kept within the list's pages: a page button drawn when the list was
    longer shows its last page."""
    return min(max(page, 0), turns.pages - 1)


def page_text(turns: TurnList, page: int, locale: str) -> str:
    """Page ``page`` (from 0, see :func:`page_of`) of the list as markdown: its title, the
    parts it shows with their headings and, when there are several pages, which one it is."""
    lines = [f"### {translate(msg('turns.list.title'), locale)}"]
    if not turns.rows:
        lines.append(translate(msg("turns.list.none"), locale))
        return "\n".join(lines)
    page = page_of(turns, page)
    start = page * PER_PAGE
    shown = turns.rows[start:start + PER_PAGE]
    for index, row in enumerate(shown, start=start):
        if index == 0 and turns.yours:
            lines.append(translate(msg("turns.list.yours", count=len(turns.yours)), locale))
        if index == len(turns.yours) and turns.waiting:
            lines.append(translate(msg("turns.list.waiting", count=len(turns.waiting)), locale))
        if index == len(turns.yours) + len(turns.waiting):
            lines.append(translate(msg("turns.list.hosted", count=len(turns.hosted)), locale))
            lines.append("-# " + translate(msg("turns.list.hosted_note",
                                                count=len(turns.hosted)), locale))
        lines.append(f"- {_line(row, locale)}")
    if turns.pages > 1:
        lines.append("-# " + translate(msg("turns.list.page", page=page + 1,
                                           pages=turns.pages), locale))
    return "\n".join(lines)


class Turns:
    """A person's matches everywhere, and their choice of direct-message reminders."""

    def __init__(self, store: Storage, clock: Callable[[], float]) -> None:
        self.store = store
        self.clock = clock

    async def of(self, user_id: int) -> TurnList:
        """Every running match ``user_id`` plays in, their move first, then those they host
        while the AI plays their seat (one indexed query, and
        one for the ends of the tournaments' rounds that opened some of them)."""
        records = await self.store.running_of(user_id)
        ends = await self.store.round_ends([r.id for r in records]) if records else {}
        return turn_list(records, user_id, self.clock(), ends)

    async def notify(self, user_id: int, on: bool | None, locale: str | None = None) -> Msg:
        """Store ``user_id``'s choice of direct-message reminders (None: keep it), with the
        Discord language of their client (``locale``: the reminders speak it), and say what
        it is now."""
        if on is not None:
            await self.store.set_notify(user_id, on, locale)
            return msg("turns.notify.on" if on else "turns.notify.off")
        return msg("turns.notify.is_on" if await self.store.notify_of(user_id)
                   else "turns.notify.is_off")

    async def wanted(self, user_ids: list[int]) -> set[int]:
        """Those of ``user_ids`` who want direct-message reminders."""
        return await self.store.notify_wanted(user_ids)


__all__ = ["PER_PAGE", "TurnList", "TurnRow", "Turns", "jump_link", "page_of", "page_text",
           "row_of", "turn_list"]
