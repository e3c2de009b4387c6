"""The table message everyone sees: a container in the accent colour of the seat to move, a
short header (round, whose turn and what is happening), the last few narration lines, the table
or battle picture, and the "My hand" button. What the picture shows (HP, keys, equipment, the
rows of monsters) is not repeated in text.

Whose turn it is names the player with a mention while a person must play: posting such a
message pings them; editing it later (as AI seats play) never pings, and the line then names
whoever plays now.
"""

from __future__ import annotations

from collections.abc import Collection

import discord

from bot.discord_side.ui.custom_ids import HandButton, LogButton
from bot.discord_side.ui.parts import GREY, MAX_TEXT, button, layout, picture, row, text_block
from bot.discord_side.ui.past import end_buttons
from bot.game.markup import plain_names, plain_param
from bot.game.seats import turn_end
from bot.game.spans import HOUR
from bot.game.texts import phase_line, winner_named
from bot.storage.records import TableRecord
from engine import Observation
from i18n import msg, translate
from render.style import HERO_COLOUR

#: Narration lines shown under the header.
NARRATION = 4


def deadline_markup(record: TableRecord, ends: float | None = None) -> str:
    """When the running turn ends, as Discord shows it to each reader: the time from now in
    their language ("in 2 days"), and for a timer of an hour or more (a slow match, its
    players perhaps in other time zones) also the date and time in the reader's own zone.
    ``ends``: when the tournament's round that opened the match ends, deciding it as it
    stands: the turn ends then when that comes first."""
    assert record.deadline is not None
    when = int(turn_end(record.deadline, ends))
    return f"<t:{when}:R> (<t:{when}:f>)" if record.timer >= HOUR else f"<t:{when}:R>"


def accent(obs: Observation) -> int:
    """The colour of the seat to move (of the winner once the game is over)."""
    seat = obs.winner if obs.winner is not None else obs.current
    r, g, b = HERO_COLOUR.get(obs.seats[seat].hero, (128, 132, 142))
    return (r << 16) | (g << 8) | b


def to_move(record: TableRecord, obs: Observation) -> int | None:
    """The user who must play now, when a person (not the AI) holds the seat to move."""
    if record.status != "running" or obs.winner is not None:
        return None
    seat = record.seats[obs.current]
    return seat.user if seat.user is not None and not seat.ai else None


def header(record: TableRecord, obs: Observation, locale: str,
           headline: str | None = None, below: str | None = None,
           ends: float | None = None, closed: str | None = None) -> str:
    """Title, whose turn (a mention while a person must play), the turn timer, and small lines
    with the AI seats' levels, the round and the move number (``below``: lines under the
    headline, e.g. what the match did to the players' ratings; ``ends``: when the tournament's
    round that opened the match ends, said in place of the turn's end when it comes first, or
    when the match has no turn timer; ``closed``: how a closed table ended, in place of its
    being abandoned, e.g. by its tournament round's end)."""
    lines = [f"### {translate(msg('bot.table.title', table=record.id), locale)}"]
    if headline:
        lines.append(f"**{headline}**")
    if below:
        lines.append(below)
    if record.status == "abandoned":  # nobody is to play any more: no turn line
        lines.append(f"**{closed or translate(msg('bot.table.abandoned'), locale)}**")
    else:
        lines.append(_turn_line(record, obs, locale))
    for i, seat in enumerate(record.seats):  # the picture shows seats as they were set up
        if seat.ai and not obs.seats[i].ai and record.status == "running":
            lines.append(translate(msg("bot.table.handed",
                                           who=plain_param(obs.seats[i].name)), locale))
    if record.status == "running" and ends is not None and (record.deadline is None
                                                             or ends < record.deadline):
        lines.append(translate(msg("bot.table.round_ends",  # the match ends before the turn
                                   when=f"<t:{int(ends)}:R> (<t:{int(ends)}:f>)"), locale))
    elif record.deadline is not None and record.status == "running":
        lines.append(translate(msg("bot.table.deadline", when=deadline_markup(record, ends)),
                               locale))
    ai_seats = [translate(msg("bot.table.ai_seat", who=plain_param(obs.seats[i].name),
                              level=msg(f"bot.level.{seat.level}")), locale)
                for i, seat in enumerate(record.seats) if seat.ai]
    if ai_seats and record.status == "running":
        lines.append("-# " + translate(msg("bot.table.ai_seats", seats=", ".join(ai_seats)),
                                       locale))
    if record.hints and record.status == "running":
        lines.append("-# " + translate(msg("bot.hint.table_on"), locale))
    lines.append(footer_line(obs.round, obs.step, locale))
    return "\n".join(lines)


