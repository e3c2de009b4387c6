"""The public table picture, laid out for a phone: caverns, Lord, merchant, pawnshop and seats.

It draws only public parts of the observation (never ``hand``, ``drawn``, ``legal`` nor events),
so every viewer, spectators included, gets the same picture. Monsters show what a phone can
read: attack, hit points, their curses' marks and a gatekeeper's key (names and curse texts are
in the battle picture and the card command). Places the seat to move cannot fight now are
dimmed. A seat the AI took over from a person who left it is marked as the AI's (its panel's AI
pill, and "Bob [AI] wins!" in the header when it won), as the bot's texts mark it. During a
battle the fighter's hit points and card counts change with every card played, so they are
shown in the battle picture instead (see :func:`render.keys.table_key`).
"""

from __future__ import annotations

from PIL import Image, ImageDraw

from engine.observe import LevelView, Observation
from engine.state import Phase
from i18n import Msg, msg, translate
from render.bands import Band, band
from render.cards import card_back, empty_slot, monster_tile
from render.chips import card_chip, chip_key
from render.icons import icon, paste
from render.layout import BANDS, name_text, shortenable, title_bar
from render.seats import Handed, seat_bands
from render.style import (
    BG,
    DARK,
    GOLD,
    INK,
    LINE,
    MIN_TEXT,
    MUTED,
    PANEL,
    WIDTH,
    draw_text,
    new_canvas,
    panel,
    remembered,
    text_width,
)

GRID_X = 6
COL = 84  # column pitch of the cavern grid (7 columns: 5 places, the deck, the gatekeepers)
TILE_W = 80
TILE_H = 96
CAPTION_H = 32  # above each row: its level, the place numbers, the decks' counts
ROW_H = CAPTION_H + TILE_H + 4
CAPTION_PX = 28
CHIP_H = 44  # pawnshop chips (their numbers are 60% of it)
ROMAN = {1: "I", 2: "II", 3: "III"}
#: Places are (level, slot): slot 0 is the gatekeeper pile, level 4 the Lord.
Place = tuple[int, int]


def open_places(obs: Observation) -> frozenset[Place] | None:
    """The places the seat to move may fight on its turn, from its public keys (a level is open
    with the keys of every level above it, a gatekeeper while its key is not held, the Lord
    with all three keys); None once the game is over (nothing is dimmed)."""
    if obs.winner is not None or obs.phase is Phase.OVER:
        return None
    keys = set(obs.seats[obs.current].keys)
    out: set[Place] = set()
    for lv in obs.levels:
        if lv.level > 1 and lv.level - 1 not in keys:
            break
        out |= {(lv.level, slot) for slot, card in enumerate(lv.row, 1) if card is not None}
        if lv.gate_count and lv.level not in keys:
            out.add((lv.level, 0))
    if {1, 2, 3} <= keys:
        out.add((4, 0))
    return frozenset(out)


def shown_phase(obs: Observation) -> Phase:
    """The phase the header names: a battle's inner steps (Taia choosing a drawn card) are
    still "in battle", so playing a card never changes the table picture."""
    return Phase.BATTLE if obs.battle is not None and obs.phase is Phase.TAIA else obs.phase


def _dim(img: Image.Image, box: tuple[int, int, int, int]) -> None:
    """Darken ``box``: a place that cannot be fought now (told by brightness, not by hue)."""
    region = img.crop(box)
    img.paste(Image.blend(region, Image.new("RGB", region.size, BG), 0.62), box[:2])


