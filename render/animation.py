"""An animated picture of a whole match, for sharing: the table as a spectator saw it at the
start of each turn, then the end of the match, held longer, as a looping GIF.

Every frame is the table picture (:func:`render.table.draw_table`) in the palette all pictures
share, so no frame needs its colours reduced, and the GIF's one colour table is that palette.
Frames are padded to the tallest with the table's background. Each frame after the first keeps
only the pixels that changed (Pillow writes the rest as transparent), so a match of some 150
turns takes a few MiB. A longer match keeps an evenly spread choice of its turns
(:data:`MAX_FRAMES`), and a file over :data:`MAX_BYTES` is made again from half as many.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import TypeVar

from PIL import Image

from engine.observe import Observation
from engine.replay import Replay
from render.bands import palette, palette_image
from render.seats import Handed
from render.style import BG
from render.table import draw_table

#: How long each turn shows, and the end of the match (the winner's table).
FRAME_MS = 500
LAST_MS = 5000
#: The most frames an animation holds, and the largest file it may be (small enough to be
#: shared anywhere, a Discord upload without a subscription included).
MAX_FRAMES = 240
MAX_BYTES = 8 * 1024 * 1024

T = TypeVar("T")


def spread(items: Sequence[T], count: int) -> list[T]:
    """At most ``count`` (at least 2) of ``items``, evenly spread, the first and last kept."""
    if len(items) <= count:
        return list(items)
    count = max(2, count)
    last = len(items) - 1
    return [items[round(i * last / (count - 1))] for i in range(count)]


def frame(view: Observation, locale: str, handed: Handed = ()) -> Image.Image:
    """The table picture of ``view`` as a palette image (``handed``: see
    :func:`render.table.draw_table`)."""
    return palette_image(draw_table(view, locale, handed))


def _gif(frames: list[Image.Image]) -> bytes:
    """The looping GIF of ``frames`` (same size, shared palette), the last held longest."""
    out = io.BytesIO()
    durations = [FRAME_MS] * (len(frames) - 1) + [LAST_MS]
    frames[0].save(out, "GIF", save_all=True, append_images=frames[1:], duration=durations,
                   loop=0, disposal=1, optimize=True)
    return out.getvalue()


def _padded(pictures: list[Image.Image]) -> list[Image.Image]:
    """The pictures on canvases as tall as the tallest, the room below filled with the
    background."""
    height = max(p.height for p in pictures)
    colours = palette().getpalette() or []
    background = [tuple(colours[i:i + 3]) for i in range(0, len(colours), 3)].index(BG)
    out = []
    for picture in pictures:
        if picture.height < height:
            canvas = Image.new("P", (picture.width, height), background)
            canvas.putpalette(colours)
            canvas.paste(picture, (0, 0))
            picture = canvas
        out.append(picture)
    return out


def animation(views: Sequence[Observation], locale: str = "en", handed: Handed = ()) -> bytes:
    """The GIF of the table pictures of ``views`` one after another: each shows for
    :data:`FRAME_MS`, the last for :data:`LAST_MS`; at most :data:`MAX_FRAMES` of them (evenly
    spread, the first and last kept) and at most :data:`MAX_BYTES`. ``handed``: the seats the
    AI played at the match's end in place of the person who left them, marked as the AI's on
    the frames of its end (when the AI took them over is not in the views)."""
    if not views:
        raise ValueError("an animation needs at least one picture")
    chosen = spread(views, MAX_FRAMES)
    pictures = _padded([frame(v, locale, handed if v.winner is not None else ())
                        for v in chosen])
    gif = _gif(pictures)
    while len(gif) > MAX_BYTES and len(pictures) > 2:
        pictures = spread(pictures, len(pictures) // 2)
        gif = _gif(pictures)
    return gif


def match_steps(replay: Replay) -> list[int]:
    """The steps an animation of the match shows: each turn's start, then the last step."""
    steps = list(replay.turn_starts())
    if steps[-1] != replay.last:
        steps.append(replay.last)
    return steps


def match_animation(replay: Replay, locale: str = "en", handed: Handed = ()) -> bytes:
    """The GIF of a whole match (:func:`animation` of the spectator's view at each of
    :func:`match_steps`, with ``handed``)."""
    return animation([replay.view(step) for step in match_steps(replay)], locale, handed)
