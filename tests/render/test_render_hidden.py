"""The renderer's inputs carry no hidden information.

The pictures are drawn from an Observation only (never a GameState); the public pictures (table,
battle) are pixel-identical for every viewer, spectators included, even when the observations
differ in private parts; the hand picture refuses a spectator.
"""

from __future__ import annotations

import inspect
import io

import pytest
from msgspec import structs
from PIL import Image, ImageChops

import render
from engine import Event, Observation, observe
from i18n import msg
from render.positions import scene


def pixels(png: bytes) -> Image.Image:
    return Image.open(io.BytesIO(png)).convert("RGB")


def same_pixels(a: bytes, b: bytes) -> bool:
    pa, pb = pixels(a), pixels(b)
    return pa.size == pb.size and ImageChops.difference(pa, pb).getbbox() is None


@pytest.mark.parametrize("draw", [render.table_image, render.battle_image, render.hand_image])
def test_accepts_only_an_observation(draw: object) -> None:
    sc = scene("midgame")
    assert callable(draw)
    params = list(inspect.signature(draw).parameters.values())
    assert params[0].annotation in (Observation, "Observation")
    with pytest.raises(TypeError, match="Observation"):
        draw(sc.state)


def test_hand_refuses_a_spectator() -> None:
    obs = observe(scene("midgame").state, None)
    assert obs.viewer is None
    with pytest.raises(ValueError, match="spectator"):
        render.hand_image(obs)


def test_battle_needs_a_battle() -> None:
    obs = scene("start").observation()
    assert obs.battle is None
    with pytest.raises(ValueError, match="battle"):
        render.battle_image(obs)


@pytest.mark.parametrize("name", ["midgame", "taia"])
def test_public_pictures_identical_for_every_viewer(name: str) -> None:
    state = scene(name).state
    viewers: list[int | None] = [*range(len(state.seats)), None]
    observations = [observe(state, v) for v in viewers]
    # The observations really differ in private parts (hand, events, legal moves) ...
    assert len({(o.hand, o.events, o.legal, o.drawn) for o in observations}) == len(viewers)
    # ... and the public pictures do not.
    tables = [render.table_image(o) for o in observations]
    battles = [render.battle_image(o) for o in observations]
    for png in tables[1:]:
        assert same_pixels(png, tables[0])
    for png in battles[1:]:
        assert same_pixels(png, battles[0])


def test_public_pictures_ignore_private_fields() -> None:
    """Forged private parts (hand, Taia's pair, legal moves, private events) change nothing."""
    obs = scene("midgame").observation()
    other = scene("taia").observation()
    forged = structs.replace(
        obs, viewer=1, hand=other.hand, drawn=other.drawn, legal=other.legal,
        events=obs.events + (Event(msg("event.draw_private", cards="secret"), to=0),),
    )
    assert same_pixels(render.table_image(obs), render.table_image(forged))
    assert same_pixels(render.battle_image(obs), render.battle_image(forged))


def test_hand_shows_only_the_viewers_own_cards() -> None:
    """The hand picture changes with the viewer's hand and stays the same when it does not."""
    obs = scene("midgame").observation()
    assert obs.hand
    emptied = structs.replace(obs, hand=obs.hand[:-1])
    assert not same_pixels(render.hand_image(obs), render.hand_image(emptied))
    other_seat_changed = structs.replace(
        obs, seats=tuple(structs.replace(s, hand_count=s.hand_count + 1)
                    if s.index != obs.viewer else s for s in obs.seats))
    assert same_pixels(render.hand_image(obs), render.hand_image(other_seat_changed))
