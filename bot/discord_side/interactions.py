"""Clicks on the bot's buttons and menus: each is handed to the service and answered (the hand
message, the lobby message or a private refusal). A click on a hand is answered with its result
in one request when that is ready soon (:mod:`bot.discord_side.replies`); other clicks are
acknowledged first (deferred).

Each kind of control answers its own clicks (its class's ``answer`` in
:mod:`bot.discord_side.ui.custom_ids` calls one handler here, or, for the lobby's buttons and
menus, one of :attr:`Interactions.lobby`: :mod:`bot.discord_side.lobby_clicks`); every click
first goes through :meth:`Interactions.on_click`, which holds what all clicks share. The service
decides every rule and right; this module only turns its answers into messages.
"""

from __future__ import annotations

import logging
from typing import Any

import discord

from bot.discord_side import forget
from bot.discord_side.asides import confirm_abandon, leave_solo, show_log
from bot.discord_side.away import add_away
from bot.discord_side.context import (
    UNDELIVERED,
    answer_privately,
    clicked_at,
    expired,
    loc,
    table_lacks,
    views_channel,
    why,
)
from bot.discord_side.counting import answered, refused_here
from bot.discord_side.hint_answers import GivenHints, HintShown, answer_hint
from bot.discord_side.language import follow_person
from bot.discord_side.lobby_clicks import LobbyClicks
from bot.discord_side.messages import Messages
from bot.discord_side.past import PastMatches
from bot.discord_side.replies import GRACE, Reply
from bot.discord_side.standings import show_board
from bot.discord_side.tournaments import TournamentDesk
from bot.discord_side.turns import show_turns
from bot.discord_side.ui.control import Clicks, Control
from bot.discord_side.ui.hand import ask_view
from bot.discord_side.ui.targets import Forget, Unreadable
from bot.game.hints import setting
from bot.game.play import Outcome
from bot.game.refusals import Ask, Refusal, Stale
from bot.game.scheduler import Scheduler
from bot.game.seats import sees_hand
from bot.game.service import GameService
from bot.storage.records import CannotSave, TableRecord, Unreachable
from bot.supervision.log_context import about
from i18n import Msg, msg, translate

log = logging.getLogger("karak.bot")


def hand_owner(message: discord.Message | None) -> int | None:
    """The user a clicked private message was shown to: Discord names the user whose
    interaction made it. None for a public message, or when Discord does not say."""
    if message is None or not message.flags.ephemeral:
        return None
    made_by = message.interaction_metadata
    return made_by.user.id if made_by is not None else None


