"""The public table picture: caverns, Lord, merchant, pawnshop, seats and the latest events.

It draws only public parts of the observation (never ``hand``, ``drawn``, ``legal`` nor private
events), so every viewer, spectators included, gets the same picture.
"""

from __future__ import annotations

from functools import cache

from PIL import Image, ImageDraw

from engine.catalog import tables
from engine.names import hero_name
from engine.observe import LevelView, Observation, SeatView
from engine.state import MAX_HP, Phase
from i18n import Msg, Param, msg, translate
from render.cards import (
    card_back,
    card_chip,
    chip_key,
    empty_slot,
    level_pips,
    monster_card,
    monster_height,
)
from render.icons import icon, paste
from render.style import (
    BG,
    DARK,
    GOLD,
    HERO_COLOUR,
    INK,
    KEY_OFF,
    LINE,
    MUTED,
    PANEL,
    PANEL_HI,
    draw_text,
    fit,
    new_canvas,
    panel,
    text_width,
    wrap,
)

WIDTH = 1200
MARGIN = 20
GRID_X = 12  # the cavern grid uses almost the whole width: its cards must name themselves
CARD_W = 160
COL = 168  # column pitch of the cavern grid (7 columns: 5 places, the deck, the gatekeepers)
NAME_PX = 24  # card names on the table: two (or three) lines at this size when one does not do
CARD_H = monster_height(CARD_W, NAME_PX, 210)
CAPTION_H = 30  # above each row: its level, the place numbers, the decks' marks
ROW_H = CAPTION_H + CARD_H + 8
HEADER_H = 66
EVENT_LINES = 3
EVENT_SIZE = 28
EVENT_LINE_H = 36
SEAT_GAP = 10
CHIP_H = 46  # pawnshop chips (their numbers are 60% of it)
ROMAN = {1: "I", 2: "II", 3: "III"}


def name_text(name: Param, locale: str) -> str:
    """A seat's display name (player name or hero name message) as text."""
    if isinstance(name, Msg):
        return translate(name, locale)
    return str(name)


def table_card(card: str, locale: str) -> Image.Image:
    """A monster as the table shows it: narrow, with a name band of two lines at NAME_PX."""
    return monster_card(card, CARD_W, locale, NAME_PX, CARD_H)


@cache
def table_back(level: int) -> Image.Image:
    """A face-down card of ``level`` at the table's card size."""
    return card_back(CARD_W, level).resize((CARD_W, CARD_H))


