"""The rules of seats that the lobby and the game share: how many, which heroes and AI levels
may be picked, who a seat is called, who must decide, and when a turn's timer runs out."""

from __future__ import annotations

from collections.abc import Sequence

from bot.game.markup import plain
from bot.game.refusals import Illegal, NotSeated, OutOfTurn, Refusal, Stale
from bot.storage.records import SeatInfo, TableRecord
from engine import GameState, Phase
from engine.agents import LEVELS, AiLevel
from engine.catalog import tables
from i18n import Msg, msg

MIN_SEATS = 2
MAX_SEATS = 4
#: The turn timers a host or a server may choose, in seconds (0: none).
#: Beside the short ones, slow matches played across days: 8 hours, 1, 3 and 7 days.
TIMERS = (0, 60, 120, 300, 600, 1800, 3600, 28800, 86400, 259200, 604800)
#: The longest turn timer (seconds): a week.
MAX_TIMER = 7 * 86400


def level_of(text: str) -> AiLevel:
    """The AI level ``text`` names, or a refusal (a forged option or menu value)."""
    for level in LEVELS:
        if level == text:
            return level
    raise Refusal(msg("bot.error.not_in_menu"))


def heroes() -> tuple[str, ...]:
    """The heroes a seat may pick, in catalogue order."""
    return tuple(tables().hero_cards)


def seat_label(record: TableRecord, seat: int) -> Msg | str:
    """What a seat is called in text: its person's name (as they typed it), else its hero's
    name."""
    info = record.seats[seat]
    if info.name:
        return plain(info.name)
    return msg(f"hero.{record.game.seats[seat].hero}.name")


def handed(record: TableRecord) -> tuple[int, ...]:
    """The seats of ``record`` the AI plays now in place of their person: they left the match
    (or their turn timer ran out for good). The game knows its seats as they were set up; the
    table pictures are handed these to show those seats as the AI's, as the texts do."""
    return tuple(i for i, s in enumerate(record.seats) if s.user is not None and s.ai)


def won_for_person(record: TableRecord) -> bool:
    """True when the AI won a finished table in a person's seat: they left it (or their turn
    timer ran out for good) and the AI played it to the end. Every text naming that win marks
    the seat as the AI's, as the end's post does ("Bob [AI]"), never as the person's own."""
    winner = record.game.winner
    return winner is not None and winner in handed(record)


def deadline(now: float, timer: int, seats: Sequence[SeatInfo], state: GameState,
             previous: float | None, new_turn: bool) -> float | None:
    """The turn deadline after a move at time ``now``: a fresh one when a person's turn starts,
    the running one while it goes on, none for an AI seat, a finished game or no timer."""
    if timer <= 0 or state.phase is Phase.OVER or seats[state.current].ai:
        return None
    if new_turn or previous is None:
        return now + timer
    return previous


def turn_end(deadline: float, ends: float | None) -> float:
    """When a turn of ``deadline`` is over: then, or at ``ends`` when that is sooner (the end
    of the tournament's round that opened the match, which decides it as it stands)."""
    return deadline if ends is None else min(deadline, ends)


def playing_seat(record: TableRecord, user_id: int, hand_of: int | None) -> int:
    """The seat of ``user_id`` at the running table, clicking on the hand message shown to
    ``hand_of`` (None: unknown); otherwise the refusal that says why."""
    seat = record.seat_of(user_id)
    if seat is None:
        raise NotSeated(msg("bot.error.not_seated"), record)
    if hand_of is not None and hand_of != user_id:
        raise Refusal(msg("bot.error.not_your_hand"), record)
    if record.status != "running":
        raise Stale(msg("bot.error.game_closed"), record)
    return seat


def deciding_seat(record: TableRecord, user_id: int, version: int, hand_of: int | None,
                  stale: Msg) -> int:
    """The seat of ``user_id`` when that person must decide at ``version`` of the running table
    (see :func:`playing_seat`); otherwise the refusal that says why (``stale``: the answer to a
    click on an older version of the table; a later one was never drawn)."""
    seat = playing_seat(record, user_id, hand_of)
    if version > record.version:  # versions only grow: no bot ever drew this one
        raise Illegal(msg("bot.error.future_button"), record)
    if version != record.version:
        raise Stale(stale, record)
    current = record.game.current
    if seat != current:
        raise OutOfTurn(msg("bot.error.not_your_turn", who=seat_label(record, current)), record)
    if record.seats[seat].ai:
        raise OutOfTurn(msg("bot.error.seat_is_ai"), record)
    return seat


def sees_hand(record: TableRecord, seat: int) -> bool:
    """Whether the person of ``seat`` may see its hand and its private events: not once the AI
    plays it for good (they left it, or their turn timer ran out too often), as the cards the
    AI draws there are hidden from them as every other seat's are, also after the match was
    abandoned (its replay hides every hand); a finished match shows every hand."""
    return not (record.status != "finished" and record.seats[seat].ai)


def next_host(seats: Sequence[SeatInfo], leaving: int) -> int | None:
    """Who hosts a running match once ``leaving`` no longer plays it: the first person seated
    who still plays (not the AI); None when only the AI plays on."""
    return next((s.user for s in seats if s.user is not None and not s.ai
                 and s.user != leaving), None)


def solo(record: TableRecord) -> bool:
    """True for a table only its host plays at (against AI seats): one in direct messages, or
    a guided first match. Only such a table has a Leave button."""
    return record.guild_id is None or record.lessons


__all__ = ["MAX_SEATS", "MAX_TIMER", "MIN_SEATS", "TIMERS", "deadline", "deciding_seat",
           "handed", "heroes", "level_of", "next_host", "playing_seat", "seat_label", "sees_hand",
           "solo", "turn_end", "won_for_person"]
