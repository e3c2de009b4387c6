"""Ratings in Discord: ``/goblin stats`` (a person's record and the chart of their rating),
``/goblin leaderboard`` (pages turned by buttons whose custom id holds the page) and the lines
of rating changes posted when a match ends. Each answer is private to the asker."""

from __future__ import annotations

import asyncio
from typing import Any

import discord

from bot.discord_side.context import loc
from bot.discord_side.sight import Sights
from bot.discord_side.ui.custom_ids import BoardButton
from bot.discord_side.ui.numbers import points, signed
from bot.discord_side.ui.parts import GOLD, MAX_TEXT, button, cut, layout, picture, row, text_block
from bot.discord_side.uploads import ImageFile
from bot.game.markup import plain
from bot.game.people import person
from bot.game.places import Place
from bot.game.ratings import BASE
from bot.game.refusals import Refusal
from bot.game.seats import seat_label
from bot.game.service import GameService
from bot.game.standings import FORM, MIN_GAMES, Board, PersonChange, Stats
from bot.storage.records import TableRecord
from engine.agents import LEVELS
from i18n import Msg, msg, translate
from render.charts import RatingPoint, rating_chart

CHART = "rating.png"


def rating_text(value: int, provisional: bool, locale: str) -> str:
    """A shown rating, with its question mark while provisional."""
    text = points(value, locale)
    return translate(msg("ratings.stats.provisional", value=text), locale) if provisional \
        else text


def change_lines(record: TableRecord, changes: list[PersonChange], locale: str) -> str:
    """What a finished match did to each person's rating ("Ann 1,512 → 1,538, +26"), or ""
    when it was not rated."""
    if not changes:
        return ""
    names = {s.user: s.name for s in record.seats if s.user is not None}
    lines = [f"**{translate(msg('ratings.end.title'), locale)}**"]
    for c in changes:
        lines.append(translate(msg(
            "ratings.end.line", who=plain(names[c.user_id]) if names.get(c.user_id)
            else person(c.user_id),
            before=rating_text(c.change.before, c.was_provisional, locale),
            after=rating_text(c.change.after, c.change.provisional, locale),
            delta=signed(c.change.delta, locale)), locale))
    return "\n".join(lines)


async def rating_lines(service: GameService, record: TableRecord) -> str:
    """What a match that ended did to the ratings, in the table's language: each person's
    change, then the note on its rating (rated as it stood when abandoned, or why it was not
    rated); "" when there is nothing to say."""
    changes = change_lines(record, await service.standings.changes(record.id), record.locale)
    note = await service.standings.rating_note(record)
    return "\n".join(part for part in (
        changes, translate(note, record.locale) if note is not None else "") if part)


async def end_lines(service: GameService, record: TableRecord) -> str:
    """The lines under a match that ended, in the table's language: what it did to the
    ratings (:func:`rating_lines`) and how many hints each person used; "" when there is
    nothing to say."""
    hints = hints_line(record, await service.hints.used(record.id), record.locale)
    return "\n".join(part for part in (await rating_lines(service, record), hints) if part)


def hints_line(record: TableRecord, used: dict[int, int], locale: str) -> str:
    """How many hints each person of ``record`` used (``used``: by seat), seats in order; ""
    when nobody used one."""
    counts = [f"{translate(seat_label(record, seat), locale)} {count}"
              for seat, count in sorted(used.items()) if count]
    return translate(msg("bot.hint.at_end", list=", ".join(counts)), locale) if counts else ""


def _share(what: str | Msg, games: int, wins: int) -> Msg:
    return msg("ratings.stats.share", count=games, share=round(100 * wins / games) if games
               else 0, what=what)


def stats_text(stats: Stats, name: str, locale: str, dms: bool = False) -> str:
    """The record of ``stats`` as markdown: of a server, or (``dms``) of the person's direct
    messages, which are never rated."""
    where = "ratings.dms" if dms else "ratings.place"
    parts: list[str | Msg] = [f"### {translate(msg(f'{where}.title', who=plain(name)), locale)}"]
    parts.append(msg("ratings.stats.games", count=stats.games, wins=stats.wins)
                 if stats.games else msg("ratings.dms.none" if dms else "ratings.stats.none"))
    if stats.rating is None:
        parts.append(msg("ratings.dms.unrated" if dms else "ratings.stats.unrated"))
    else:
        shown = rating_text(stats.rating.value, stats.rating.provisional, locale)
        spread = points(stats.uncertainty, locale)
        parts.append(msg("ratings.stats.rating", place=stats.place, ranked=stats.ranked,
                         rating=shown, spread=spread) if stats.place is not None else
                     msg("ratings.stats.unranked", least=MIN_GAMES, rating=shown, spread=spread))
        if stats.rating.provisional:  # what the question mark means, and why it moves so much
            parts.append("-# " + translate(msg("ratings.stats.provisional_note"), locale))
    if stats.form:
        places = " · ".join(str(p) for p in stats.form[:FORM])
        parts.append(msg("ratings.stats.form", count=len(stats.form), places=places))
    if stats.heroes:
        parts.append(f"**{translate(msg('ratings.stats.heroes'), locale)}**")
        parts.extend(_share(msg(f"hero.{h.hero}.name"), h.games, h.wins) for h in stats.heroes)
    if stats.against_ai:
        parts.append(f"**{translate(msg(f'{where}.against_ai'), locale)}**")
        levels: dict[str, tuple[int, int]] = {}
        for r in stats.against_ai:
            games, wins = levels.get(r.level, (0, 0))
            levels[r.level] = (games + r.games, wins + r.wins)
        parts.extend(_share(msg(f"ratings.ai.{level}"), g, w)
                     for level, (g, w) in sorted(levels.items(),
                                                 key=lambda item: LEVELS.index(item[0])))
    return "\n".join(p if isinstance(p, str) else translate(p, locale) for p in parts)


