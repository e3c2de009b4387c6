"""Which picture each message carries: kept pictures are sent back, a message edited in another
language belongs to that language only, and the oldest messages are forgotten first."""
from __future__ import annotations

from types import SimpleNamespace
from typing import cast

import discord

from bot.discord_side.shown import Shown


def message(mid: int, *names: str) -> discord.Message:
    """What :meth:`Shown.remember` reads of a message: its id and attachments."""
    files = [SimpleNamespace(filename=n, id=mid * 10 + i) for i, n in enumerate(names)]
    return cast(discord.Message, SimpleNamespace(id=mid, attachments=files))


def test_a_picture_is_kept_only_for_its_message_and_key() -> None:
    shown = Shown()
    shown.remember((1, None, "en"), message(5, "table.png"), {"table.png": "k1"})
    kept = shown.kept((1, None, "en"), 5, "table.png", "k1")
    assert kept is not None and kept.id == 50
    assert shown.kept((1, None, "en"), 5, "table.png", "k2") is None  # it changed
    assert shown.kept((1, None, "en"), 6, "table.png", "k1") is None  # another message
    assert shown.kept((1, None, "en"), None, "table.png", "k1") is None  # a new message
    assert shown.kept((1, 0, "en"), 5, "table.png", "k1") is None  # another slot


def test_a_message_edited_in_another_language_is_that_language_only() -> None:
    shown = Shown()
    shown.remember((1, None, "en"), message(5, "table.png"), {"table.png": "k1"})
    shown.remember((1, None, "fr"), message(5, "table.png"), {"table.png": "k1"})
    assert shown.kept((1, None, "en"), 5, "table.png", "k1") is None
    assert shown.kept((1, None, "fr"), 5, "table.png", "k1") is not None
    assert len(shown) == 1
    shown.remember((1, None, "en"), message(5, "table.png"), {"table.png": "k1"})
    assert shown.kept((1, None, "fr"), 5, "table.png", "k1") is None
    assert len(shown) == 1


def test_the_oldest_messages_are_forgotten_first() -> None:
    shown = Shown(size=2)
    for table in (1, 2, 3):
        shown.remember((table, None, "en"), message(table, "hand.png"), {"hand.png": "k"})
    assert len(shown) == 2
    assert shown.kept((1, None, "en"), 1, "hand.png", "k") is None
    assert shown.kept((3, None, "en"), 3, "hand.png", "k") is not None
    # a slot that moved on to a new message no longer owns the old one
    shown.remember((3, None, "en"), message(4, "hand.png"), {"hand.png": "k"})
    shown.remember((2, None, "fr"), message(3, "hand.png"), {"hand.png": "k"})
    assert shown.kept((3, None, "en"), 4, "hand.png", "k") is not None
    shown.forget(3)
    shown.drop((2, None, "fr"))
    assert len(shown) == 0


def test_a_picture_missing_from_the_message_is_drawn_again() -> None:
    shown = Shown()
    shown.remember((1, 0, "en"), message(7, "hand.png"), {"hand.png": "h", "battle.png": "b"})
    assert shown.kept((1, 0, "en"), 7, "battle.png", "b") is None
    assert shown.kept((1, 0, "en"), 7, "hand.png", "h") is not None
