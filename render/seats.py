"""The seats of the table picture: two panels a row, in turn order (the next player is to the
right, then below).

Each panel shows what a glance at the table needs: the name (turn arrow, trophy, AI pill, the
hero's colour), hit points and keys by level, then potions, weapon and armour. The AI pill marks
a seat set up for the AI and one it took over from a person who left (see :data:`Handed`). The
table message's text gives each seat's hero, equipment names and hand size; the seat in battle
shows a sword instead of its hit points (they change with every card it plays: see the battle
picture).
"""

from __future__ import annotations

from dataclasses import dataclass

from msgspec.structs import replace
from PIL import Image, ImageDraw

from engine.catalog import tables
from engine.observe import Observation, SeatView
from engine.state import MAX_HP, Phase
from i18n import translate
from render.bands import Band, band
from render.icons import icon, paste
from render.layout import BANDS, may_shorten, name_text
from render.style import (
    BG,
    GOLD,
    HERO_COLOUR,
    INK,
    KEY_OFF,
    LINE,
    MIN_TEXT,
    PANEL,
    PANEL_HI,
    WIDTH,
    draw_text,
    new_canvas,
    panel,
    remembered,
    text_width,
)

GRID_X = 6
GAP = 8
PAD = 10
NAME_ROW = 38
ROW = 34
HEART = 22
HEARTS_W = 5 * (HEART + 3) + 6  # the hit points (or the fighter's mark), then the keys
NAME_PX = 30
PER_ROW = 2
SEAT_W = (WIDTH - 2 * GRID_X - (PER_ROW - 1) * GAP) // PER_ROW
INNER = SEAT_W - 2 * PAD
#: The seats the AI plays now in place of the person seated there (they left the match, or
#: their turn timer ran out for good), in seat order: the observation holds the seats as the
#: table was set up, the bot knows who plays them now. Their panels show the AI pill.
Handed = tuple[int, ...]


def hearts(img: Image.Image, hp: int, x: int, y: int, size: int) -> int:
    """HP as hearts, lost HP as skulls; returns the x after the last icon."""
    for i in range(MAX_HP):
        paste(img, icon("heart" if i < hp else "skull", size), (x, y))
        x += size + 3
    return x


def _bonuses(item: str) -> list[tuple[str, int]]:
    info = tables().equipment[item]
    return [(e, v) for e, v in (("attack", info.attack), ("defence", info.defence),
                                ("heal", info.heal), ("hand", info.hand)) if v]


EQUIP_ICON = 30
BONUS_ICON = 22


def equipment_chip_width(item: str) -> int:
    """The width :func:`equipment_chip` takes."""
    return EQUIP_ICON + 2 + sum(BONUS_ICON + 2 + text_width(f"+{v}", MIN_TEXT) + 6
                                for _, v in _bonuses(item))


