"""The private hand message: the seat's pictures, a short note, what happened to the seat
lately, and its legal moves in groups a phone user finds at a glance (the reward, cards to play,
potions, ending the battle, fights, the merchant, a standing preference last), then the Hint
button when the table allows hints and the seat must decide (and, while a solo match runs, the
Leave button, which asks once)."""

from __future__ import annotations

from typing import Any

import discord

from bot.discord_side.ui.control import Control
from bot.discord_side.ui.custom_ids import (
    BackButton,
    HintButton,
    MoveButton,
    MoveMenu,
    QuitButton,
    SureButton,
)
from bot.discord_side.ui.parts import (
    BY_EMPHASIS,
    MAX_COMPONENTS,
    MAX_OPTIONS,
    ROW_BUTTONS,
    button,
    layout,
    menu,
    picture,
    row,
    text_block,
)
from bot.game.facts import payable_line
from bot.game.lessons import Lesson
from bot.game.markup import plain_names
from bot.game.seats import solo
from bot.game.texts import Controls, Group, menu_key, phase_line, seat_line
from bot.storage.records import TableRecord
from engine import GameState, Observation
from i18n import Msg, msg, translate
from render.style import HERO_COLOUR

#: Lines of recent events the seat saw, shown under the note.
RECENT = 4


def _colour(obs: Observation | GameState, seat: int) -> int:
    r, g, b = HERO_COLOUR.get(obs.seats[seat].hero, (59, 122, 87))
    return (r << 16) | (g << 8) | b


def _group_items(record: TableRecord, group: Group, index: int,
                 locale: str) -> list[discord.ui.Item[Any]]:
    """A group's title line (none when its one button says the same) and its rows of menus and
    buttons."""
    title = translate(group.title, locale)
    alone = not group.menus and len(group.buttons) == 1
    lines = [] if alone and translate(group.buttons[0].label, locale) == title else [
        f"**{title}**"]
    if group.note is not None:
        lines.append(f"-# {translate(group.note, locale)}")
    items: list[discord.ui.Item[Any]] = [text_block("\n".join(lines))] if lines else []
    for m in group.menus:  # a long menu in parts of Discord's size, each named by its part
        for part, start in enumerate(range(0, len(m.choices), MAX_OPTIONS)):
            options = [(translate(c.label, locale), c.notation,
                        translate(c.description, locale) if c.description else None)
                       for c in m.choices[start:start + MAX_OPTIONS]]
            menu_id = MoveMenu.id_for(record.id, record.version, menu_key(m.kind, index, part))
            items.append(row(menu(menu_id, translate(m.placeholder, locale), options)))
    loose = list(group.buttons)
    for start in range(0, len(loose), ROW_BUTTONS):
        items.append(row(*(button(translate(c.label, locale),
                                  MoveButton.id_for(record.id, record.version, c.notation),
                                  BY_EMPHASIS[c.emphasis])
                           for c in loose[start:start + ROW_BUTTONS])))
    return items


def _size(items: list[discord.ui.Item[Any]]) -> int:
    """Components counted by Discord: each item and each item inside a row."""
    return sum(1 + len(getattr(i, "children", ())) for i in items)


