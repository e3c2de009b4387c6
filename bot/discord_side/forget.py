"""``/goblin forget-me``: a person asks the bot to delete what it keeps about them. It asks once,
privately, with a Confirm and a Cancel button (:class:`~bot.discord_side.ui.custom_ids.
ForgetButton`, carrying who asked); only that person's click is answered, and Confirm forgets
them (:class:`~bot.game.people.People`): their tables then go on as after ``/goblin leave``
(a lobby redrawn without them, a running match with the AI in their seat). A question is
confirmed once (:class:`Confirmed`): a second click on it, Confirm again or Cancel, clicked
before the first was answered, is told privately that it is done, and the question keeps
saying Done (never that nothing was kept, nor that nothing was deleted). A question confirmed
before a restart is known to the store alone: Cancel on it asks the store whether anything is
still kept about the person (a read, which keeps nothing), and Confirm finds nothing left. A
Confirm the database stopped part of the way (:class:`~bot.game.people.PartlyForgotten`) says
what was done, the person's tables and tournaments drawn again without them, and leaves the
question to be confirmed again once the database is back."""

from __future__ import annotations

import logging
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Protocol

import discord

from bot.discord_side.context import answer_privately, loc
from bot.discord_side.counting import refused_here
from bot.discord_side.lobby_clicks import LobbyClicks
from bot.discord_side.messages import Messages
from bot.discord_side.past import PastMatches
from bot.discord_side.tournaments import TournamentDesk
from bot.discord_side.ui.custom_ids import Forget, ForgetButton
from bot.discord_side.ui.parts import button, layout, row, text_block
from bot.game.people import Forgetting, PartlyForgotten
from bot.game.service import GameService
from bot.storage.records import CannotSave
from i18n import msg, translate

log = logging.getLogger("karak.bot")


class Interactions(Protocol):
    """What answers the clicks (:class:`bot.discord_side.interactions.Interactions`), as far as
    forgetting a person needs it: the service, the messages, the past matches, what follows
    a lobby change and the tournaments' sign-up messages."""

    service: GameService
    messages: Messages
    past: PastMatches
    lobby: LobbyClicks
    tournaments: TournamentDesk | None
    forget_questions: Confirmed


#: How many confirmed questions are remembered (a second click comes within seconds).
KEPT_QUESTIONS = 256


@dataclass
class Confirmed:
    """The questions of /goblin forget-me confirmed in this process, by message id (the
    clicks on one private message all reach the process of its channel's shard)."""

    _questions: OrderedDict[int, None] = field(default_factory=OrderedDict)

    def take(self, message: int | None) -> bool:
        """Whether question ``message`` is confirmed now, by this click: False when it was
        already (None, a message Discord does not name: always True)."""
        if message is None:
            return True
        if message in self._questions:
            return False
        self._questions[message] = None
        while len(self._questions) > KEPT_QUESTIONS:
            self._questions.popitem(last=False)
        return True

    def undo(self, message: int | None) -> None:
        """Question ``message`` was not confirmed after all (the deletion failed)."""
        if message is not None:
            self._questions.pop(message, None)

    def taken(self, message: int | None) -> bool:
        """Whether question ``message`` was confirmed."""
        return message is not None and message in self._questions


def question_view(user: int, locale: str) -> discord.ui.LayoutView:
    """The private question: what will be deleted, and its two buttons."""
    return layout(discord.ui.Container[discord.ui.LayoutView](
        text_block(translate(msg("forget.ask"), locale)),
        row(button(translate(msg("forget.confirm"), locale), ForgetButton.id_for(user, True),
                   "danger"),
            button(translate(msg("forget.cancel"), locale), ForgetButton.id_for(user, False),
                   "secondary"))))


def told(text: str) -> discord.ui.LayoutView:
    """The question answered: its text only, no button left."""
    return layout(discord.ui.Container[discord.ui.LayoutView](text_block(text)))


async def ask(interaction: discord.Interaction[Any]) -> None:
    """/goblin forget-me: the private question."""
    await interaction.response.send_message(view=question_view(interaction.user.id,
                                                               loc(interaction)),
                                            ephemeral=True)


