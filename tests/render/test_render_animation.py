"""render.animation: a whole long match as a GIF that Pillow reads back, one frame per turn and
the end held longest, within the size limit; and the limits that keep a longer match small."""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageChops

from engine import new_game
from engine.replay import Replay
from engine.simulate import moves, seated
from render import animation, table_image
from render.animation import LAST_MS, MAX_BYTES, MAX_FRAMES, match_animation, match_steps, spread

SEED = 12  # a 4-seat match of several hundred moves between reach agents


@pytest.fixture(scope="module")
def match() -> Replay:
    config = seated(SEED, 4, abilities=True)
    return Replay(config, [action for _, action, _, _ in moves(new_game(config), "reach")])


def _frames(gif: bytes) -> list[tuple[Image.Image, int]]:
    """Each frame of ``gif`` as Pillow shows it (RGB), with its duration."""
    picture = Image.open(io.BytesIO(gif))
    assert picture.format == "GIF"
    out = []
    for index in range(picture.n_frames):
        picture.seek(index)
        out.append((picture.convert("RGB"), int(picture.info["duration"])))
    return out


def _same(shown: Image.Image, png: bytes) -> bool:
    """Whether ``shown`` starts with the picture ``png`` (the frame may be padded below)."""
    expected = Image.open(io.BytesIO(png)).convert("RGB")
    top = shown.crop((0, 0, *expected.size))
    return ImageChops.difference(top, expected).getbbox() is None


def test_a_long_match_animates_within_the_limits(match: Replay) -> None:
    assert match.last > 300 and match.finished
    steps = match_steps(match)
    assert steps == [*match.turn_starts(), match.last] and len(steps) > 60
    gif = match_animation(match)
    assert len(gif) <= MAX_BYTES
    frames = _frames(gif)
    assert len(frames) == len(steps) <= MAX_FRAMES
    assert {f.size for f, _ in frames} == {frames[0][0].size}
    durations = [d for _, d in frames]
    assert durations[-1] == LAST_MS and max(durations[:-1]) < LAST_MS
    # What each frame shows: the spectator's table at its step (the first, a middle one, the end).
    for index in (0, len(steps) // 2, len(steps) - 1):
        assert _same(frames[index][0], table_image(match.view(steps[index])))


def test_spread_keeps_the_ends_evenly() -> None:
    items = list(range(100))
    assert spread(items, 200) == items
    chosen = spread(items, 10)
    assert len(chosen) == 10 and chosen[0] == 0 and chosen[-1] == 99
    gaps = {b - a for a, b in zip(chosen, chosen[1:], strict=False)}
    assert max(gaps) - min(gaps) <= 1
    assert spread(items, 1) == [0, 99]


def test_a_longer_match_keeps_fewer_frames(match: Replay,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    views = [match.view(step) for step in match_steps(match)[-12:]]
    monkeypatch.setattr(animation, "MAX_FRAMES", 5)
    frames = _frames(animation.animation(views))
    assert len(frames) == 5
    assert _same(frames[0][0], table_image(views[0]))
    assert _same(frames[-1][0], table_image(views[-1]))


def test_a_file_too_large_is_made_again_with_fewer_frames(match: Replay,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    views = [match.view(step) for step in match_steps(match)[:16]]
    whole = animation.animation(views)
    monkeypatch.setattr(animation, "MAX_BYTES", len(whole) // 3)
    smaller = animation.animation(views)
    assert len(smaller) <= len(whole) // 3 or len(_frames(smaller)) == 2
    assert 2 <= len(_frames(smaller)) < len(views)


def test_a_match_not_begun_is_one_frame_and_no_picture_no_animation(match: Replay) -> None:
    frames = _frames(match_animation(Replay(match.config, [])))
    assert len(frames) == 1 and _same(frames[0][0], table_image(match.view(0)))
    with pytest.raises(ValueError):
        animation.animation([])