def shows_round(lines: Collection[str], round_: int, locale: str) -> bool:
    """True when one of ``lines`` (a table message's) is the footer line of a move of round
    ``round_``, whichever move it is."""
    before, _, after = footer_line(round_, "\0", locale).partition("\0")
    return any(line.startswith(before) and line.endswith(after)
               and line[len(before):len(line) - len(after)].isdigit() for line in lines)


def footer_line(round_: int, step: int | str, locale: str) -> str:
    """The table message's last small line, showing move ``step`` of round ``round_`` (one
    line of its own, which tells which move a table message shows)."""
    return "-# " + translate(msg("bot.table.footer", round=round_, step=step), locale)


def _turn_line(record: TableRecord, obs: Observation, locale: str) -> str:
    """Who must play now (a mention while a person must), or who won."""
    user = to_move(record, obs)
    turn = (msg("bot.table.your_turn", who=f"<@{user}>") if user is not None
            else winner_named(phase_line(obs), record))
    line = translate(turn, locale)
    if record.status == "running" and obs.winner is None and record.seats[obs.current].ai:
        line += " " + translate(msg("bot.table.ai"), locale)
    return line


def narration(record: TableRecord, obs: Observation, locale: str, count: int = NARRATION) -> str:
    """The last ``count`` things that happened at ``record``'s table, as quoted lines."""
    return "\n".join(f"> {translate(plain_names(winner_named(e.text, record)), locale)}"
                     for e in obs.events[-count:])


def table_view(record: TableRecord, obs: Observation, locale: str, filename: str | None,
               headline: str | None = None, summary: str | None = None,
               below: str | None = None, ends: float | None = None,
               closed: str | None = None) -> discord.ui.LayoutView:
    """The table message (``filename``: its uploaded picture, None when drawing failed;
    ``headline``: a line shown above the turn, e.g. the result of the game; ``summary``: the
    uploaded summary chart of a finished match; ``below``: lines under the headline, the
    rating changes of a rated match that ended; ``ends``: when the tournament's round that
    opened the match ends, which ends a turn whose timer reaches past it; ``closed``: how a
    closed table ended, said in place of its being abandoned)."""
    running = record.status == "running"
    box = discord.ui.Container[discord.ui.LayoutView](
        text_block(header(record, obs, locale, headline, below, ends, closed)),
        accent_colour=accent(obs) if record.status != "abandoned" else GREY)
    told = narration(record, obs, locale)
    if told:
        box.add_item(text_block(told))
    if filename is not None:
        kind = "battle" if obs.battle is not None else "table"
        box.add_item(picture(filename, translate(msg(f"bot.table.picture_{kind}"), locale)))
    if summary is not None:
        box.add_item(picture(summary, translate(msg("render.chart.summary_title"), locale)))
    if running:
        box.add_item(row(button(translate(msg("bot.table.my_hand"), locale),
                                HandButton.id_for(record.id), "primary"),
                         button(translate(msg("bot.story.button"), locale),
                                LogButton.id_for(record.id))))
    elif record.status == "finished":
        box.add_item(end_buttons(record.id, locale))
    return layout(box)


def log_view(table: int, lines: list[str], whole: bool, locale: str) -> discord.ui.LayoutView:
    """The private "Log" answer: every line of the last two turns (the oldest dropped when
    they do not all fit in one message)."""
    title = f"### {translate(msg('bot.story.title', table=table), locale)}"
    if not whole:
        title += "\n-# " + translate(msg("bot.story.partial"), locale)
    quoted = [f"> {line}" for line in lines] or [translate(msg("bot.story.nothing"), locale)]
    while len(quoted) > 1 and len(title) + sum(len(q) + 1 for q in quoted) > MAX_TEXT:
        quoted.pop(0)
    return layout(discord.ui.Container[discord.ui.LayoutView](
        text_block("\n".join([title, *quoted]))))


def moved_view(record: TableRecord, url: str, locale: str) -> discord.ui.LayoutView:
    """What an older table message becomes once a newer one carries the table: one line
    pointing to it, no picture, no buttons, no mention."""
    return layout(discord.ui.Container[discord.ui.LayoutView](
        text_block(translate(msg("bot.table.moved", table=record.id, url=url), locale)),
        accent_colour=GREY))


__all__ = ["NARRATION", "accent", "deadline_markup", "footer_line", "header",
           "log_view", "moved_view", "narration", "shows_round", "table_view", "to_move"]