def hand_view(record: TableRecord, seat: int, obs: Observation, locale: str, ctrls: Controls,
              note: Msg | None, filenames: list[str],
              lesson: Lesson | None = None) -> discord.ui.LayoutView:
    """One seat's hand message (``filenames``: its uploaded pictures, hand first; ``lesson``:
    the rule a guided match explains now, its moves already emphasised in ``ctrls``). A solo
    table's hand ends with a Leave button."""
    lines = [f"### {translate(msg('bot.hand.title', table=record.id), locale)}"]
    if note is not None:
        lines.append(f"*{translate(note, locale)}*")
    if lesson is not None:
        heading = translate(msg("learn.heading", rule=lesson.rule), locale)
        lines.append(f"> **{heading}** {translate(lesson.text, locale)}")
    if ctrls.notations():
        prompt = msg(f"bot.prompt.you.{obs.phase.value}")
        lines.append(f"**{translate(prompt, locale)}**")
    else:
        lines.append(translate(phase_line(obs), locale))
    lines.append("-# " + translate(seat_line(obs, seat, record.seats[seat].ai), locale))
    payable = payable_line(obs)
    if payable is not None:  # says what the coin under a reward card in the picture means
        lines.append("-# " + translate(payable, locale))
    lines += [f"> {translate(plain_names(e.text), locale)}" for e in obs.events[-RECENT:]]
    box = discord.ui.Container[discord.ui.LayoutView](text_block("\n".join(lines)),
                                                      accent_colour=_colour(obs, seat))
    for f in filenames:  # one gallery each: side by side, Discord would crop them
        box.add_item(picture(f, translate(msg(f"bot.hand.picture_{f[:-4]}"), locale)))
    used = 2 + len(filenames)
    for index, group in enumerate(ctrls.groups):
        items = _group_items(record, group, index, locale)
        if used + _size(items) > MAX_COMPONENTS:  # never seen: the rules offer far fewer moves
            break
        used += _size(items)
        box.add_item(discord.ui.Separator())
        used += 1
        for item in items:
            box.add_item(item)
    last: list[Control] = []  # the last row: a hint on the person's decision, leaving
    if record.hints and ctrls.notations():
        last.append(button(translate(msg("bot.hint.button"), locale),
                           HintButton.id_for(record.id, record.version)))
    if solo(record) and record.status == "running":
        last.append(button(translate(msg("learn.leave"), locale), QuitButton.id_for(record.id),
                           "danger"))
    if last and used + 2 + len(last) <= MAX_COMPONENTS:
        box.add_item(discord.ui.Separator())
        box.add_item(row(*last))
    return layout(box)


def leave_view(record: TableRecord, seat: int, locale: str, note: Msg | None = None,
               listed: bool = True) -> discord.ui.LayoutView:
    """The hand message asking once before its person leaves a solo match (which closes it):
    the question (whether /goblin history would list the match, ``listed``, or only /goblin
    replay open it; and ``note``: what it does to their record), then Leave (red) and Back
    (the hand again)."""
    ask = msg("learn.leave_ask" if listed else "learn.leave_ask_replay", table=record.id)
    lines = [f"### {translate(msg('bot.hand.title', table=record.id), locale)}",
             f"**{translate(ask, locale)}**"]
    if note is not None:
        lines.append(translate(note, locale))
    box = discord.ui.Container[discord.ui.LayoutView](text_block("\n".join(lines)),
                                                      accent_colour=_colour(record.game, seat))
    box.add_item(row(button(translate(msg("learn.leave_yes"), locale),
                            QuitButton.id_for(record.id, True), "danger"),
                     button(translate(msg("bot.undo.back"), locale), BackButton.id_for(record.id))))
    return layout(box)


def ask_view(record: TableRecord, seat: int, question: Msg, notation: str, version: int,
             locale: str) -> discord.ui.LayoutView:
    """The hand message asking once more before a move easy to regret: the question, then
    Confirm (the move, drawn at ``version``) and Back (the hand again)."""
    lines = [f"### {translate(msg('bot.hand.title', table=record.id), locale)}",
             f"**{translate(question, locale)}**"]
    box = discord.ui.Container[discord.ui.LayoutView](text_block("\n".join(lines)),
                                                      accent_colour=_colour(record.game, seat))
    box.add_item(row(button(translate(msg("bot.undo.confirm"), locale),
                            SureButton.id_for(record.id, version, notation), "danger"),
                     button(translate(msg("bot.undo.back"), locale), BackButton.id_for(record.id))))
    return layout(box)


__all__ = ["ask_view", "hand_view", "leave_view"]
