"""The answer to a click on a hand message's Hint button: a new private message, only for the
person who asked, with the suggested move, the estimated chances to win of the best moves and
the reason (the service decides who may ask and keeps the hint). Once the decision the hint was
for has been made, by the person or by the AI (their turn timer ran out, or they left the seat
to it), its answer is edited to say the hint no longer applies (:class:`GivenHints`), and once
that decision is met again (a take-back returns to it, or a move taken back is played again),
edited to show the hint again, through the click's token while Discord still takes it (15
minutes)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import discord

from bot.discord_side.context import loc
from bot.discord_side.ui.parts import layout, text_block
from bot.game.hints import HintAnswer, hint_lines, passed_lines
from bot.game.service import GameService
from i18n import Msg, translate

log = logging.getLogger("karak.bot")
#: Hint answers kept per person and table at most (the oldest forgotten first).
KEPT = 8
#: Seconds a hint's answer is kept for its edit: its click's token lasts 15 minutes, and a
#: minute is left for the edit's way there.
TOKEN_LIFETIME = 14 * 60.0


def hint_view(answer: HintAnswer, locale: str) -> discord.ui.LayoutView:
    """The private message of a hint."""
    return _view(hint_lines(answer), locale)


def passed_view(answer: HintAnswer, locale: str) -> discord.ui.LayoutView:
    """The private message of a hint whose decision has been made."""
    return _view(passed_lines(answer), locale)


def _view(messages: list[Msg], locale: str) -> discord.ui.LayoutView:
    lines = [translate(line, locale) for line in messages]
    text = "\n".join([f"### {lines[0]}", *lines[1:-1], f"-# {lines[-1]}"])
    return layout(discord.ui.Container[discord.ui.LayoutView](text_block(text)))


@dataclass
class HintShown:
    """One hint answer shown: the click it answered (whose token edits it), the hint, the
    language and the table version its decision stands at (the one it was asked at, or the one
    its decision was met again at after a take-back)."""

    interaction: discord.Interaction[Any]
    answer: HintAnswer
    locale: str
    at: float  # when it was shown (the clock of :class:`GivenHints`)
    version: int


@dataclass
class GivenHints:
    """The hint answers shown, per (table, person), until the decision they were for is made,
    and those marked as no longer applying, until their decision is met again after a
    take-back (``clock``: the time in seconds, injectable for tests)."""

    clock: Callable[[], float] = time.time
    _given: dict[tuple[int, int], list[HintShown]] = field(default_factory=dict)
    _passed: dict[tuple[int, int], list[HintShown]] = field(default_factory=dict)

    def remember(self, interaction: discord.Interaction[Any], answer: HintAnswer,
                 locale: str) -> HintShown:
        """``interaction`` was answered with ``answer``: what is kept of it."""
        shown = HintShown(interaction, answer, locale, self.clock(), answer.record.version)
        self._keep(self._given, (answer.record.id, interaction.user.id), [shown])
        return shown

    @staticmethod
    def _keep(where: dict[tuple[int, int], list[HintShown]], key: tuple[int, int],
              answers: list[HintShown]) -> None:
        """Keep ``answers`` under ``key`` in ``where``, the last :data:`KEPT` of them."""
        if answers:
            kept = where.setdefault(key, [])
            kept.extend(answers)
            del kept[:-KEPT]

    def _take(self, where: dict[tuple[int, int], list[HintShown]], key: tuple[int, int],
              taken: Callable[[HintShown], bool]) -> list[HintShown]:
        """The answers kept under ``key`` in ``where`` that ``taken`` picks, taken out; the
        others stay, but for those whose click's token has expired (dropped: never tried)."""
        now = self.clock()
        out: list[HintShown] = []
        for given in where.pop(key, []):
            if now - given.at > TOKEN_LIFETIME:
                continue
            if taken(given):
                out.append(given)
            else:
                where.setdefault(key, []).append(given)
        return out

    def applies_at(self, shown: HintShown, version: int) -> bool:
        """``shown``, still kept as applying, applies at ``version`` (its decision met again
        there after a take-back); False when it is kept so no more (a decision made since
        marked it, or it was dropped)."""
        kept = self._given.get((shown.answer.record.id, shown.interaction.user.id), [])
        if not any(given is shown for given in kept):
            return False
        shown.version = version
        return True

    async def decided(self, table: int, user: int, version: int) -> None:
        """A decision of ``user`` was made at ``table`` (by them or for them), which is now at
        ``version``: each of their hint answers for an earlier decision says it no longer
        applies (:meth:`passing`, then :meth:`passed`)."""
        await self.passed(table, self.passing(table, user, version))

    def passing(self, table: int, user: int, version: int) -> list[HintShown]:
        """The hint answers of ``user`` at ``table`` for a decision before ``version``, taken
        out of what is kept (at once, so a table forgotten as its game ends meanwhile still
        has them marked) and kept as passed (a take-back may return to their decision); those
        whose click's token has expired are dropped (never tried)."""
        out = self._take(self._given, (table, user), lambda given: given.version != version)
        self._keep(self._passed, (table, user), out)
        return out

    def any_passed(self, table: int, user: int) -> bool:
        """Whether answers of ``user`` at ``table`` are marked as no longer applying (a
        take-back may return to their decision)."""
        return bool(self._passed.get((table, user)))

    def returning(self, table: int, user: int, version: int, met: int) -> list[HintShown]:
        """The answers of ``user`` at ``table`` marked as no longer applying whose decision,
        first met at version ``met``, is met again at ``version`` (after a take-back): taken
        out of the passed ones and kept again, as applying at ``version`` (see
        :meth:`restored`); those whose click's token has expired are dropped."""
        out = self._take(self._passed, (table, user), lambda given: given.answer.met == met)
        for given in out:
            given.version = version
        self._keep(self._given, (table, user), out)
        return out

    @staticmethod
    async def passed(table: int, passing: list[HintShown]) -> None:
        """Each answer of ``passing`` (:meth:`passing`) says it no longer applies. An answer
        Discord no longer lets the bot edit (dismissed, too old) is left as it is."""
        await GivenHints._redraw(table, passing, passed_view, "mark the hint as passed")

    @staticmethod
    async def restored(table: int, returning: list[HintShown]) -> None:
        """Each answer of ``returning`` (:meth:`returning`) shows its hint again, as it did
        before its decision was made. An answer Discord no longer lets the bot edit is left
        as it is."""
        await GivenHints._redraw(table, returning, hint_view, "show the hint again")

    @staticmethod
    async def _redraw(table: int, answers: list[HintShown],
                      view: Callable[[HintAnswer, str], discord.ui.LayoutView],
                      what: str) -> None:
        """Edit each of ``answers`` to ``view`` of its hint, through its click's token; one
        Discord no longer lets the bot edit is left as it is (``what``: the edit, as the log
        says it)."""
        for given in answers:
            try:
                await given.interaction.edit_original_response(
                    view=view(given.answer, given.locale))
            except discord.HTTPException as exc:
                log.info("could not %s at table %s (%s)", what, table, exc.status)

    def forget(self, table: int) -> None:
        """Drop what is kept for a table that ended."""
        for kept in (self._given, self._passed):
            for key in [k for k in kept if k[0] == table]:
                del kept[key]