def equipment_chip(img: Image.Image, d: ImageDraw.ImageDraw, item: str, x: int, y: int) -> int:
    """A weapon or armour as its icon followed by its bonuses; returns the x after it."""
    paste(img, icon(tables().equipment[item].kind, EQUIP_ICON), (x, y))
    x += EQUIP_ICON + 2
    cy = y + EQUIP_ICON // 2
    for effect, value in _bonuses(item):
        paste(img, icon(effect, BONUS_ICON), (x, cy - BONUS_ICON // 2))
        x += BONUS_ICON + 2
        x += draw_text(d, (x, cy), f"+{value}", MIN_TEXT, anchor="lm") + 6
    return x


def _kit_row(s: SeatView) -> bool:
    """Whether the seat's panel needs its third line (potions, weapon, armour)."""
    return bool(s.potions) or s.weapon is not None or s.armour is not None


def _panel_height(kit: bool) -> int:
    return 6 + NAME_ROW + ROW + (ROW if kit else 0) + 6


@dataclass(frozen=True)
class Turn:
    """What a seat panel shows of the game around it: whose turn, who won, who fights."""

    current: int | None  # None once the game is over
    winner: int | None
    fighter: int | None


def _name_row(img: Image.Image, d: ImageDraw.ImageDraw, s: SeatView, x0: int, y: int,
              turn: bool, won: bool, locale: str) -> None:
    left, right = x0 + PAD, x0 + SEAT_W - PAD
    d.rectangle((x0 + 4, y + 6, x0 + 9, y + NAME_ROW - 6), fill=HERO_COLOUR.get(s.hero, INK))
    tx = left + 2
    mid = y + NAME_ROW // 2
    for shown, mark in ((turn, "arrow"), (won, "trophy")):
        if shown:
            paste(img, icon(mark, 30), (tx, mid - 15))
            tx += 34
    if s.ai:  # a pill saying the seat is played by the bot
        label = translate("render.ai", locale)
        lw = text_width(label, MIN_TEXT) + 16
        d.rounded_rectangle((right - lw, mid - 16, right, mid + 16), radius=16, fill=LINE)
        draw_text(d, (right - lw // 2, mid), label, MIN_TEXT, anchor="mm", max_width=lw)
        right -= lw + 6
    draw_text(d, (tx, mid), name_text(s.name, locale), NAME_PX, anchor="lm", condensed=True,
              max_width=right - tx, may_shorten=may_shorten(s.name))


def _kit(img: Image.Image, d: ImageDraw.ImageDraw, s: SeatView, x: int, cy: int) -> None:
    """Potions held, then weapon and armour (with their bonuses when the line has room)."""
    items = [i for i in (s.weapon, s.armour) if i is not None]
    full = 26 * len(s.potions) + 8 + sum(equipment_chip_width(i) + 10 for i in items)
    for p in s.potions:
        paste(img, icon(f"potion.{p}", 26), (x, cy - 13))
        x += 26
    x += 8
    for item in items:
        if full <= INNER:
            x = equipment_chip(img, d, item, x, cy - EQUIP_ICON // 2) + 10
        else:  # the kind alone: the bonuses are in the table's text and the hand picture
            paste(img, icon(tables().equipment[item].kind, EQUIP_ICON),
                  (x, cy - EQUIP_ICON // 2))
            x += EQUIP_ICON + 8


def _seat(img: Image.Image, d: ImageDraw.ImageDraw, game: Turn, s: SeatView,
          box: tuple[int, int, int, int], locale: str, kit: bool) -> None:
    x0, y0, _, _ = box
    turn = s.index == game.current
    won = game.winner == s.index
    panel(d, box, fill=PANEL_HI if turn else PANEL, outline=GOLD if (turn or won) else LINE,
          width=5 if turn else 2, radius=10)
    left = x0 + PAD
    y = y0 + 6
    _name_row(img, d, s, x0, y, turn, won, locale)
    y += NAME_ROW
    cy = y + ROW // 2
    if game.fighter == s.index:  # hit points change with the cards played: see the battle
        paste(img, icon("attack", 30), (left + 4, cy - 15))
    else:
        hearts(img, s.hp, left, cy - HEART // 2, HEART)
    # Keys held by level: a gold key and its level, or a dark key and a dim level.
    kx = left + HEARTS_W
    for level in (1, 2, 3):
        held = level in s.keys
        paste(img, icon("key", 22, GOLD if held else KEY_OFF), (kx, cy - 11))
        kx += 23
        kx += draw_text(d, (kx, cy), str(level), MIN_TEXT, fill=INK if held else LINE,
                        anchor="lm") + 5
    if kit:
        _kit(img, d, s, left, y + ROW + ROW // 2)


@remembered(BANDS)
def _row_band(seats: tuple[SeatView, ...], game: Turn, kit: bool, locale: str) -> Band:
    h = _panel_height(kit)
    img, d = new_canvas(WIDTH, h + GAP, BG)
    for col, seat in enumerate(seats):
        x = GRID_X + col * (SEAT_W + GAP)
        _seat(img, d, game, seat, (x, 0, x + SEAT_W, h), locale, kit)
    return band(img)


def shown(seat: SeatView, handed: Handed = ()) -> SeatView:
    """``seat`` with what its panel does not show (hand, deck and discard) blanked, and marked
    as the AI's when it is ``handed`` to it: a band's key then holds only what the band draws,
    so a card drawn or discarded keeps the band, and a seat changing hands draws it again."""
    return replace(seat, ai=seat.ai or seat.index in handed, hand_count=0, hand_size=0,
                   deck_count=0, discard=(), stacking="")


def seat_bands(obs: Observation, locale: str, handed: Handed = ()) -> list[Band]:
    """The seat panels in turn order, PER_ROW a band (each band is drawn again only when one
    of its seats changed; ``handed``: see :data:`Handed`)."""
    kit = any(_kit_row(s) for s in obs.seats)
    game = (None if obs.phase is Phase.OVER else obs.current, obs.winner,
            obs.battle.seat if obs.battle is not None else None)
    bands = []
    for i in range(0, len(obs.order), PER_ROW):
        row = tuple(shown(obs.seats[s], handed) for s in obs.order[i:i + PER_ROW])
        here = {s.index for s in row}  # a band knows only what concerns its own seats
        turn = Turn(*(g if g in here else None for g in game))
        bands.append(_row_band(row, turn, kit, locale))
    return bands