def caption(img: Image.Image, d: ImageDraw.ImageDraw, cx: int, cy: int,
            parts: list[Image.Image | str], fought: bool = False, left: int = 0) -> None:
    """A column's caption centred on (cx, cy) (but not left of ``left``): icons and numbers
    side by side; over the card being fought, in a gold pill led by a sword."""
    if fought:
        parts = [icon("attack", 22, DARK), *parts]
    widths = [p.width if isinstance(p, Image.Image) else text_width(p, CAPTION_PX)
              for p in parts]
    w = sum(widths) + 3 * (len(parts) - 1)
    x = max(cx - w // 2, left + (6 if fought else 0))
    if fought:
        d.rounded_rectangle((x - 6, cy - 16, x + w + 6, cy + 16), radius=16, fill=GOLD)
    for part, pw in zip(parts, widths, strict=True):
        if isinstance(part, Image.Image):
            paste(img, part, (x, cy - part.height // 2))
        else:
            draw_text(d, (x, cy), part, CAPTION_PX, fill=DARK if fought else INK, anchor="lm")
        x += pw + 3


def frame_fought(d: ImageDraw.ImageDraw, x: int, y: int) -> None:
    """A thick gold frame around the card being fought."""
    d.rounded_rectangle((x - 3, y - 3, x + TILE_W + 2, y + TILE_H + 2), radius=10, outline=GOLD,
                        width=5)


def _pile(img: Image.Image, x: int, y: int, top: str | None, count: int, level: int) -> None:
    """A deck: its face-up top card over the backs beneath (its count is in the caption)."""
    if count == 0:
        paste(img, empty_slot(TILE_W - 8, TILE_H - 6), (x + 4, y))
        return
    if count > 1:
        paste(img, card_back(TILE_W - 4, level, TILE_H - 4), (x + 4, y + 4))
    if top is not None:
        paste(img, monster_tile(top, TILE_W - 4, TILE_H - 4), (x, y))
    else:
        paste(img, card_back(TILE_W - 4, level, TILE_H - 4), (x, y))


def _cavern(levels: tuple[LevelView, ...], fought: Place | None,
            open_: frozenset[Place] | None) -> list[Band]:
    """The three levels' rows, a band each: a row is drawn again only when its own level
    changes (a monster fought there, its deck drawn, its places opened or closed)."""
    out = []
    for lv in levels:
        here = None if open_ is None else frozenset(p for p in open_ if p[0] == lv.level)
        out.append(_level_band(lv, fought if fought is not None and fought[0] == lv.level
                               else None, here))
    return out


@remembered(BANDS)
def _level_band(lv: LevelView, fought: Place | None, open_: frozenset[Place] | None) -> Band:
    """A level's row: its caption (numeral, place numbers, the decks' counts), its places,
    its deck and its gatekeepers (``open_``: the places of this level that may be fought)."""
    img, d = new_canvas(WIDTH, ROW_H, BG)
    y = 0
    cy = y + CAPTION_H // 2
    numeral = draw_text(d, (GRID_X - 2, cy), ROMAN[lv.level], CAPTION_PX, fill=GOLD,
                        anchor="lm", condensed=True)
    y += CAPTION_H
    for slot, card in enumerate(lv.row, 1):
        x = GRID_X + (slot - 1) * COL
        if card is None:
            paste(img, empty_slot(TILE_W, TILE_H), (x, y))
        else:
            paste(img, monster_tile(card, TILE_W, TILE_H), (x, y))
        if open_ is not None and (lv.level, slot) not in open_:
            _dim(img, (x, y, x + TILE_W, y + TILE_H))
        hit = fought == (lv.level, slot)
        if hit:
            frame_fought(d, x, y)
        caption(img, d, x + TILE_W // 2, cy, [str(slot)], hit, left=GRID_X + numeral + 6)
    xd = GRID_X + 5 * COL
    _pile(img, xd, y, lv.deck_top, lv.deck_count, lv.level)
    if open_ is not None:  # a deck's top is shown, never fought
        _dim(img, (xd, y, xd + TILE_W, y + TILE_H))
    caption(img, d, xd + TILE_W // 2, cy, [icon("deck", 24), str(lv.deck_count)])
    xg = xd + COL
    _pile(img, xg, y, lv.gate_top, lv.gate_count, lv.level)
    if open_ is not None and (lv.level, 0) not in open_ and lv.gate_count:
        _dim(img, (xg, y, xg + TILE_W, y + TILE_H))
    hit = fought == (lv.level, 0)
    if hit:
        frame_fought(d, xg, y)
    caption(img, d, xg + TILE_W // 2, cy,
            [icon("key", 24, DARK if hit else None), str(lv.gate_count)], hit)
    return band(img)


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
            cx, cy = x0, cy + CHIP_H + 6
        placed.append((chip, cx, cy))
        cx += chip.width + 6
    return placed, cy + CHIP_H


PAWN_X = GRID_X + 3 * COL


def lord_row_height(pawnshop: tuple[str, ...]) -> int:
    """The Lord's row: a card high, or more when the pawnshop needs it (it shows everything)."""
    _, bottom = _pawn_layout(pawnshop_groups(pawnshop), PAWN_X + 8, WIDTH - GRID_X - 8, 0)
    return max(TILE_H, bottom + 16)


def _lord_row(img: Image.Image, d: ImageDraw.ImageDraw, lord: str,
              piles: tuple[tuple[str, int], ...], pawnshop: tuple[str, ...], shopping: bool,
              hit: bool, dim: bool, locale: str) -> None:
    y = 0
    cy = y + CAPTION_H // 2
    y += CAPTION_H
    h = lord_row_height(pawnshop)
    paste(img, monster_tile(lord, TILE_W, TILE_H), (GRID_X, y))
    if dim:
        _dim(img, (GRID_X, y, GRID_X + TILE_W, y + TILE_H))
    if hit:
        frame_fought(d, GRID_X, y)
    caption(img, d, GRID_X + TILE_W // 2, cy, [icon("crown", 28)], hit)
    # Merchant: the potion piles with counts.
    mx, mw = GRID_X + COL, 2 * COL - 6
    frame, frame_w = (GOLD, 4) if shopping else (None, 2)
    draw_text(d, (mx + mw // 2, cy), translate("render.merchant", locale), MIN_TEXT, fill=MUTED,
              max_width=mw,
              anchor="mm")
    panel(d, (mx, y, mx + mw, y + h), fill=PANEL, outline=frame, width=frame_w, radius=10)
    pw = mw // 3
    for i, (kind, n) in enumerate(piles):
        cx = mx + pw * i + pw // 2
        paste(img, icon(f"potion.{kind}", 44), (cx - 22, y + 10))
        draw_text(d, (cx, y + 80), str(n), 32, fill=INK if n else LINE, anchor="mm")
    # Pawnshop: whatever was sold, identical cards counted together; the row grows to show all.
    end = WIDTH - GRID_X
    # The caption: the pawnshop's name, and how many cards it holds (as a number beside a deck
    # when the words do not fit beside the name).
    label = translate("render.pawnshop", locale)
    room = end - PAWN_X - 8 - text_width(label, MIN_TEXT, condensed=True) - 12
    total = translate(msg("render.pawn_count", count=len(pawnshop)), locale) if pawnshop else ""
    count_w = 0
    if total and text_width(total, MIN_TEXT) <= room:
        count_w = draw_text(d, (end - 4, cy), total, MIN_TEXT, fill=MUTED, anchor="rm")
    elif total:
        count_w = draw_text(d, (end - 4, cy), str(len(pawnshop)), MIN_TEXT, fill=MUTED,
                            anchor="rm") + 30
        paste(img, icon("deck", 26), (end - 4 - count_w, cy - 13))
    draw_text(d, (PAWN_X + 4, cy), label, MIN_TEXT, fill=MUTED, anchor="lm", condensed=True,
              max_width=end - PAWN_X - 16 - count_w)
    panel(d, (PAWN_X, y, end, y + h), fill=PANEL, outline=frame, width=frame_w, radius=10)
    groups = pawnshop_groups(pawnshop)
    if not groups:
        draw_text(d, ((PAWN_X + end) // 2, y + h // 2), translate("render.empty", locale),
                  MIN_TEXT, fill=LINE, anchor="mm", max_width=end - PAWN_X - 16)
        return
    placed, _ = _pawn_layout(groups, PAWN_X + 8, end - 8, y + 8)
    for chip, cx, chy in placed:
        paste(img, chip, (cx, chy))


def pending_sprite(pending: str, height: int) -> Image.Image:
    """The item being decided: a potion being bought, or a card (won or bought) as a chip."""
    from engine.catalog import tables

    if pending.startswith("potion:"):
        return icon(f"potion.{pending.split(':', 1)[1]}", height)
    if pending in tables().actions or pending in tables().equipment:
        return card_chip(pending, height)
    return icon("key", height)


@remembered(BANDS)
def _header_band(mark: str, title: str, right: str, pending: str | None, shorten: str) -> Band:
    img, d = new_canvas(WIDTH, 120, BG)
    chip = pending_sprite(pending, 40) if pending is not None else None
    h = title_bar(img, d, mark, title, right, shorten=shorten, right_mark=chip)
    return band(img.crop((0, 0, WIDTH, h)))


def _header(obs: Observation, locale: str, handed: Handed) -> Band:
    rnd = translate(msg("render.round", round=obs.round), locale)
    if obs.winner is not None:
        winner = obs.seats[obs.winner].name
        who: Msg | str = name_text(winner, locale)
        if obs.winner in handed:  # the AI won it for the person who left: the AI's win
            who = msg("render.ai_played", who=who)
        text = translate(msg("render.winner", who=who), locale)
        return _header_band("trophy", text, rnd, None, shortenable(winner))
    phase = msg(f"render.phase.{shown_phase(obs).value}")
    name = obs.seats[obs.current].name
    text = translate(msg("render.turn", who=name_text(name, locale), phase=phase), locale)
    return _header_band("arrow", text, rnd, obs.pending, shortenable(name))


@remembered(BANDS)
def _lord_band(lord: str, piles: tuple[tuple[str, int], ...], pawnshop: tuple[str, ...],
               shopping: bool, hit: bool, dim: bool, locale: str) -> Band:
    h = lord_row_height(pawnshop)
    img, d = new_canvas(WIDTH, CAPTION_H + h + 12, BG)
    _lord_row(img, d, lord, piles, pawnshop, shopping, hit, dim, locale)
    return band(img)


def draw_table(obs: Observation, locale: str, handed: Handed = ()) -> list[Band]:
    """The table picture of ``obs``, as its bands from top to bottom (``handed``: the seats
    the AI plays now in place of the person who left them, see :data:`render.seats.Handed`)."""
    open_ = open_places(obs)
    fought = (obs.battle.level, obs.battle.slot) if obs.battle is not None else None
    shopping = obs.phase in (Phase.MERCHANT, Phase.PAY)
    lord = _lord_band(obs.lord, tuple(obs.potion_piles), obs.pawnshop, shopping,
                      fought is not None and fought[0] == 4,
                      open_ is not None and (4, 0) not in open_, locale)
    cavern = _cavern(tuple(obs.levels), fought if fought and fought[0] < 4 else None, open_)
    return [_header(obs, locale, handed), *cavern, lord, *seat_bands(obs, locale, handed)]
