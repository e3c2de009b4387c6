"""``/goblin turns`` and ``/goblin notify`` on Discord, each answered privately: a person's
running matches everywhere (:mod:`bot.game.turns`) as one Components V2 message whose page
buttons carry whose list and which page, and their choice of direct-message reminders.

A page button clicked by someone else than the list's person (a forged custom id: a private
list's buttons reach only its person) is refused privately; a page past the end (the list got
shorter) shows the last one."""

from __future__ import annotations

from typing import Any

import discord

from bot.discord_side.context import answer_privately, loc, spoken
from bot.discord_side.ui.custom_ids import TurnsButton
from bot.discord_side.ui.parts import GOLD, MAX_TEXT, button, cut, layout, row, text_block
from bot.game.refusals import Refusal
from bot.game.service import GameService
from bot.game.turns import TurnList, page_of, page_text
from i18n import msg, translate


def turns_view(turns: TurnList, owner: int, page: int, locale: str) -> discord.ui.LayoutView:
    """Page ``page`` of person ``owner``'s list with its Previous and Next buttons."""
    page = page_of(turns, page)
    container = discord.ui.Container[discord.ui.LayoutView](
        text_block(cut(page_text(turns, page, locale), MAX_TEXT)), accent_colour=GOLD)
    if turns.pages > 1:
        container.add_item(row(
            button(translate(msg("turns.list.previous"), locale),
                   TurnsButton.id_for(owner, max(0, page - 1)), disabled=page == 0),
            button(translate(msg("turns.list.next"), locale),
                   TurnsButton.id_for(owner, min(turns.pages - 1, page + 1)),
                   disabled=page >= turns.pages - 1)))
    return layout(container)


async def show_turns(interaction: discord.Interaction[Any], service: GameService,
                     owner: int | None = None, page: int = 0) -> None:
    """/goblin turns (a new private message) or a click on one of its page buttons (the clicked
    message shows the page); ``owner``: whose list the button was drawn for."""
    user = interaction.user.id
    if owner is not None and owner != user:
        raise Refusal(msg("turns.list.not_yours"))
    turns = await service.turns.of(user)
    view = turns_view(turns, user, page, loc(interaction))
    if interaction.type is discord.InteractionType.component:
        await interaction.response.edit_message(view=view)
    else:
        await interaction.response.send_message(view=view, ephemeral=True)


async def set_notify(interaction: discord.Interaction[Any], service: GameService,
                     on: bool | None) -> None:
    """/goblin notify: store the person's choice of reminders (None: only say it), privately.
    When a reminder found their direct messages closed, they are told; turning reminders on
    again tries them once more."""
    user = interaction.user.id
    said = translate(await service.turns.notify(user, on, spoken(interaction)),
                     loc(interaction))
    if on is not False and await service.store.dms_closed([user]):
        said += "\n" + translate(msg("remind.dms_closed"), loc(interaction))
        if on:
            await service.store.clear_dms_closed(user)
    await answer_privately(interaction, said)


__all__ = ["set_notify", "show_turns", "turns_view"]
