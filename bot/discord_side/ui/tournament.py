"""The tournament's messages as Components V2 layouts: the sign-up message (the tournament, its
terms, who entered, and its Join and Leave buttons while sign-up lasts) and a message of a title
above one picture (the standings, the champion)."""

from __future__ import annotations

import discord

from bot.discord_side.ui.custom_ids import TournamentButton
from bot.discord_side.ui.parts import (
    GOLD,
    MAX_TEXT,
    button,
    cut,
    layout,
    picture,
    row,
    text_block,
)
from bot.game.markup import plain
from bot.game.people import forgotten, person, person_text
from bot.game.spans import span
from bot.game.texts import timer_text
from bot.game.tournaments import View
from bot.storage.records import TournamentRecord
from i18n import msg, translate


def terms_lines(record: TournamentRecord) -> list[str]:
    """The terms the sign-up message states up front, one line each: the host, the rounds, the
    tables (AI seats or byes), the turn timer, the heroes' abilities, how long a round lasts
    (and what becomes of a match unfinished then: ranked as it stands, not rated), when
    sign-up closes (while it lasts), the points by place and the tie-breaks."""
    terms = [msg("bot.tournament.signup.terms.host", host=person(record.host_id)),
             msg("bot.tournament.signup.terms.rounds_auto") if record.rounds is None
             else msg("bot.tournament.signup.terms.rounds", count=record.rounds),
             msg("bot.tournament.signup.terms.tables", size=record.table_size)
             if record.ai_level is None
             else msg("bot.tournament.signup.terms.tables_ai", size=record.table_size),
             msg("bot.tournament.signup.terms.timer", timer=timer_text(record.timer)),
             msg("bot.tournament.signup.terms.abilities_on") if record.abilities
             else msg("bot.tournament.signup.terms.abilities_off"),
             msg("bot.tournament.signup.terms.round_span", span=span(record.round_span))
             if record.round_span > 0 else msg("bot.tournament.signup.terms.no_round_span")]
    if record.status == "signup":  # once it is over, the message says so instead
        terms.append(msg("bot.tournament.signup.terms.closes", at=int(record.closes_at))
                     if record.closes_at is not None
                     else msg("bot.tournament.signup.terms.closes_by_host"))
    terms += [msg("bot.tournament.signup.terms.points"), msg("bot.tournament.signup.terms.ties")]
    return [translate(m, record.locale) for m in terms]


def entrants_line(names: list[str], locale: str, room: int) -> str:
    """The sign-up's line of entrants, ``names`` in the order they entered, in at most
    ``room`` characters: as many names as fit, then how many more entered (64 names of
    markdown characters, each shown escaped, would not fit a message)."""
    line = translate(msg("bot.tournament.signup.entrants", count=len(names),
                         names=", ".join(names) or "—"), locale)
    shown = len(names)
    while len(line) > room and shown > 0:
        shown -= 1
        line = translate(msg("bot.tournament.signup.entrants_more", total=len(names),
                             count=len(names) - shown, names=", ".join(names[:shown])),
                         locale)
    return line


def signup_view(view: View) -> discord.ui.LayoutView:
    """The public sign-up message: the tournament, how it is played, who entered, and its Join
    and Leave buttons while sign-up lasts."""
    record = view.record
    locale = record.locale
    names = [person_text(e.user, locale) if forgotten(e.user) else plain(e.name)
             for e in view.tournament.entrants]
    head = ["### " + translate(msg("bot.tournament.signup.title", name=plain(record.name)),
                               locale), *terms_lines(record), ""]
    # while sign-up lasts, how to enter (before its closing time, when it has one: then it
    # starts by itself); after, whether it started or was cancelled
    key = {"signup": "bot.tournament.signup.open" if record.closes_at is None
           else "bot.tournament.signup.open_timed",
           "cancelled": "bot.tournament.signup.cancelled"}.get(record.status,
                                                                 "bot.tournament.signup.closed")
    tail = [translate(msg(key), locale)]
    # the entrants as many as fit: the rest of the message is always shown whole
    room = MAX_TEXT - len("\n".join([*head, "", *tail]))
    lines = [*head, entrants_line(names, locale, room), *tail]
    if record.status == "signup":
        buttons = row(
            button(translate(msg("bot.tournament.signup.join"), locale),
                   TournamentButton.id_for(record.id, "join"), "success"),
            button(translate(msg("bot.tournament.signup.leave"), locale),
                   TournamentButton.id_for(record.id, "leave")))
        return layout(discord.ui.Container[discord.ui.LayoutView](
            text_block(cut("\n".join(lines), MAX_TEXT)), buttons, accent_colour=GOLD))
    return layout(discord.ui.Container[discord.ui.LayoutView](
        text_block(cut("\n".join(lines), MAX_TEXT)), accent_colour=GOLD))


def picture_view(title: str, alt: str, line: str | None = None) -> discord.ui.LayoutView:
    """A message of a title (markdown, and a line) above one uploaded picture described
    by ``alt`` (plain text: the title as people read it)."""
    text = f"### {title}" + (f"\n{line}" if line else "")
    return layout(discord.ui.Container[discord.ui.LayoutView](
        text_block(cut(text, MAX_TEXT)), picture("standings.png", alt),
        accent_colour=GOLD))


__all__ = ["entrants_line", "picture_view", "signup_view", "terms_lines"]
