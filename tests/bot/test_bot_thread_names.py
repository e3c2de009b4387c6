"""A thread's name: the game and who plays, within the 100 characters Discord takes."""

from __future__ import annotations

from bot.discord_side.threads import thread_name
from bot.storage.records import SeatInfo, TableRecord


def test_a_long_thread_name_is_cut_at_a_words_end() -> None:
    """Four people with Discord's longest display names (32 characters) make a name longer than
    a thread's 100 characters: it is cut at a word's end, never inside a word."""
    names = ["Annabelle Constance Whitmore-Lee", "Bartholomew Fitzgerald Okonkwo-Z",
             "Cleopatra Evangeline Montgomery", "Dante Alessandro Benedetti-Rossi"]
    seats = tuple(SeatInfo(user=100 + i, name=n) for i, n in enumerate(names))
    record = TableRecord(id=1, guild_id=1, channel_id=2, host_id=100, status="running",
                         abilities=True, timer=0, seed=1, locale="en", seats=seats, state=None,
                         version=0, message_id=None, lobby_message_id=None, deadline=None,
                         winner=None, created_at=0.0, updated_at=0.0, place_key="guild:1")
    name = thread_name(record)
    assert len(name) <= 100 and name.endswith("…")
    assert name == f"Karak · {names[0]}, {names[1]}, Cleopatra Evangeline…"