async def answer_hint(service: GameService, interaction: discord.Interaction[Any], table: int,
                      version: int, hand_of: int | None, given: GivenHints | None = None) -> None:
    """Acknowledge privately (the hint takes a moment) while the service works the hint out,
    then show it (kept in ``given``, when given: a decision made while it was worked out, by
    the person or by the AI for them, marks it at once as no longer applying, unless a
    take-back returned to it meanwhile); a refusal raises for the click's usual private
    answer, once acknowledged."""
    acknowledging = asyncio.ensure_future(
        interaction.response.defer(ephemeral=True, thinking=True))
    try:
        answer = await service.hints.ask(table, interaction.user.id, version, hand_of=hand_of)
    finally:
        await acknowledging  # an answer or a refusal follows the acknowledgement
    locale = loc(interaction)
    await interaction.edit_original_response(view=hint_view(answer, locale))
    if given is not None:
        shown = given.remember(interaction, answer, locale)
        now = await service.tables.load(table)
        while now.version != shown.version:  # decided while the hint was worked out
            if answer.met is None or await service.hints.met_at(now) != answer.met:
                await given.decided(table, interaction.user.id, now.version)
                return
            # a take-back returned to the hint's decision: it applies, at the version now
            if not given.applies_at(shown, now.version):
                return
            now = await service.tables.load(table)


__all__ = ["GivenHints", "HintShown", "answer_hint", "hint_view", "passed_view"]
