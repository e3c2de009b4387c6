"""A match in a thread of its own: the thread's name, the one line its lobby message becomes in
the channel (who plays, then how it ended, with the thread's link), whether the bot may create
threads where a table is opened, and taking an archived thread out of the archive.

A table opened with threads on (:attr:`~bot.storage.records.TableRecord.threaded`) keeps its
lobby message in the channel; at Start the match moves to a public thread created from that
message (:attr:`~bot.storage.records.TableRecord.thread_id`), where every later message of the
match goes, and the lobby message becomes the channel's line for the match.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import discord

from bot.discord_side.context import THREAD_TYPES
from bot.discord_side.ui.parts import GREY, cut, layout, text_block
from bot.storage.records import TableRecord
from i18n import Msg, msg, translate

if TYPE_CHECKING:
    pass

#: What the bot needs in a channel to move a match to a thread there.
THREAD_NEEDS = ("create_public_threads", "send_messages_in_threads")
#: Discord's JSON error code for an act refused in an archived thread (an edit, a deletion).
ARCHIVED = 50083
#: The longest thread name Discord takes.
NAME_LIMIT = 100


def listed(parts: Sequence[Msg | str]) -> Msg | str:
    """``parts`` in one phrase: "Ann, Bob and 2 AI"."""
    if not parts:
        return msg("list.0")
    out = parts[0]
    for i, part in enumerate(parts[1:], start=1):
        out = msg("list.last" if i == len(parts) - 1 else "list.more", head=out, tail=part)
    return out


def players(record: TableRecord, but: int | None = None) -> Msg | str:
    """The people at the table by name, then how many AI seats ("Ann, Bob and 2 AI"), leaving
    out seat ``but``."""
    seats = [s for i, s in enumerate(record.seats) if i != but]
    names: list[Msg | str] = [s.name or "?" for s in seats if s.user is not None]
    ai = sum(s.user is None for s in seats)
    return listed([*names, *([msg("bot.thread.ai", count=ai)] if ai else [])])


def thread_name(record: TableRecord, tournament: tuple[str, int] | None = None) -> str:
    """The thread's name: the game (or the tournament's name and round, for a tournament's
    match: ``tournament``) and who plays, in the table's language, at most 100 characters (a
    longer one cut after a whole name, an ellipsis marking the cut)."""
    name = msg("bot.thread.name", players=players(record)) if tournament is None else msg(
        "bot.thread.tournament.name", name=tournament[0], round=tournament[1],
        players=players(record))
    return cut(translate(name, record.locale), NAME_LIMIT)


def thread_link(record: TableRecord, thread_id: int) -> str:
    """The link that opens the thread."""
    return f"https://discord.com/channels/{record.guild_id or '@me'}/{thread_id}"


def line(record: TableRecord, thread_id: int, ending: str | None = None) -> Msg:
    """The channel's line for a match in thread ``thread_id``: who plays (``ending`` None), who
    won ("won", for a finished game), that it was abandoned ("abandoned") or that its thread
    was deleted ("deleted")."""
    link = thread_link(record, thread_id)
    if ending == "won" and record.state is not None and record.state.winner is not None:
        seat = record.state.winner
        winner = record.seats[seat]
        who: Msg | str = winner.name if winner.user is not None and winner.name else msg(
            f"hero.{record.state.seats[seat].hero}.name")
        return msg("bot.thread.won", winner=who, others=players(record, but=seat),
                   players=players(record), link=link)
    if ending in ("abandoned", "deleted"):
        return msg(f"bot.thread.{ending}", players=players(record), link=link)
    return msg("bot.thread.playing", players=players(record), link=link)


def line_view(text: str) -> discord.ui.LayoutView:
    """The channel's line for a match in a thread: one line of text, no button, no picture."""
    return layout(discord.ui.Container[discord.ui.LayoutView](text_block(text),
                                                               accent_colour=GREY))


def in_thread(interaction: discord.Interaction[Any]) -> bool:
    """Whether the interaction comes from a thread (a match opened there stays there)."""
    return getattr(interaction.channel, "type", None) in THREAD_TYPES


def thread_missing(interaction: discord.Interaction[Any]) -> list[str]:
    """The permissions the bot lacks in the interaction's channel to move a match to a thread
    there (empty: it may)."""
    have = interaction.app_permissions
    return [p for p in THREAD_NEEDS if not getattr(have, p)]


async def unarchive(client: discord.Client, thread_id: int) -> None:
    """Take thread ``thread_id`` out of the archive (Discord refuses edits and deletions in an
    archived thread; a post would unarchive it by itself)."""
    thread = client.get_channel(thread_id)
    if not isinstance(thread, discord.Thread):
        fetched = await client.fetch_channel(thread_id)
        if not isinstance(fetched, discord.Thread):
            return
        thread = fetched
    await thread.edit(archived=False)


__all__ = ["ARCHIVED", "THREAD_NEEDS", "in_thread", "line", "line_view", "players",
           "thread_link", "thread_missing", "thread_name", "unarchive"]
