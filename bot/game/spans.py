"""Lengths of time as words, for turn timers of up to a week: "3 days", "2 days 3 h",
"5 h 20 min", and the time left before a turn's deadline ("2 days 3 h left")."""

from __future__ import annotations

from i18n import Msg, msg

MINUTE = 60
HOUR = 60 * MINUTE
DAY = 24 * HOUR


def span(seconds: int) -> Msg:
    """``seconds`` (at least a minute) in its two largest units, rounded down: days and hours,
    hours and minutes, or minutes (a unit worth nothing is left out)."""
    seconds = max(int(seconds), MINUTE)
    days, rest = divmod(seconds, DAY)
    hours, rest = divmod(rest, HOUR)
    minutes = rest // MINUTE
    if days:
        return _pair(msg("turns.span.day", count=days),
                     msg("turns.span.hour", count=hours) if hours else None)
    if hours:
        return _pair(msg("turns.span.hour", count=hours),
                     msg("turns.span.minute", count=minutes) if minutes else None)
    return msg("turns.span.minute", count=minutes)


def _pair(big: Msg, small: Msg | None) -> Msg:
    return big if small is None else msg("turns.span.pair", big=big, small=small)


def time_left(seconds: float) -> Msg:
    """The time left before a deadline ``seconds`` away, in its two largest units rounded
    down ("2 days 3 h left", "5 h 20 min left", "4 min left"), "less than a minute left", or
    "time is up" once it passed. The sentence agrees with the largest unit's number."""
    if seconds <= 0:
        return msg("turns.left.none")
    if seconds < MINUTE:
        return msg("turns.left.moment")
    whole = int(seconds)
    days, rest = divmod(whole, DAY)
    hours, rest = divmod(rest, HOUR)
    minutes = rest // MINUTE
    if days:
        return (msg("turns.left.day_hour", count=days, hours=hours) if hours
                else msg("turns.left.day", count=days))
    if hours:
        return (msg("turns.left.hour_minute", count=hours, minutes=minutes) if minutes
                else msg("turns.left.hour", count=hours))
    return msg("turns.left.minute", count=minutes)


__all__ = ["DAY", "HOUR", "MINUTE", "span", "time_left"]
