"""The public table picture: caverns, Lord, merchant, pawnshop, seats and the latest events.

It draws only public parts of the observation (never ``hand``, ``drawn``, ``legal`` nor private
events), so every viewer, spectators included, gets the same picture.
"""

from __future__ import annotations

from PIL import Image, ImageDraw

from engine.catalog import tables
from engine.names import hero_name
from engine.observe import LevelView, Observation, SeatView
from engine.state import MAX_HP, Phase
from i18n import Msg, Param, msg, translate
from render.cards import card_back, card_chip, card_height, empty_slot, level_pips, monster_card
from render.icons import icon, paste
from render.style import (
    BG,
    GOLD,
    HERO_COLOUR,
    INK,
    IVORY,
    KEY_OFF,
    LINE,
    MUTED,
    PANEL,
    PANEL_HI,
    RGB,
    draw_text,
    new_canvas,
    panel,
    text_width,
)

WIDTH = 1200
MARGIN = 20
CARD_W = 140
CARD_H = card_height(CARD_W)
COL = 150  # column pitch of the cavern grid
LABEL_W = 46
HEADER_H = 70
ROW_H = CARD_H + 18
SEAT_H = 284
EVENT_LINES = 4
EVENT_SIZE = 30
EVENT_MIN_SIZE = 22
EVENT_LINE_H = 40


def name_text(name: Param, locale: str) -> str:
    """A seat's display name (player name or hero name message) as text."""
    if isinstance(name, Msg):
        return translate(name, locale)
    return str(name)


def count_badge(img: Image.Image, d: ImageDraw.ImageDraw, cx: int, cy: int, count: int,
                r: int = 24, fill: RGB = (20, 20, 24), ink: RGB = INK) -> None:
    """A round badge with a number, centred on (cx, cy)."""
    d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=fill, outline=GOLD, width=3)
    draw_text(d, (cx, cy), str(count), round(r * 1.15), fill=ink, anchor="mm")