def stats_chart(stats: Stats, name: str, locale: str) -> bytes:
    """The PNG of a person's rating after each rated match."""
    return rating_chart([RatingPoint(s.value, s.provisional) for s in stats.history], name,
                        locale, start=BASE)


def board_text(board: Board, locale: str) -> str:
    """A leaderboard page as markdown."""
    lines = [f"### {translate(msg('ratings.board.title'), locale)}"]
    if not board.rows:
        lines.append(translate(msg("ratings.board.empty"), locale))
    lines.extend(translate(msg("ratings.board.row", count=r.games, place=r.place,
                               rating=points(r.rating, locale), who=f"<@{r.user_id}>"), locale)
                 for r in board.rows)
    lines.append("")
    lines.append(translate(msg("ratings.board.mine", place=board.mine.place,
                               rating=points(board.mine.rating, locale))
                           if board.mine else msg("ratings.board.not_mine"), locale))
    page = msg("ratings.board.page", page=board.page + 1, pages=board.pages)
    lines.append(f"-# {translate(msg('ratings.board.rule', least=MIN_GAMES), locale)} "
                 f"{translate(page, locale)}")
    return "\n".join(lines)


def board_view(board: Board, guild_id: int, locale: str) -> discord.ui.LayoutView:
    """A leaderboard page with its Previous and Next buttons."""
    container = discord.ui.Container[discord.ui.LayoutView](
        text_block(cut(board_text(board, locale), MAX_TEXT)), accent_colour=GOLD)
    if board.pages > 1:
        container.add_item(row(
            button(translate(msg("ratings.board.previous"), locale),
                   BoardButton.id_for(guild_id, max(0, board.page - 1)), disabled=board.page == 0),
            button(translate(msg("ratings.board.next"), locale),
                   BoardButton.id_for(guild_id, min(board.pages - 1, board.page + 1)),
                   disabled=board.page >= board.pages - 1)))
    return layout(container)


async def show_stats(interaction: discord.Interaction[Any], service: GameService,
                     sights: Sights, player: discord.abc.User | None) -> None:
    """/goblin stats: a person's record (the asker's when ``player`` is None), privately; the
    chart is drawn in a thread, off the event loop. Someone else's games, wins, last places
    and records against the AI count only the matches the asker may look back at (played in
    channels they may view). In direct messages: the asker's own solo matches there, which
    are never rated (no chart)."""
    who = player or interaction.user
    locale = loc(interaction)
    if interaction.guild_id is None:
        if who.id != interaction.user.id:
            raise Refusal(msg("ratings.dms.own_only"))
        await interaction.response.defer(ephemeral=True, thinking=True)
        stats = await service.standings.stats(Place.dms(who.id), who.id)
        await interaction.edit_original_response(view=layout(
            discord.ui.Container[discord.ui.LayoutView](
                text_block(cut(stats_text(stats, who.display_name, locale, dms=True), MAX_TEXT)),
                accent_colour=GOLD)))
        return
    await interaction.response.defer(ephemeral=True, thinking=True)
    sight = None if who.id == interaction.user.id else await sights.of(interaction)
    stats = await service.standings.stats(Place.server(interaction.guild_id), who.id, sight)
    name = who.display_name
    png = await asyncio.to_thread(stats_chart, stats, name, locale)
    container = discord.ui.Container[discord.ui.LayoutView](
        text_block(cut(stats_text(stats, name, locale), MAX_TEXT)),
        picture(CHART, translate(msg("ratings.stats.chart"), locale)), accent_colour=GOLD)
    await interaction.edit_original_response(
        view=layout(container), attachments=[ImageFile(png, CHART)])


async def show_board(interaction: discord.Interaction[Any], service: GameService,
                     guild_id: int | None, page: int) -> None:
    """/goblin leaderboard (a new private message) or a click on one of its page buttons (the
    clicked message shows the page) of the server ``guild_id`` names, which must be the one
    the person is in."""
    if interaction.guild_id is None or guild_id is None:
        raise Refusal(msg("bot.error.guild_only"))
    if Place.server(guild_id) != Place.server(interaction.guild_id):
        raise Refusal(msg("ratings.board.other_server"))
    locale = loc(interaction)
    board = await service.standings.leaderboard(Place.server(guild_id), interaction.user.id,
                                                page)
    view = board_view(board, guild_id, locale)
    if interaction.type is discord.InteractionType.component:
        await interaction.response.edit_message(view=view)
    else:
        await interaction.response.send_message(view=view, ephemeral=True)


__all__ = ["board_text", "board_view", "change_lines", "end_lines", "hints_line", "rating_lines",
           "rating_text", "show_board", "show_stats", "stats_chart", "stats_text"]
