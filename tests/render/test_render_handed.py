"""A seat the AI took over from a person who left it (``handed``): the table picture marks it
as the AI's, as the bot's texts do ("Bob [AI]" in the winner's header, the AI pill in its panel),
in every language; its key and cached bands change with the mark; a replay's animation marks it
on the match's end only."""

from __future__ import annotations

import io

import pytest
from msgspec import structs
from PIL import Image, ImageChops

import render
from engine import Phase
from engine.observe import Observation
from render.animation import animation
from render.positions import scene
from render.style import forget_drawings, record_text

BOB = 2  # a person's seat in the midgame scene (seat 1 is the AI's own)
LONG = "Jean-Baptiste de la Fontaine"
WON = {"en": "{} [AI] wins!", "fr": "{} [IA] gagne\u00a0!", "cs": "Vítězí {} [AI]!"}
AI = {"en": "AI", "fr": "IA", "cs": "AI"}


def _table(name: str = "Bob", over: bool = False) -> Observation:
    base = scene("midgame").observation()
    assert not base.seats[BOB].ai and base.seats[1].ai
    obs = structs.replace(base, seats=tuple(structs.replace(s, name=name) if s.index == BOB
                                            else s for s in base.seats))
    return structs.replace(obs, phase=Phase.OVER, winner=BOB) if over else obs


def _texts(obs: Observation, locale: str, handed: tuple[int, ...] = ()) -> list[str]:
    forget_drawings()
    with record_text() as drawn:
        render.table_image(obs, locale, handed)
    forget_drawings()
    return [d.wanted for d in drawn]


@pytest.mark.parametrize("locale", ["en", "fr", "cs"])
@pytest.mark.parametrize("name", ["Bob", LONG])
def test_the_ai_s_win_in_a_person_s_seat_is_the_ai_s_in_the_header_and_panel(
        locale: str, name: str) -> None:
    """Bob left and the AI won in his seat: the header names the win as the AI's, and his panel
    carries the AI pill as the AI's own seat's does; without the seat handed, neither."""
    won = WON[locale].format(name)
    texts = _texts(_table(name, over=True), locale, (BOB,))
    assert won in " ".join(texts), texts  # on two lines when long
    assert texts.count(AI[locale]) == 2, texts  # the AI's own seat's pill, and Bob's
    before = _texts(_table(name, over=True), locale)
    assert not [t for t in before if "[" in t], before
    assert before.count(AI[locale]) == 1, before


def test_a_running_table_redraws_the_panel_of_a_seat_that_changed_hands() -> None:
    """A person leaves a running table: its key changes, and the picture drawn from the cached
    bands shows the AI pill on their panel (as one drawn from scratch does); only the band of
    their row of seats is new, the header stays (it is not the end)."""
    obs = _table()
    forget_drawings()
    theirs = render.table_image(obs)
    handed = render.table_image(obs, "en", (BOB,))
    assert render.table_key(obs) != render.table_key(obs, "en", (BOB,))
    assert render.table_key(obs, "en", (BOB,)) == render.table_key(obs, "en", (BOB,))
    forget_drawings()
    assert handed == render.table_image(obs, "en", (BOB,)) != theirs
    rows = [y for y, (a, b) in enumerate(zip(_rows(theirs), _rows(handed), strict=True))
            if a != b]
    assert rows and min(rows) > 0.75 * len(_rows(theirs)), rows  # the seats' last row only
    assert "Bob's turn" not in " ".join(_texts(obs, "en", (BOB,)))  # Kateřina's turn
    assert not [t for t in _texts(obs, "en", (BOB,)) if "[AI]" in t]


def test_the_winner_s_mark_is_in_the_table_key() -> None:
    """The key holds the header's mark itself, not only the panels' pills (a seat whose pill
    shows already, the AI's own, changes the header alone)."""
    over = _table(over=True)
    assert render.table_key(over) != render.table_key(over, "en", (BOB,))
    assert render.table_key(over, "en", (BOB,)) != render.table_key(over, "fr", (BOB,))
    own = structs.replace(over, winner=1)
    assert render.table_image(own, "en", (1,)) != render.table_image(own)
    assert render.table_key(own, "en", (1,)) != render.table_key(own)


def _rows(png: bytes) -> list[bytes]:
    picture = Image.open(io.BytesIO(png)).convert("RGB")
    return [picture.crop((0, y, picture.width, y + 1)).tobytes() for y in range(picture.height)]


def _frames(gif: bytes) -> list[Image.Image]:
    picture = Image.open(io.BytesIO(gif))
    out = []
    for i in range(picture.n_frames):
        picture.seek(i)
        out.append(picture.convert("RGB"))
    return out


def test_a_replay_s_animation_marks_the_seat_on_the_match_s_end_only() -> None:
    """When the AI took the seat over is not in the replay: the frames of turns show the seat
    as set up, the end's frame marks the AI's win in it."""
    running, over = _table(), _table(over=True)
    plain = _frames(animation([running, over], "en"))
    marked = _frames(animation([running, over], "en", (BOB,)))
    assert ImageChops.difference(plain[0], marked[0]).getbbox() is None
    assert ImageChops.difference(plain[1], marked[1]).getbbox() is not None
    forget_drawings()
    with record_text() as drawn:
        animation([running, over], "en", (BOB,))
    forget_drawings()
    assert "Bob [AI] wins!" in [d.wanted for d in drawn]