def pile(img: Image.Image, d: ImageDraw.ImageDraw, x: int, y: int, top: str | None, count: int,
         level: int, locale: str = "en") -> None:
    """A deck: its face-up top card over the backs beneath (peeking out below); its count is
    in the row's caption."""
    if count == 0:
        paste(img, empty_slot(CARD_W - 8), (x + 4, y))
        return
    for off in (6, 3):
        if count * 3 > off:
            paste(img, table_back(level), (x + off // 3, y + off))
    if top is not None:
        paste(img, table_card(top, locale), (x, y))


def caption(img: Image.Image, d: ImageDraw.ImageDraw, cx: int, cy: int,
            parts: list[Image.Image | str], fought: bool = False) -> None:
    """A column's caption centred on (cx, cy): icons and numbers side by side; over the card
    being fought, in a gold pill led by a sword."""
    if fought:
        parts = [icon("attack", 30, DARK), *parts]
    widths = [p.width if isinstance(p, Image.Image) else text_width(p, 30) for p in parts]
    w = sum(widths) + 6 * (len(parts) - 1)
    x = cx - w // 2
    if fought:
        d.rounded_rectangle((x - 12, cy - 17, x + w + 12, cy + 17), radius=17, fill=GOLD)
    for part, pw in zip(parts, widths, strict=True):
        if isinstance(part, Image.Image):
            paste(img, part, (x, cy - part.height // 2))
        else:
            draw_text(d, (x, cy), part, 30, fill=DARK if fought else INK, anchor="lm")
        x += pw + 6


def frame_fought(d: ImageDraw.ImageDraw, x: int, y: int, w: int, h: int) -> None:
    """A thick gold frame around the card being fought."""
    d.rounded_rectangle((x - 4, y - 4, x + w + 3, y + h + 3), radius=w // 12 + 4, outline=GOLD,
                        width=6)


def _row(img: Image.Image, d: ImageDraw.ImageDraw, lv: LevelView, y: int, locale: str,
         fought: tuple[int, int] | None) -> None:
    # The caption: the level (as the bot's menus name it), each place's number, the decks' marks.
    cy = y + CAPTION_H // 2
    draw_text(d, (GRID_X + 2, cy), ROMAN[lv.level], 34, fill=GOLD, anchor="lm")
    y += CAPTION_H
    for slot, card in enumerate(lv.row):
        x = GRID_X + slot * COL
        if card is None:
            paste(img, empty_slot(CARD_W), (x, y))
        else:
            paste(img, table_card(card, locale), (x, y))
        hit = fought == (lv.level, slot + 1)
        if hit:
            frame_fought(d, x, y, CARD_W, CARD_H)
        caption(img, d, x + CARD_W // 2, cy, [str(slot + 1)], hit)
    # The decks: their mark (a deck, a gatekeeper's key) and how many cards they hold.
    xd = GRID_X + 5 * COL
    pile(img, d, xd, y, lv.deck_top, lv.deck_count, lv.level, locale)
    caption(img, d, xd + CARD_W // 2, cy, [icon("deck", 30), str(lv.deck_count)])
    xg = xd + COL
    pile(img, d, xg, y, lv.gate_top, lv.gate_count, lv.level, locale)
    hit = fought == (lv.level, 0)
    if hit:
        frame_fought(d, xg, y, CARD_W, CARD_H)
    caption(img, d, xg + CARD_W // 2, cy,
            [icon("key", 30, DARK if hit else None), str(lv.gate_count)], hit)


def pawnshop_groups(items: tuple[str, ...]) -> list[tuple[str, int]]:
    """The pawnshop's cards, those that look the same as chips (same colour or kind, same
    effects) counted together: (a card of the group, how many), in order of first sale."""
    first: dict[object, str] = {}
    counts: dict[object, int] = {}
    for card in items:
        key = chip_key(card)
        first.setdefault(key, card)
        counts[key] = counts.get(key, 0) + 1
    return [(first[k], n) for k, n in counts.items()]


def _pawn_layout(groups: list[tuple[str, int]], x0: int, x1: int,
                 y0: int) -> tuple[list[tuple[Image.Image, int, int]], int]:
    """Chips of the pawnshop in rows between x0 and x1 from y0; and the y below them."""
    placed: list[tuple[Image.Image, int, int]] = []
    cx, cy = x0, y0
    for card, n in groups:
        chip = card_chip(card, CHIP_H, n)
        if cx + chip.width > x1 and cx > x0:
            cx, cy = x0, cy + CHIP_H + 8
        placed.append((chip, cx, cy))
        cx += chip.width + 8
    return placed, cy + CHIP_H


def lord_row_height(obs: Observation) -> int:
    """The Lord's row: a card high, or more when the pawnshop needs it (it shows everything)."""
    px = GRID_X + 3 * COL
    _, bottom = _pawn_layout(pawnshop_groups(obs.pawnshop), px + 12, WIDTH - GRID_X - 12, 0)
    return max(CARD_H, bottom + 12)


def _lord_row(img: Image.Image, d: ImageDraw.ImageDraw, obs: Observation, y: int,
              locale: str) -> None:
    cy = y + CAPTION_H // 2
    y += CAPTION_H
    h = lord_row_height(obs)
    x0 = GRID_X
    paste(img, table_card(obs.lord, locale), (x0, y))
    hit = obs.battle is not None and obs.battle.level == 4
    if hit:
        frame_fought(d, x0, y, CARD_W, CARD_H)
    caption(img, d, x0 + CARD_W // 2, cy, [icon("crown", 32)], hit)
    # Merchant: the potion piles with counts.
    mx = x0 + COL
    mw = 2 * COL - 8
    shopping = obs.phase in (Phase.MERCHANT, Phase.PAY)
    frame, frame_w = (GOLD, 5) if shopping else (None, 3)
    draw_text(d, (mx + mw // 2, cy), translate("render.merchant", locale), 28, fill=MUTED,
              anchor="mm", max_width=mw)
    panel(d, (mx, y, mx + mw, y + h), fill=PANEL, outline=frame, width=frame_w)
    pw = mw // 3
    top = y + (CARD_H - 140) // 2
    for i, (kind, n) in enumerate(obs.potion_piles):
        cx = mx + pw * i + pw // 2
        paste(img, icon(f"potion.{kind}", 76), (cx - 38, top))
        draw_text(d, (cx, top + 112), str(n), 42, fill=INK if n else LINE, anchor="mm")
    # Pawnshop: whatever was sold, identical cards counted together; the row grows to show all.
    px = x0 + 3 * COL
    pw_end = WIDTH - GRID_X
    draw_text(d, (px + 12, cy), translate("render.pawnshop", locale), 28, fill=MUTED,
              anchor="lm")
    panel(d, (px, y, pw_end, y + h), fill=PANEL, outline=frame, width=frame_w)
    groups = pawnshop_groups(obs.pawnshop)
    if not groups:
        draw_text(d, ((px + pw_end) // 2, y + h // 2), translate("render.empty", locale), 28,
                  fill=LINE, anchor="mm")
        return
    total = translate(msg("render.pawn_count", count=len(obs.pawnshop)), locale)
    draw_text(d, (pw_end - 12, cy), total, 28, fill=MUTED, anchor="rm")
    placed, _ = _pawn_layout(groups, px + 12, pw_end - 12, y + 12)
    for chip, cx, chy in placed:
        paste(img, chip, (cx, chy))


def hearts(img: Image.Image, hp: int, x: int, y: int, size: int) -> int:
    """HP as hearts, lost HP as skulls; returns the x after the last icon."""
    for i in range(MAX_HP):
        paste(img, icon("heart" if i < hp else "skull", size), (x, y))
        x += size + 4
    return x


SEAT_PAD = 14
NAME_ROW = 46
HERO_ROW = 32
HEART_ROW = 50
KEY_ROW = 58
EQUIP_ROW = 48
COUNT_ROW = 48


def _seat_width(n: int) -> int:
    return (WIDTH - 2 * GRID_X - (n - 1) * SEAT_GAP) // n


def _equipment_rows(s: SeatView, inner: int) -> list[list[str]]:
    """The seat's weapon and armour on one line when both fit, else one line each."""
    items = [i for i in (s.weapon, s.armour) if i is not None]
    if not items:
        return []
    if sum(equipment_chip_width(i, 40) for i in items) + 16 * (len(items) - 1) <= inner:
        return [items]
    return [[i] for i in items]


def _shows_hero(s: SeatView, locale: str) -> bool:
    return translate(hero_name(s.hero), locale) != name_text(s.name, locale)


def seat_height(obs: Observation, locale: str) -> int:
    """The height of the seat panels: enough for the fullest seat."""
    inner = _seat_width(len(obs.seats)) - 2 * SEAT_PAD
    hero = any(_shows_hero(s, locale) for s in obs.seats)
    equip = max(len(_equipment_rows(s, inner)) for s in obs.seats)
    return (12 + NAME_ROW + (HERO_ROW if hero else 0) + HEART_ROW + KEY_ROW + equip * EQUIP_ROW
            + COUNT_ROW + 8)


def _seat(img: Image.Image, d: ImageDraw.ImageDraw, obs: Observation, s: SeatView,
          box: tuple[int, int, int, int], locale: str, hero_row: bool) -> None:
    x0, y0, x1, y1 = box
    turn = s.index == obs.current and obs.phase is not Phase.OVER
    won = obs.winner == s.index
    accent = HERO_COLOUR.get(s.hero, INK)
    panel(d, box, fill=PANEL_HI if turn else PANEL, outline=GOLD if (turn or won) else LINE,
          width=6 if turn else 2)
    left, right = x0 + SEAT_PAD, x1 - SEAT_PAD
    inner = right - left
    y = y0 + 12
    d.rectangle((x0 + 8, y + 2, x0 + 16, y + NAME_ROW - 8), fill=accent)
    tx = left + 6
    mid = y + NAME_ROW // 2 - 2
    if turn:
        paste(img, icon("arrow", 38), (tx, mid - 19))
        tx += 44
    if won:
        paste(img, icon("trophy", 38), (tx, mid - 19))
        tx += 44
    name_right = right
    if s.ai:  # a pill saying the seat is played by the bot
        label = translate("render.ai", locale)
        lw = text_width(label, 26) + 22
        d.rounded_rectangle((right - lw, mid - 17, right, mid + 17), radius=17, fill=LINE)
        draw_text(d, (right - lw // 2, mid), label, 26, anchor="mm")
        name_right -= lw + 8
    draw_text(d, (tx, mid), name_text(s.name, locale), 34, anchor="lm",
              max_width=name_right - tx, min_size=26)
    y += NAME_ROW
    if hero_row:
        if _shows_hero(s, locale):
            draw_text(d, (left + 6, y + HERO_ROW // 2 - 4), translate(hero_name(s.hero), locale),
                      26, fill=MUTED, anchor="lm", bold=False, max_width=inner - 6)
        y += HERO_ROW
    size = min(44, (inner - 4 * 5) // 5)
    hearts(img, s.hp, left, y, size)
    y += HEART_ROW
    # Keys held (one per level, its level marks below), then the potions held.
    kx = left
    for level in (1, 2, 3):
        held = level in s.keys
        paste(img, icon("key", 38, GOLD if held else KEY_OFF), (kx, y))
        pip = 11
        pw = level * pip + (level - 1) * (pip // 3)
        level_pips(d, level, kx + (38 - pw) // 2, y + 42, pip, fill=INK if held else LINE)
        kx += 46
    kx += 6
    if s.potions:
        ps = min(42, (right - kx) // len(s.potions))
        for p in s.potions:
            paste(img, icon(f"potion.{p}", ps), (kx, y + (40 - ps) // 2))
            kx += ps
    y += KEY_ROW
    # Weapon and armour with what they add.
    for line in _equipment_rows(s, inner):
        ex = left
        for item in line:
            ex = equipment_chip(img, d, item, ex, y, 40) + 16
        y += EQUIP_ROW
    # Hand / deck / discard counts, spread over the panel's width.
    counts = [("hand", s.hand_count), ("deck", s.deck_count), ("discard", len(s.discard))]
    ic, num = 36, 32
    while True:
        widths = [ic + 4 + text_width(str(n), num) for _, n in counts]
        if sum(widths) + 2 * 8 <= inner or num <= 26:
            break
        ic, num = ic - 2, num - 2
    gap = (inner - sum(widths)) // 2
    cy = y1 - 10 - COUNT_ROW // 2
    cx = left
    for (name_icon, n), w in zip(counts, widths, strict=True):
        paste(img, icon(name_icon, ic), (cx, cy - ic // 2))
        draw_text(d, (cx + ic + 4, cy), str(n), num, anchor="lm")
        cx += w + gap


def _bonuses(item: str) -> list[tuple[str, int]]:
    info = tables().equipment[item]
    return [(e, v) for e, v in (("attack", info.attack), ("defence", info.defence),
                                ("heal", info.heal), ("hand", info.hand)) if v]


def equipment_chip_width(item: str, size: int) -> int:
    """The width :func:`equipment_chip` takes at ``size``."""
    num, small = round(size * 0.75), round(size * 0.7)
    return size + 2 + sum(small + 2 + text_width(f"+{v}", num) + 6 for _, v in _bonuses(item))


def equipment_chip(img: Image.Image, d: ImageDraw.ImageDraw, item: str, x: int, y: int,
                   size: int = 40) -> int:
    """A weapon or armour as its icon followed by its bonuses; returns the x after it."""
    paste(img, icon(tables().equipment[item].kind, size), (x, y))
    x += size + 2
    num, small = round(size * 0.75), round(size * 0.7)
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
              max_width=WIDTH - 2 * MARGIN - 90 - w, min_size=26)


def event_lines(obs: Observation, locale: str) -> list[tuple[str, int, bool, bool]]:
    """The latest public events as (line, size, newest, first line of its event) in at most
    EVENT_LINES lines: a long sentence shrinks a little, then takes two lines, never drops below
    the text floor."""
    width = WIDTH - 2 * MARGIN - 30
    out: list[tuple[str, int, bool, bool]] = []
    public = [e for e in obs.events if e.to is None]
    for k, e in enumerate(reversed(public)):
        text = translate(e.text, locale)
        _, size = fit(text, width, EVENT_SIZE, 26, bold=False)
        lines = [text] if text_width(text, size, bold=False) <= width else \
            wrap(text, width, 26, bold=False, max_lines=2)
        if len(lines) > 1:
            size = 26
        if len(out) + len(lines) > EVENT_LINES:
            break
        out = [(line, size, k == 0, j == 0) for j, line in enumerate(lines)] + out
    return out


def _events(d: ImageDraw.ImageDraw, obs: Observation, y: int, locale: str) -> None:
    for i, (line, size, newest, first) in enumerate(event_lines(obs, locale)):
        fill = INK if newest else MUTED
        ly = y + i * EVENT_LINE_H + 18
        if first:
            d.ellipse((MARGIN + 4, ly - 6, MARGIN + 16, ly + 6), fill=fill)
        draw_text(d, (MARGIN + 28, ly), line, size, fill=fill, anchor="lm", bold=False)


def draw_table(obs: Observation, locale: str) -> Image.Image:
    """The table picture of ``obs`` as an RGB image."""
    n = len(obs.seats)
    rows_y = HEADER_H
    lord_y = rows_y + 3 * ROW_H
    seats_y = lord_y + CAPTION_H + lord_row_height(obs) + 14
    seat_h = seat_height(obs, locale)
    events_y = seats_y + seat_h + 12
    height = events_y + EVENT_LINES * EVENT_LINE_H + 10
    img, d = new_canvas(WIDTH, height, BG)
    _header(img, d, obs, locale)
    fought = (obs.battle.level, obs.battle.slot) if obs.battle is not None else None
    for i, lv in enumerate(obs.levels):
        _row(img, d, lv, rows_y + i * ROW_H, locale, fought)
    _lord_row(img, d, obs, lord_y, locale)
    sw = _seat_width(n)
    hero_row = any(_shows_hero(s, locale) for s in obs.seats)
    for i, seat in enumerate(obs.order):  # in turn order, so the next player is to the right
        x = GRID_X + i * (sw + SEAT_GAP)
        _seat(img, d, obs, obs.seats[seat], (x, seats_y, x + sw, seats_y + seat_h), locale,
              hero_row)
    _events(d, obs, events_y, locale)
    return img