class Interactions:
    """Answers clicks (the client's ``clicks``); those on a lobby message, through its
    ``lobby``."""

    def __init__(self, service: GameService, messages: Messages, scheduler: Scheduler,
                 past: PastMatches, hints_given: GivenHints, lobby: LobbyClicks,
                 tournaments: TournamentDesk | None = None) -> None:
        self.service = service
        self.tournaments = tournaments
        self.messages = messages
        self.lobby = lobby
        self.scheduler = scheduler
        self.past = past
        self.hints_given = hints_given
        #: the questions of /goblin forget-me confirmed, each answered once
        self.forget_questions = forget.Confirmed()
        #: seconds a click on a hand waits for its answer before it is acknowledged on its own
        self.grace = GRACE

    async def on_click(self, interaction: discord.Interaction[Any], control: Control,
                       values: list[str]) -> None:
        """Answer one click on one of the bot's controls; a refusal or a failure becomes a
        private answer (a database out of reach: one saying so, and a warning). A bot stopping
        meanwhile lets the answer finish first (within its grace time). What it logs is about
        its table and server."""
        with about(table=getattr(control.target, "table", None), guild=interaction.guild_id):
            async with self.scheduler.tasks.in_flight():
                await self._answer(interaction, control, values)

    async def _answer(self, interaction: discord.Interaction[Any], control: Control,
                      values: list[str]) -> None:
        """The rules every click follows (its table's channel, one value picked in a menu, the
        answers to refusals and failures, the metrics), around the kind's own answer; an id
        that fits a kind's template but not its rules gets a clear private answer."""
        target = control.target
        name = type(target).__name__.lower()
        locale = loc(interaction)
        follow_person(interaction, self.service, self.messages)  # a solo table in DMs
        try:
            if isinstance(target, Unreadable):
                log.warning("unreadable custom_id %r", target.text)
                await answer_privately(interaction, translate(msg("bot.error.bad_button"),
                                                              locale))
            else:
                table = getattr(target, "table", None)
                if control.checks_channel and isinstance(table, int):
                    await self.service.play.check_channel(table, interaction.channel_id,
                                                          clicked_at(interaction),
                                                          views_channel(interaction))
                if control.one_choice and len(values) != 1:
                    await answer_privately(interaction, translate(msg("bot.error.one_choice"),
                                                                  locale))
                else:
                    await control.answer(self, interaction, values)
            answered(interaction, "accepted", name)
        except Refusal as exc:
            answered(interaction, "refused", name)
            await answer_privately(interaction, translate(exc.reason, locale))
        except Unreachable as exc:  # the supervision and the health check say it too
            answered(interaction, "error", name)
            log.warning("click on %s not answered: the database is out of reach (%s)", target,
                        exc)
            await answer_privately(interaction, translate(msg("bot.error.unreachable"), locale))
        except CannotSave as exc:
            answered(interaction, "error", name)
            log.warning("click on %s not saved: %s", target, exc)
            await answer_privately(interaction, translate(msg("bot.error.cannot_save"), locale))
        except discord.HTTPException as exc:
            answered(interaction, "error", name)
            if expired(exc):
                log.warning("interaction %s expired before it could be answered (%s %s)",
                            interaction.id, exc.status, exc.code)
                return
            log.exception("click on %s failed", target)
            await answer_privately(interaction, translate(msg("bot.error.internal"), locale))
        except Exception:
            answered(interaction, "error", name)
            log.exception("click on %s failed", target)
            await answer_privately(interaction, translate(msg("bot.error.internal"), locale))

    # ------------------------------------------------------------------ asides

    async def show_log(self, interaction: discord.Interaction[Any], table: int) -> None:
        """The last two turns of a table, told privately."""
        await show_log(interaction, self.service, table)

    async def hint(self, interaction: discord.Interaction[Any], table: int,
                   version: int) -> None:
        """A hint for the decision drawn at ``version``."""
        await answer_hint(self.service, interaction, table, version,
                          hand_owner(interaction.message), self.hints_given)

    async def quit(self, interaction: discord.Interaction[Any], table: int, sure: bool) -> None:
        """A solo table's Leave button: asked once, then the table closes."""
        await self._defer_in_hand(interaction)
        await leave_solo(interaction, self.service, self.messages, self.scheduler, table, sure)

    async def abandon(self, interaction: discord.Interaction[Any], table: int,
                      listed: bool | None = None) -> None:
        """The confirmation of abandoning a running match."""
        await confirm_abandon(interaction, self.service, self.messages, self.scheduler, table,
                              listed)

    async def board(self, interaction: discord.Interaction[Any], guild: int, page: int) -> None:
        """A page of a server's leaderboard."""
        await show_board(interaction, self.service, guild, page)

    async def forget(self, interaction: discord.Interaction[Any], target: Forget) -> None:
        """The answer to the question of /goblin forget-me."""
        await forget.answer(interaction, self, target)

    async def turns(self, interaction: discord.Interaction[Any], owner: int, page: int) -> None:
        """A page of a person's matches."""
        await show_turns(interaction, self.service, owner, page)

    async def tournament(self, interaction: discord.Interaction[Any], tournament: int,
                         op: str) -> None:
        """A Join or Leave button of a tournament's sign-up message."""
        if self.tournaments is None:
            raise Refusal(msg("bot.tournament.error.no_such"))
        await self.tournaments.click(interaction, tournament, op)

    # ------------------------------------------------------------------ past matches

    async def history_page(self, interaction: discord.Interaction[Any], anchor: int, way: str,
                           player: int, tournament: int = 0) -> None:
        """A page of past matches (of one server tournament unless ``tournament`` is 0)."""
        await self.past.page(interaction, anchor, way, player, tournament)

    async def replay_go(self, interaction: discord.Interaction[Any], table: int, step: int,
                        reveal: bool, op: str) -> None:
        """A replay button."""
        await self.past.go(interaction, table, step, reveal, op)

    async def replay_seek(self, interaction: discord.Interaction[Any], table: int,
                          reveal: bool, values: list[str]) -> None:
        """A replay's bookmark menu."""
        await self.past.seek(interaction, table, reveal, values)

    async def replay_share(self, interaction: discord.Interaction[Any], table: int) -> None:
        """A replay's Share button."""
        await self.past.share(interaction, table)

    async def rematch(self, interaction: discord.Interaction[Any], table: int, op: str) -> None:
        """Rematch, Ready or Start."""
        await self.past.rematch(interaction, table, op)

    # ------------------------------------------------------------------ the hand

    async def show_hand(self, interaction: discord.Interaction[Any], table: int,
                        note: Msg | None = None) -> None:
        """Answer with a fresh private hand message (pictures and the seat's moves); once the
        match is over (a click that came after its table message lost the button), it says
        so, as a stale move's answer does."""
        locale = loc(interaction)
        async with Reply(interaction, in_place=False, grace=self.grace) as reply:
            record = await self.service.tables.load(table)
            seat = record.seat_of(interaction.user.id)
            if seat is None or record.state is None:
                await reply.tell(translate(msg(
                    "bot.error.not_seated" if seat is None else "bot.error.not_started"),
                    locale))
                return
            if not sees_hand(record, seat):
                await reply.tell(translate(msg("bot.error.seat_is_ai"), locale))
                return
            if record.status != "running" and note is None:  # a click that came too late
                note = msg("bot.error.game_closed")
            payload = await self.messages.hand_payload(record, seat, locale, note)
            await add_away(payload.view, self.service, record, seat, locale)  # while away
            sent = await reply.show(payload.view, payload.files)
            self.messages.sent_hand(record, seat, locale, sent, payload)

    async def play(self, interaction: discord.Interaction[Any], table: int, version: int,
                   notation: str, menu: str | None = None, sure: bool = False) -> None:
        """Apply a move clicked in a hand message (``menu``: the menu it was picked in, None for
        a button; ``sure``: the answer to the question asked before a move easy to regret),
        then refresh that message and the table. A move easy to regret asks that question in
        the hand message instead. When the bot lacks a permission the table needs where it is
        shown (a moderator took it), the move is played all the same and the mover's hand says
        once that the table cannot show it, and which permission to ask an admin for.

        Only the clicker's own private hand message is redrawn in place. A move control on a
        message everyone sees (an older bot's, a forged one), or on a private message of
        another user or of an unknown one, must never show the clicker's hand there: the
        answer is then a new private message (another user's hand message is refused).
        """
        locale = loc(interaction)
        owner = hand_owner(interaction.message)
        async with Reply(interaction, in_place=owner == interaction.user.id,
                         grace=self.grace) as reply:
            try:
                outcome = await self.service.play.act(
                    table, interaction.user.id, version, notation,
                    channel_id=interaction.channel_id, menu=menu, hand_of=owner, sure=sure,
                    place_key=clicked_at(interaction), viewed=views_channel(interaction))
            except Ask as exc:
                await self.ask(reply, exc, locale)
                return
            except Stale as exc:
                refused_here(interaction)
                record = exc.record
                seat = record.seat_of(interaction.user.id) if record else None
                if record is not None and seat is not None and not sees_hand(record, seat):
                    await reply.tell(translate(msg("bot.error.seat_is_ai"), locale))
                elif record is not None and seat is not None and record.state is not None:
                    await self.reply_hand(reply, record, seat, locale, exc.reason)
                else:
                    await reply.tell(translate(exc.reason, locale))
                return
            # the hints the move made pass, taken before the game's end can forget them (not
            # a setting's, which leaves the decision in front of the person); a decision met
            # again (a take-back, a move played again after it) has them apply
            passing = [] if setting(str(outcome.action)) else self.hints_given.passing(
                table, interaction.user.id, outcome.record.version)
            # the move is saved: the table, the next player and the AI go on at once, whatever
            # becomes of the mover's own reply
            self.messages.tasks.spawn(self.scheduler.after([outcome]), f"after-{table}")
            returning = await self._hints_back(outcome, interaction.user.id)
            unshown = self.messages.unshown(outcome.record, interaction.user.id,
                                            table_lacks(interaction, outcome.record))
            await self.reply_hand(reply, outcome.record, outcome.seat, locale, unshown)
        await self.hints_given.passed(table, passing)
        await self.hints_given.restored(table, returning)

    async def _hints_back(self, outcome: Outcome, user: int) -> list[HintShown]:
        """The hint answers of ``user`` that apply again after ``outcome``: those marked as no
        longer applying whose decision is met again, as a take-back returns to it, or a move
        taken back then played again (the log is read only when there are some, and a
        take-back was made)."""
        table = outcome.record.id
        if not self.hints_given.any_passed(table, user):
            return []
        met = await self.service.hints.met_at(outcome.record)
        return self.hints_given.returning(table, user, outcome.record.version, met)

    async def ask(self, reply: Reply, question: Ask, locale: str) -> None:
        """Ask once more before a move easy to regret: in the clicked hand message, or, when it
        cannot be edited any more (dismissed, deleted), in a fresh private one."""
        self.messages.shown.drop((question.table.id, question.seat, locale))  # no picture
        view = ask_view(question.table, question.seat, question.reason, question.notation,
                        question.version, locale)
        try:
            await reply.show(view, [])
        except discord.HTTPException as exc:
            log.warning("could not ask in the hand message of table %s (%s); asking anew",
                        question.table.id, exc.status)
            await reply.show_anew(view, [])

    @staticmethod
    async def _defer_in_hand(interaction: discord.Interaction[Any]) -> int | None:
        """Acknowledge a click on a hand message: its answer edits the clicked message when it
        is the clicker's own private one, else it is a new private message (a hand is never
        shown in a message anyone else sees). Returns the user the message was shown to."""
        owner = hand_owner(interaction.message)
        if owner is not None and owner == interaction.user.id:
            await interaction.response.defer()
        else:
            await interaction.response.defer(ephemeral=True, thinking=True)
        return owner

    async def back(self, interaction: discord.Interaction[Any], table: int) -> None:
        """"Back" from the question asked before a move easy to regret: the hand again (saying
        the game is over once it is)."""
        locale = loc(interaction)
        owner = hand_owner(interaction.message)
        async with Reply(interaction, in_place=owner == interaction.user.id,
                         grace=self.grace) as reply:
            record = await self.service.tables.load(table)
            seat = record.seat_of(interaction.user.id)
            if seat is None or record.state is None:
                await reply.tell(translate(msg(
                    "bot.error.not_seated" if seat is None else "bot.error.not_started"),
                    locale))
                return
            if not sees_hand(record, seat):
                await reply.tell(translate(msg("bot.error.seat_is_ai"), locale))
                return
            await self.reply_hand(reply, record, seat, locale,
                                  None if record.status == "running"
                                  else msg("bot.error.game_closed"))

    async def reply_hand(self, reply: Reply, record: TableRecord, seat: int, locale: str,
                         note: Msg | None = None) -> None:
        """Show the seat's hand as the answer to a click: in the clicked message, or, when that
        message cannot be edited any more (dismissed, deleted, too old), in a fresh private one.
        A failed reply (Discord refused it, or the connection failed on its way) is logged and
        never reported as a failed move."""
        clicked = reply.interaction.message
        payload = await self.messages.hand_payload(
            record, seat, locale, note,
            clicked.id if reply.in_place and clicked is not None else None)
        try:
            sent = await reply.show(payload.view, payload.files)
            self.messages.sent_hand(record, seat, locale, sent, payload)
            return
        except UNDELIVERED as exc:
            log.warning("could not edit the hand message of table %s (%s); sending a new one",
                        record.id, why(exc))
        payload = await self.messages.hand_payload(record, seat, locale, note)
        try:
            await reply.show_anew(payload.view, payload.uploads())
            if payload.hint:
                self.service.hints.prepare(record)
        except UNDELIVERED as exc:
            log.warning("could not send a new hand message for table %s (%s)", record.id,
                        why(exc))


def answers(clicks: Interactions) -> Clicks:
    """``clicks`` as the controls see it (the type checker sees every kind's handler is
    there)."""
    return clicks


__all__ = ["Interactions", "answers"]
