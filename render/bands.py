"""Pictures as stacks of bands, each band reduced to the shared palette and compressed once.

A picture is cut into full-width bands (a title, the caverns, a row of seats, a played card...)
that the drawing functions cache by the values they show. When a band is made it is reduced to
one palette shared by every picture and compressed as a self-contained piece of a PNG stream, so
a picture whose bands were all drawn before costs only the joining of their bytes: a move that
changes one band reduces and compresses that band alone.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass
from functools import cache

from PIL import Image, ImageDraw

from render.style import (
    BG,
    CARD_DARK,
    CARD_INNER,
    CHIP_BG,
    COLOURS,
    EQUIP_INNER,
    GOLD,
    GOOD,
    INK,
    KEY_COLOURS,
    LEVEL_FRAME,
    LINE,
    MUTED,
    NEXT_BAND,
    PANEL,
    PANEL_HI,
    WIDTH,
)

#: zlib level of the bands: level 2 compresses these palette rows as quickly as level 1 and
#: some 5 % smaller (measured on the pictures of a load run; level 3 is a third slower).
LEVEL = 2


@dataclass(frozen=True)
class Band:
    """A full-width strip of a picture: its rows of palette indices (each led by PNG's "no
    filter" byte) compressed into a self-contained piece of a deflate stream, with their length
    and Adler-32 checksum (the stream's checksum is combined from its bands')."""

    height: int
    size: int
    check: int
    deflated: bytes


_BASE = 65521  # the Adler-32 modulus


def adler32_combine(first: int, second: int, second_size: int) -> int:
    """The Adler-32 of two byte strings one after the other, from their checksums and the
    second's length (zlib's adler32_combine, which Python's zlib does not offer)."""
    rem = second_size % _BASE
    low = first & 0xFFFF
    high = (rem * low) % _BASE
    low += (second & 0xFFFF) + _BASE - 1
    high += ((first >> 16) & 0xFFFF) + ((second >> 16) & 0xFFFF) + _BASE - rem
    low = low - _BASE if low >= _BASE else low
    low = low - _BASE if low >= _BASE else low
    high = high - 2 * _BASE if high >= 2 * _BASE else high
    high = high - _BASE if high >= _BASE else high
    return low | (high << 16)


@cache
def palette() -> Image.Image:
    """The palette every picture shares: the style's flat colours, and the colours of a sheet of
    every icon and of each ink's anti-aliased edges over each background."""
    from render.icons import colour_badge, curse_icon, icon
    from render.painters import PAINTERS

    grounds = [BG, PANEL, PANEL_HI, CARD_DARK, CARD_INNER, CHIP_BG, EQUIP_INNER, NEXT_BAND,
               *COLOURS.values(), *LEVEL_FRAME.values()]
    inks = [INK, MUTED, LINE, GOLD, GOOD, (235, 70, 60), (30, 30, 34), (255, 250, 235)]
    sprites = [icon(name, 40) for name in sorted(PAINTERS)]
    sprites += [colour_badge(c, 40) for c in COLOURS]
    sprites += [curse_icon(c, 40) for c in (*COLOURS, "attack", "defence", "draw", "heal")]
    # Each ink's anti-aliased edge over each ground: a smoothly shrunk disc (as text's edges).
    disc = Image.new("L", (160, 160), 0)
    ImageDraw.Draw(disc).ellipse((8, 8, 152, 152), fill=255)
    edge = disc.resize((20, 20), Image.Resampling.LANCZOS)
    sheet = Image.new("RGB", (max(40 * len(sprites), 20 * len(inks)), 60 * len(grounds)))
    d = ImageDraw.Draw(sheet)
    for j, ground in enumerate(grounds):
        d.rectangle((0, 60 * j, sheet.width, 60 * j + 59), fill=ground)
        for i, sprite in enumerate(sprites):
            sheet.paste(sprite, (40 * i, 60 * j), sprite)
        for k, ink in enumerate(inks):
            sheet.paste(ink, (20 * k, 60 * j + 40, 20 * k + 20, 60 * j + 60), edge)
    own = 256 - len(KEY_COLOURS)
    reduced = sheet.quantize(colors=own, method=Image.Quantize.FASTOCTREE,
                             dither=Image.Dither.NONE)
    learnt = (reduced.getpalette() or [])[: 3 * own]
    values = [v for c in KEY_COLOURS for v in c] + learnt  # flat colours first: kept exact
    values += [0] * (768 - len(values))
    out = Image.new("P", (1, 1))
    out.putpalette(values)
    return out


def band(img: Image.Image) -> Band:
    """``img`` (an RGB strip WIDTH wide) reduced to the shared palette and compressed."""
    indices = img.quantize(palette=palette(), dither=Image.Dither.NONE)
    # each row led by PNG's "no filter" byte: the indices pasted one column in on zeros
    led = Image.new("P", (WIDTH + 1, img.height), 0)
    led.paste(indices, (1, 0))
    rows = led.tobytes()
    packer = zlib.compressobj(LEVEL, zlib.DEFLATED, -15)
    return Band(img.height, len(rows), zlib.adler32(rows),
                packer.compress(rows) + packer.flush(zlib.Z_FULL_FLUSH))


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def encode(bands: list[Band]) -> bytes:
    """The PNG of ``bands`` one under the other: their compressed pieces joined into one
    stream (ended by an empty final block and the stream's checksum)."""
    check = 1  # the Adler-32 of nothing
    for b in bands:
        check = adler32_combine(check, b.check, b.size)
    stream = b"\x78\x01" + b"".join(b.deflated for b in bands) + b"\x03\x00" \
        + struct.pack(">I", check)
    height = sum(b.height for b in bands)
    header = struct.pack(">IIBBBBB", WIDTH, height, 8, 3, 0, 0, 0)
    colours = bytes(palette().getpalette() or [])[:768]
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"PLTE", colours)
            + _chunk(b"IDAT", stream) + _chunk(b"IEND", b""))


def palette_image(bands: list[Band]) -> Image.Image:
    """The picture of ``bands`` as a palette image in the shared palette, read straight from
    their compressed rows (no PNG made and read back)."""
    rows = zlib.decompressobj(-15).decompress(b"".join(b.deflated for b in bands))
    height = sum(b.height for b in bands)
    # Each row is led by its filter byte: read them as a first column, then cut it off.
    out = Image.frombytes("L", (WIDTH + 1, height), rows).crop((1, 0, WIDTH + 1, height))
    out.putpalette(palette().getpalette() or [])  # makes it a palette image
    return out


def image(bands: list[Band]) -> Image.Image:
    """The RGB picture of ``bands`` (for tools and tests that look at pixels)."""
    import io

    return Image.open(io.BytesIO(encode(bands))).convert("RGB")
