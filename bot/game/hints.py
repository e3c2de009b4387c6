"""Hints: a person at a table with hints on asks what the hard AI would play in their place.

The rules: hints are a table setting (:func:`hints_by_default` when the host did not choose); only
the person who must decide may ask, on the decision in front of them (a Hint button of an older
decision is refused as stale, saying whether a move was taken back since), and one hint per person
and decision: the hint is kept in the store, so a second click, even after a restart, gets the same
hint back (said to be given again) and the hints a person used are counted there
(:meth:`Storage.hints_used`). A decision is kept under the table version it was first met at: taking
a move back returns to a decision met before (:func:`first_met`), whose hint is the one given again,
and so does cancelling a purchase before paying (the merchant's decision is in front of the seat
again); changing the deck stacking preference, a standing setting (D5), does not end the decision
in front of the seat, so its hint stays the one of that decision (:func:`setting`).
The hint is worked out from the seat's observation alone, in the hint worker
(:meth:`Thinking.hint`), with no table lock held: asking changes nothing at the table, so the checks
read the table as it is (a stored record is never changed in place) without waiting behind a move or
a table message's edit. Also the Discord-free lines of a hint's answer (:func:`hint_lines`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from bot.game.lessons import Lesson
from bot.game.refusals import OutOfTurn, Refusal, Stale
from bot.game.seats import deciding_seat, sees_hand
from bot.game.tables import Tables
from bot.game.texts import describe
from bot.storage.interface import Storage
from bot.storage.records import UNDO, LogRow, SeatInfo, TableRecord
from bot.workers.thinking import Thinking, pack_hint, unpack_hint
from engine import Action, CancelPurchase, Observation, SetStacking, observe
from engine.agents.hint import Hint
from i18n import Msg, msg

log = logging.getLogger("karak.bot")
#: One hint asked: (table, version, user).
Key = tuple[int, int, int]


def people(seats: Sequence[SeatInfo]) -> int:
    """How many seats people hold."""
    return sum(1 for s in seats if s.user is not None and not s.ai)


def hints_by_default(seats: Sequence[SeatInfo]) -> bool:
    """Hints when the host did not choose: on when one person plays (against AI seats), off
    when several people play (a hint would be an edge over the others)."""
    return people(seats) == 1


@dataclass(frozen=True, slots=True)
class HintAnswer:
    """A hint given: the table when it was asked, the seat, its observation, the hint, whether
    it was given before (``again``), how many hints the seat used at the table so far, the
    version the decision was first met at (:func:`first_met`; None: unknown) and, in a guided
    match, the moves the lesson in the hand highlights."""

    record: TableRecord
    seat: int
    obs: Observation
    advice: Hint
    again: bool
    used: int
    met: int | None = None
    #: the moves the lesson shown with the decision highlights (a guided match; empty: none)
    lesson: frozenset[str] = frozenset()


@dataclass
class Hints:
    """Asking for hints (``clock`` is injectable for tests)."""

    store: Storage
    tables: Tables
    thinking: Thinking
    #: the lesson the hand of a seat shows now (None: none), as the moves' own
    #: :meth:`bot.game.play.Play.lesson` keeps it
    lesson: Callable[[TableRecord, int], Awaitable[Lesson | None]]
    clock: Callable[[], float] = time.time
    _pending: dict[Key, asyncio.Task[bytes]] = field(default_factory=dict)

    async def ask(self, table_id: int, user_id: int, version: int, *,
                  hand_of: int | None = None) -> HintAnswer:
        """The hint for ``user_id``'s decision at version ``version`` (the Hint button's),
        clicked on the hand message shown to ``hand_of`` (None: unknown)."""
        record = await self.tables.load(table_id)  # read only: no wait behind a table edit
        seat = await self._check(record, user_id, version, hand_of)
        obs = observe(record.game, seat)
        key = (table_id, await self.met_at(record), user_id)
        damaged = False
        try:
            stored = await self.store.stored_hint(*key)
            kept = None if stored is None else unpack_hint(stored)
        except ValueError as exc:  # kept damaged: worked out again, in its place
            log.warning("the hint of user %s at table %s (version %s) is damaged (%s), so "
                        "worked out again", user_id, table_id, key[1], exc)
            kept, damaged = None, True
        again = kept is not None or key in self._pending
        if kept is None:
            task = self._pending.get(key)
            if task is None:  # a double click waits for the same hint
                task = asyncio.get_running_loop().create_task(
                    self._work(key, seat, obs, damaged), name=f"hint-{table_id}-{version}")
                self._pending[key] = task
                task.add_done_callback(lambda _: self._pending.pop(key, None))
            kept = unpack_hint(await asyncio.shield(task))
        used = (await self.store.hints_used(table_id)).get(seat, 0)
        return HintAnswer(record, seat, obs, kept, again, used, key[1],
                          await self._lesson(record, seat))

    async def _lesson(self, record: TableRecord, seat: int) -> frozenset[str]:
        """The moves the lesson shown in ``seat``'s hand highlights, at a guided match; none
        elsewhere."""
        shown = await self.lesson(record, seat)
        return frozenset() if shown is None else shown.highlight

    async def met_at(self, record: TableRecord) -> int:
        """The version at which the decision in front of ``record``'s seat was first met: its
        own, unless a take-back returned to it, or the seat's last move cancelled a purchase
        or changed a setting (only then is the log read: each take-back moves the version on
        and the step back, and such a move, still open to a take-back, is the take-back
        record's last)."""
        game = record.game
        if game.step == record.version and (game.undo is None or not game.undo.moves
                                            or not _keeps(game.undo.moves[-1])):
            return record.version
        return first_met(await self.store.action_log(record.id), record.version)

    def prepare(self, record: TableRecord) -> None:
        """A hand offering the Hint button at ``record`` was shown: the hint workers get ready
        before the first click (drawing a hand, which decides whether it offers the button,
        starts nothing)."""
        if record.hints:
            self.thinking.prepare_hints()

    async def _check(self, record: TableRecord, user_id: int, version: int,
                     hand_of: int | None) -> int:
        """The seat of ``user_id`` when they may ask for a hint at ``version``; else a
        refusal (a Hint button of an older version says, as the move buttons beside it do,
        that the AI plays the seat now, or whether a move was taken back since or it was
        simply played)."""
        try:
            seat = deciding_seat(record, user_id, version, hand_of, msg("bot.hint.stale"))
        except Stale as exc:
            mine = record.seat_of(user_id)
            if mine is not None and not sees_hand(record, mine):
                raise OutOfTurn(msg("bot.error.seat_is_ai"), record) from exc
            if exc.reason.key == "bot.hint.stale" and await self._taken_back_since(record.id,
                                                                                   version):
                raise Stale(msg("bot.hint.taken_back"), record) from exc
            raise
        if not record.hints:
            raise Refusal(msg("bot.hint.off"), record)
        return seat

    async def _taken_back_since(self, table_id: int, version: int) -> bool:
        """Whether a move was taken back at the table since ``version`` (the log's ``undo``
        rows after it)."""
        return any(row.action == UNDO for row in (await self.store.action_log(table_id))[version:])

    async def _work(self, key: Key, seat: int, obs: Observation, mend: bool = False) -> bytes:
        """Work the hint out and keep it (``mend``: in place of the damaged one kept); the hint
        kept (a refusal when no worker could)."""
        try:
            advice = await self.thinking.hint(obs)
        except Exception as exc:  # a worker's trouble: the person may ask again
            log.warning("a hint failed (%s: %s)", type(exc).__name__, exc)
            raise Refusal(msg("bot.hint.failed")) from exc
        table_id, version, user_id = key
        return await self.store.record_hint(table_id, version, user_id, seat, pack_hint(advice),
                                            self.clock(), mend)

    async def used(self, table_id: int) -> dict[int, int]:
        """Seat -> how many hints its person used at the table (none: left out)."""
        return await self.store.hints_used(table_id)


def setting(notation: str) -> bool:
    """Whether the move ``notation`` changes a standing setting (the deck stacking preference,
    D5), which does not end the decision in front of the seat."""
    return notation.split(":", 1)[0] == SetStacking.verb


#: A purchase cancelled before paying: the merchant's decision is in front of the seat again.
CANCEL = str(CancelPurchase())


def _keeps(notation: str) -> bool:
    """Whether the move ``notation`` leads to a decision met before (a purchase cancelled) or
    leaves the one in front of the seat (a setting)."""
    return notation == CANCEL or setting(notation)


def first_met(log: Sequence[LogRow], version: int) -> int:
    """The first version of a table (``log``: its action log, a row a version) at which the
    decision in front of the seat at ``version`` stood: the same moves standing, a purchase
    cancelled taken out with the purchase and settings aside (:func:`setting`); met again when
    a move was taken back (``version`` itself when it is met for the first time)."""
    now = _Decisions()
    for row in log[:version]:
        now.apply(row.action)
    then = _Decisions()
    for met, row in enumerate(log[:version]):
        if then.decided == now.decided:
            return met
        then.apply(row.action)
    return version


@dataclass
class _Decisions:
    """The moves that stand, one action of a log after another (a take-back takes back the
    latest), and ``decided``: those that made a decision, a purchase cancelled taken out with
    the purchase and settings left out."""

    decided: list[str] = field(default_factory=list)
    #: per move that stands, what it did to ``decided`` (the move taken out by a cancel, "" for
    #: a setting, None for a move added), so a take-back undoes it
    _done: list[str | None] = field(default_factory=list)

    def apply(self, action: str) -> None:
        """One more action of the log."""
        if action == UNDO:
            if self._done:  # a take-back takes back the latest move that stands
                done = self._done.pop()
                if done is None:
                    self.decided.pop()
                elif done:
                    self.decided.append(done)
        elif setting(action):
            self._done.append("")
        elif action == CANCEL and self.decided:
            self._done.append(self.decided.pop())
        else:
            self.decided.append(action)
            self._done.append(None)


def hint_lines(answer: HintAnswer) -> list[Msg]:
    """The answer to a hint, line by line: the suggested move named as the hand names it, the
    reason, the estimated chance to win of up to three moves, highest first, each with its
    margin (the suggested one marked), why the suggested move is not first when it is not (then
    in place of a reason that would call it the best chance), in a guided match whose lesson
    highlights other moves that both are open to the player, and the hints used."""
    obs = answer.obs
    advice = answer.advice
    lines = [msg("bot.hint.title", table=answer.record.id)]
    if answer.again:
        lines.append(msg("bot.hint.again"))
    lines.append(msg("bot.hint.best", move=hint_label(advice.best, obs)))
    rows = sorted(zip(advice.moves, advice.margins or (None,) * len(advice.moves),
                      strict=True), key=lambda row: -row[0][1])  # kept hints: best first
    close = rows[0][0][0] != advice.best
    if not (close and advice.reason.key == "hint.best"):  # "the best chance": said below
        lines.append(advice.reason)
    if answer.lesson and str(advice.best) not in answer.lesson:  # a guided match's other voice
        lines.append(msg("bot.hint.answer.lesson"))
    lines.append(msg("bot.hint.answer.chances" if advice.margins else "bot.hint.chances"))
    for (action, chance), margin in rows:
        label = hint_label(action, obs)
        named = msg("bot.hint.answer.suggested", move=label) if action == advice.best else label
        lines.append(chance_line(chance, margin, named))
    if close:
        lines.append(msg("bot.hint.answer.close", move=hint_label(rows[0][0][0], obs)))
    lines.append(msg("bot.hint.used", count=answer.used))
    return lines


def hint_label(action: Action, obs: Observation) -> Msg:
    """A move named as the hand names it, but short enough to stand inside a hint's sentences:
    reviving at full HP without the hand's explanation after a colon."""
    label = describe(action, obs).label
    return msg("bot.hint.short.rest") if label.key == "bot.move.rest" else label


def chance_line(chance: float, margin: float | None, move: Msg) -> Msg:
    """One move's estimated chance to win, with its margin when it has one."""
    percent = round(chance * 100)
    if margin is None:
        return msg("bot.hint.chance", move=move, percent=percent)
    if margin >= 1.0:
        return msg("bot.hint.answer.chance_once", move=move, percent=percent)
    return msg("bot.hint.answer.chance", move=move, percent=percent,
               margin=max(1, round(margin * 100)))


def passed_lines(answer: HintAnswer) -> list[Msg]:
    """What a hint's answer says once the decision it was for has been made."""
    return [msg("bot.hint.title", table=answer.record.id), msg("bot.hint.answer.passed"),
            msg("bot.hint.used", count=answer.used)]


__all__ = ["HintAnswer", "Hints", "chance_line", "first_met", "hint_lines", "hints_by_default",
           "passed_lines", "people", "setting"]