def pile(img: Image.Image, d: ImageDraw.ImageDraw, x: int, y: int, top: str | None, count: int,
         level: int, locale: str) -> None:
    """A deck: its face-up top card over the backs beneath, with a count badge."""
    if count == 0:
        paste(img, empty_slot(CARD_W - 8), (x, y))
        count_badge(img, d, x + CARD_W - 8, y + CARD_H - 6, 0, r=23)
        return
    for off in (8, 4):
        if count * 4 > off:
            paste(img, card_back(CARD_W - 8, level), (x + off, y + off // 2))
    if top is not None:
        paste(img, monster_card(top, CARD_W - 8, locale), (x, y))
    count_badge(img, d, x + CARD_W - 8, y + CARD_H - 6, count, r=23)


def battle_mark(img: Image.Image, d: ImageDraw.ImageDraw, x: int, y: int, w: int) -> None:
    """Mark the card being fought: a thick gold frame and a sword badge in the card's level
    strip (between the level marks and a gatekeeper's key, never over the name)."""
    h = card_height(w)
    d.rounded_rectangle((x - 5, y - 5, x + w + 4, y + h + 4), radius=w // 12 + 5, outline=GOLD,
                        width=6)
    strip = max(9, w // 11)  # as in render.cards.monster_card
    size = strip + 4
    cx, cy = x + w // 2, y + round(h * 0.2) + max(3, w // 30) + strip // 2
    d.rounded_rectangle((cx - size, cy - size // 2 - 1, cx + size, cy + size // 2 + 1),
                        radius=size // 2 + 1, fill=GOLD, outline=BG, width=2)
    paste(img, icon("attack", size), (cx - size // 2, cy - size // 2))


def _row(img: Image.Image, d: ImageDraw.ImageDraw, lv: LevelView, y: int, locale: str,
         fought: tuple[int, int] | None) -> None:
    x0 = MARGIN + LABEL_W
    # The level: its number (as the bot's menus name it) above its level marks.
    draw_text(d, (MARGIN + 18, y + 24), str(lv.level), 40, fill=IVORY, anchor="mm")
    pip = 20
    for i in range(lv.level):
        level_pips(d, 1, MARGIN + 8, y + 54 + i * (pip + 8), pip, fill=IVORY)
    for slot, card in enumerate(lv.row):
        x = x0 + slot * COL
        if card is None:
            paste(img, empty_slot(CARD_W), (x, y))
            draw_text(d, (x + CARD_W // 2, y + CARD_H // 2), str(slot + 1), 44, fill=LINE,
                      anchor="mm")
        else:
            paste(img, monster_card(card, CARD_W, locale), (x, y))
        if fought == (lv.level, slot + 1):
            battle_mark(img, d, x, y, CARD_W)
        if card is not None:  # the place number, as the bot's fight menu names it
            d.ellipse((x - 10, y + CARD_H - 26, x + 22, y + CARD_H + 6), fill=BG, outline=LINE,
                      width=2)
            draw_text(d, (x + 6, y + CARD_H - 10), str(slot + 1), 22, fill=INK, anchor="mm")
    xd = x0 + 5 * COL + 14
    pile(img, d, xd, y, lv.deck_top, lv.deck_count, lv.level, locale)
    pile(img, d, xd + COL, y, lv.gate_top, lv.gate_count, lv.level, locale)
    if fought == (lv.level, 0):
        battle_mark(img, d, xd + COL, y, CARD_W - 8)


def _lord_row(img: Image.Image, d: ImageDraw.ImageDraw, obs: Observation, y: int,
              locale: str) -> None:
    paste(img, icon("crown", 36), (MARGIN + 4, y + 14))
    x0 = MARGIN + LABEL_W
    paste(img, monster_card(obs.lord, CARD_W, locale), (x0, y))
    if obs.battle is not None and obs.battle.level == 4:
        battle_mark(img, d, x0, y, CARD_W)
    # Merchant: the potion piles with counts.
    mx = x0 + COL + 6
    shopping = obs.phase in (Phase.MERCHANT, Phase.PAY)
    frame, frame_w = (GOLD, 5) if shopping else (None, 3)
    panel(d, (mx, y, mx + 2 * COL - 16, y + CARD_H), fill=PANEL, outline=frame, width=frame_w)
    draw_text(d, (mx + COL - 8, y + 22), translate("render.merchant", locale), 26, fill=MUTED,
              anchor="mm", max_width=2 * COL - 30)
    pw = (2 * COL - 16) // 3
    for i, (kind, n) in enumerate(obs.potion_piles):
        cx = mx + pw * i + pw // 2
        paste(img, icon(f"potion.{kind}", 70), (cx - 35, y + 50))
        draw_text(d, (cx, y + 158), str(n), 40, fill=INK if n else LINE, anchor="mm")
    # Pawnshop: whatever was sold, as small cards.
    px = mx + 2 * COL
    pw_end = WIDTH - MARGIN
    panel(d, (px, y, pw_end, y + CARD_H), fill=PANEL, outline=frame, width=frame_w)
    draw_text(d, (px + 14, y + 22), translate("render.pawnshop", locale), 26, fill=MUTED,
              anchor="lm")
    items = obs.pawnshop
    if not items:
        draw_text(d, ((px + pw_end) // 2, y + CARD_H // 2 + 12),
                  translate("render.empty", locale), 28, fill=LINE, anchor="mm")
        return
    # Cards as chips, in rows; what does not fit is counted.
    chip_h = 44
    cx, cy = px + 14, y + 44
    for i, card in enumerate(items):
        chip = card_chip(card, chip_h)
        if cx + chip.width > pw_end - 10:
            cx, cy = px + 14, cy + chip_h + 8
        if cy + chip_h > y + CARD_H - 4:  # no room left: count the rest in the title
            more = translate(msg("render.more", count=len(items) - i), locale)
            draw_text(d, (pw_end - 14, y + 22), more, 28, fill=GOLD, anchor="rm")
            break
        paste(img, chip, (cx, cy))
        cx += chip.width + 8


def hearts(img: Image.Image, hp: int, x: int, y: int, size: int) -> int:
    """HP as hearts, lost HP as skulls; returns the x after the last icon."""
    for i in range(MAX_HP):
        paste(img, icon("heart" if i < hp else "skull", size), (x, y))
        x += size + 4
    return x


def _seat(img: Image.Image, d: ImageDraw.ImageDraw, obs: Observation, s: SeatView,
          box: tuple[int, int, int, int], locale: str) -> None:
    x0, y0, x1, y1 = box
    turn = s.index == obs.current and obs.phase is not Phase.OVER
    won = obs.winner == s.index
    accent = HERO_COLOUR.get(s.hero, INK)
    panel(d, box, fill=PANEL_HI if turn else PANEL, outline=GOLD if (turn or won) else LINE,
          width=6 if turn else 2)
    d.rectangle((x0 + 10, y0 + 14, x0 + 20, y0 + 58), fill=accent)
    name = name_text(s.name, locale)
    tx = x0 + 30
    if turn:
        paste(img, icon("arrow", 40), (tx, y0 + 16))
        tx += 46
    if won:
        paste(img, icon("trophy", 40), (tx, y0 + 16))
        tx += 46
    right = x1 - 12
    if s.ai:  # a pill saying the seat is played by the bot
        label = translate("render.ai", locale)
        lw = text_width(label, 22) + 20
        d.rounded_rectangle((right - lw, y0 + 20, right, y0 + 50), radius=15, fill=LINE)
        draw_text(d, (right - lw // 2, y0 + 35), label, 22, anchor="mm")
        right -= lw + 8
    draw_text(d, (tx, y0 + 34), name, 34, anchor="lm", max_width=right - tx, min_size=20)
    hero = translate(hero_name(s.hero), locale)
    if hero != name:
        draw_text(d, (x0 + 30, y0 + 66), hero, 22, fill=MUTED, anchor="lm", bold=False,
                  max_width=x1 - x0 - 40)
    hearts(img, s.hp, x0 + 14, y0 + 80, 42)
    # Keys held (one per level, level pips below), then potions held.
    ky = y0 + 132
    kx = x0 + 14
    for level in (1, 2, 3):
        held = level in s.keys
        paste(img, icon("key", 40, GOLD if held else KEY_OFF), (kx, ky))
        level_pips(d, level, kx + 6, ky + 40, 8, fill=INK if held else LINE)
        kx += 44
    kx += 8
    for p in s.potions:
        paste(img, icon(f"potion.{p}", 42), (kx, ky - 2))
        kx += 42
    # Weapon and armour with what they add.
    items = [i for i in (s.weapon, s.armour) if i is not None]
    size = 40
    while size > 24 and sum(equipment_chip_width(i, size) + 14 for i in items) > x1 - x0 - 20:
        size -= 4
    ex = x0 + 14
    for item in items:
        ex = equipment_chip(img, d, item, ex, y0 + 190 + (40 - size) // 2, size) + 14
    # Hand / deck / discard counts.
    cy = y1 - 28
    cx = x0 + 14
    for name_icon, n in (("hand", s.hand_count), ("deck", s.deck_count),
                         ("discard", len(s.discard))):
        paste(img, icon(name_icon, 36), (cx, cy - 18))
        w = draw_text(d, (cx + 40, cy), str(n), 32, anchor="lm")
        cx += 40 + w + 16


def _bonuses(item: str) -> list[tuple[str, int]]:
    info = tables().equipment[item]
    return [(e, v) for e, v in (("attack", info.attack), ("defence", info.defence),
                                ("heal", info.heal), ("hand", info.hand)) if v]


def equipment_chip_width(item: str, size: int) -> int:
    """The width :func:`equipment_chip` takes at ``size``."""
    num, small = round(size * 0.75), round(size * 0.6)
    return size + 2 + sum(small + 2 + text_width(f"+{v}", num) + 6 for _, v in _bonuses(item))


def equipment_chip(img: Image.Image, d: ImageDraw.ImageDraw, item: str, x: int, y: int,
                   size: int = 40) -> int:
    """A weapon or armour as its icon followed by its bonuses; returns the x after it."""
    paste(img, icon(tables().equipment[item].kind, size), (x, y))
    x += size + 2
    num, small = round(size * 0.75), round(size * 0.6)
    for effect, value in _bonuses(item):
        paste(img, icon(effect, small), (x, y + (size - small) // 2))
        x += small + 2
        x += draw_text(d, (x, y + size // 2), f"+{value}", num, anchor="lm") + 6
    return x


def pending_sprite(pending: str, height: int) -> Image.Image:
    """The item being decided: a potion being bought, or a card (won or bought) as a chip."""
    if pending.startswith("potion:"):
        return icon(f"potion.{pending.split(':', 1)[1]}", height)
    if pending in tables().actions or pending in tables().equipment:
        return card_chip(pending, height)
    return icon("key", height)


def _header(img: Image.Image, d: ImageDraw.ImageDraw, obs: Observation, locale: str) -> None:
    rnd = translate(msg("render.round", round=obs.round), locale)
    who = name_text(obs.seats[obs.current].name, locale)
    if obs.winner is not None:
        text = translate(msg("render.winner", who=name_text(obs.seats[obs.winner].name,
                                                              locale)), locale)
        paste(img, icon("trophy", 48), (MARGIN, 11))
    else:
        phase = msg(f"render.phase.{obs.phase.value}")
        text = translate(msg("render.turn", who=who, phase=phase), locale)
        paste(img, icon("arrow", 48), (MARGIN, 11))
    w = draw_text(d, (WIDTH - MARGIN, HEADER_H // 2), rnd, 30, fill=MUTED, anchor="rm")
    if obs.pending is not None and obs.winner is None:
        # The won equipment or the purchase being decided, beside the round.
        chip = pending_sprite(obs.pending, 48)
        w += chip.width + 16
        paste(img, chip, (WIDTH - MARGIN - w, (HEADER_H - 48) // 2))
    draw_text(d, (MARGIN + 60, HEADER_H // 2), text, 38, anchor="lm",
              max_width=WIDTH - 2 * MARGIN - 90 - w, min_size=22)


def _events(d: ImageDraw.ImageDraw, obs: Observation, y: int, locale: str) -> None:
    public = [e for e in obs.events if e.to is None][-EVENT_LINES:]
    for i, e in enumerate(public):
        fill = INK if i == len(public) - 1 else MUTED
        d.ellipse((MARGIN + 4, y + i * EVENT_LINE_H + 12, MARGIN + 16,
                   y + i * EVENT_LINE_H + 24), fill=fill)
        # A long sentence (longer languages, long names) shrinks before it is shortened.
        draw_text(d, (MARGIN + 28, y + i * EVENT_LINE_H + 18), translate(e.text, locale),
                  EVENT_SIZE, fill=fill, anchor="lm", bold=False,
                  max_width=WIDTH - 2 * MARGIN - 30, min_size=EVENT_MIN_SIZE)


def draw_table(obs: Observation, locale: str) -> Image.Image:
    """The table picture of ``obs`` as an RGB image."""
    n = len(obs.seats)
    rows_y = HEADER_H + 6
    seats_y = rows_y + 4 * ROW_H + 8
    events_y = seats_y + SEAT_H + 14
    height = events_y + EVENT_LINES * EVENT_LINE_H + 10
    img, d = new_canvas(WIDTH, height, BG)
    _header(img, d, obs, locale)
    fought = (obs.battle.level, obs.battle.slot) if obs.battle is not None else None
    for i, lv in enumerate(obs.levels):
        _row(img, d, lv, rows_y + i * ROW_H, locale, fought)
    _lord_row(img, d, obs, rows_y + 3 * ROW_H, locale)
    sw = (WIDTH - 2 * MARGIN - (n - 1) * 12) // n
    for i, seat in enumerate(obs.order):  # in turn order, so the next player is to the right
        x = MARGIN + i * (sw + 12)
        _seat(img, d, obs, obs.seats[seat], (x, seats_y, x + sw, seats_y + SEAT_H), locale)
    _events(d, obs, events_y, locale)
    return img