async def answer(interaction: discord.Interaction[Any], clicks: Interactions,
                 target: Forget) -> None:
    """A click on the question's buttons: someone else's click is told it is not theirs;
    Cancel leaves everything as it was, and says nothing was deleted only while the store
    still keeps something about the person (a question confirmed before a restart, which this
    process does not know, may have deleted it all: then it says nothing is kept); Confirm
    forgets the person, and says what was done (when
    it finds nothing, that nothing is kept: not that nothing ever was, as a Confirm whose
    answer a stop cut off, or another question confirmed, may have deleted it). A
    click on a question confirmed already (a double click, Cancel clicked meanwhile) is told
    privately that it is done, and leaves the question as it is."""
    locale = loc(interaction)
    if interaction.user.id != target.user:
        refused_here(interaction)
        await answer_privately(interaction, translate(msg("forget.not_yours"), locale))
        return
    question = interaction.message.id if interaction.message is not None else None
    if not target.sure:
        if clicks.forget_questions.taken(question):
            refused_here(interaction)
            await answer_privately(interaction, translate(msg("forget.too_late"), locale))
            return
        await interaction.response.defer()
        kept = await clicks.service.people.kept(target.user)
        if clicks.forget_questions.taken(question):  # Confirm clicked meanwhile
            refused_here(interaction)
            await answer_privately(interaction, translate(msg("forget.too_late"), locale))
            return
        key = "forget.cancelled" if kept else "forget.cancelled_nothing_kept"
        await interaction.edit_original_response(view=told(translate(msg(key), locale)))
        return
    if not clicks.forget_questions.take(question):
        refused_here(interaction)
        await answer_privately(interaction, translate(msg("forget.already"), locale))
        return
    try:
        await interaction.response.defer()
        done = await clicks.service.people.forget(target.user)
    except PartlyForgotten as exc:  # their tables let go, their data not deleted: said so
        clicks.forget_questions.undo(question)  # the same Confirm does the rest
        log.warning("forget-me stopped part of the way, the tables let go: %s", exc.cause)
        await answer_privately(interaction, translate(msg("forget.partly"), locale))
        try:
            await tables_after(clicks, exc.done)
        except CannotSave as again:  # the database away: drawn again at their next change
            log.warning("the tables of a person partly forgotten not drawn again: %s", again)
        return
    except BaseException:
        clicks.forget_questions.undo(question)
        raise
    try:
        key = "forget.done" if done.anything else "forget.nothing"
        await interaction.edit_original_response(view=told(translate(msg(key), locale)))
    finally:
        await tables_after(clicks, done)


async def tables_after(clicks: Interactions, done: Forgetting) -> None:
    """What follows on the person's tables, as after ``/goblin leave``: a lobby redrawn, a
    running match's AI going (and the thread it is played in named again without them, with
    the channel's line), a closed table told and forgotten (a guided match's thread named
    again too), a tournament's sign-up
    message redrawn without them, an open rematch offer of a match they played redrawn (no
    longer waiting for them, nor naming them); what is kept in memory of
    the past matches they played (replays, animations) drawn again with the names changed."""
    for table in done.store.tables:
        clicks.past.forget(table)
    for offer in await clicks.service.rematches.open_of(done.store.tables):
        await clicks.past.redraw_offer_of(offer.record.id)
    for record in done.tables:
        if record.status == "lobby":
            await clicks.messages.lobby.refresh(record)
        elif record.status == "abandoned" and record.state is None:
            # a match closed (a solo one) is closed below: its lobby message is gone, or is
            # the channel's line of its thread
            await clicks.messages.lobby.redraw(None, record.id)
        if record.status == "abandoned" and record.state is not None:
            await clicks.messages.closed(record)  # its channel's line without their name
            clicks.messages.threads.named_again(record)  # and its thread's name
        if record.status == "running":  # their name off its thread's and the channel's line
            clicks.messages.threads.renamed(record)
        await clicks.lobby.changed(record, "leave")
    if clicks.tournaments is not None:  # their name off the entrants shown
        for tournament in done.tournaments:
            await clicks.tournaments.signup_changed(tournament)


__all__ = ["KEPT_QUESTIONS", "Confirmed", "Interactions", "answer", "ask", "question_view",
           "tables_after"]
