"""The private hand picture: the viewer's cards, which of them can be played now, and their kit.

Only for a seat (never a spectator). Marks come from the observation's legal actions alone: a
card a legal Play uses is "playable now"; in the discard step the cards a legal Discard names are
marked instead, and Taia's drawn pair is marked when she must keep one.
"""

from __future__ import annotations

from PIL import Image, ImageDraw

from engine.actions import Discard, KeepDrawn, Play
from engine.catalog import tables
from engine.names import card_name
from engine.observe import Observation
from engine.state import Phase
from i18n import msg, translate
from render.cards import EFFECTS, action_card, card_height
from render.icons import curse_icon, icon, paste
from render.style import (
    BAD,
    BG,
    DISCARD,
    EQUIP_FRAME,
    EQUIP_INNER,
    GOLD,
    GOOD,
    INK,
    LINE,
    MUTED,
    PANEL,
    RGB,
    draw_text,
    new_canvas,
    panel,
    text_width,
)
from render.table import hearts, name_text

WIDTH = 1200
MARGIN = 20
HEADER_H = 70
CARD_W = 270  # every card of the hand at this width: its name reads on a phone
PER_ROW = 4
GAP = 16
#: Widest label under the deck and discard counts (two fit before the equipment).
COUNT_LABEL_W = 250
EQUIP_X = MARGIN + 560
#: What the header says when the viewer must decide something other than playing a card.
PENDING_PHASES = (Phase.TURN, Phase.REWARD, Phase.MERCHANT, Phase.PAY)


def playable_cards(obs: Observation) -> frozenset[str]:
    """The cards of the viewer's hand that a legal action plays right now."""
    return frozenset(a.card for a in obs.legal if isinstance(a, Play))


def card_marks(obs: Observation) -> dict[str, str]:
    """What the viewer may do with each card now: ``play``, ``discard`` or ``keep`` (Taia)."""
    marks: dict[str, str] = {}
    for a in obs.legal:
        if isinstance(a, Play):
            marks[a.card] = "play"
        elif isinstance(a, Discard):
            marks[a.card] = "discard"
        elif isinstance(a, KeepDrawn):
            marks[a.card] = "keep"
    return marks


MARK_COLOUR: dict[str, RGB] = {"play": GOOD, "keep": GOOD, "discard": DISCARD}
MARK_ICON = {"play": "check", "keep": "check", "discard": "discard"}


def cancelled(card: str, cursed: frozenset[str]) -> list[str]:
    """The curses of this battle that hit ``card``: its colour, or an effect it has."""
    info = tables().actions[card]
    out = [info.colour] if info.colour in cursed else []
    out += [e for e in EFFECTS if info.effect(e) and e in cursed]
    return out


def _cards_row(img: Image.Image, d: ImageDraw.ImageDraw, cards: tuple[str, ...],
               marks: dict[str, str], cursed: frozenset[str], y: int, locale: str) -> int:
    """Cards side by side (rows of PER_ROW); those a legal move uses are framed with a mark
    below them, and a curse that hits a card (its colour or one of its effects) is shown under
    it."""
    w, h = CARD_W, card_height(CARD_W)
    size = 56
    for start in range(0, len(cards), PER_ROW):
        row = cards[start:start + PER_ROW]
        n = len(row)
        x = (WIDTH - (n * w + (n - 1) * GAP)) // 2
        below = False  # anything drawn under a card (a mark, a curse)
        for card in row:
            mark = marks.get(card)
            if mark is not None:
                d.rounded_rectangle((x - 7, y - 7, x + w + 6, y + h + 6), radius=w // 10 + 6,
                                    outline=MARK_COLOUR[mark], width=7)
            paste(img, action_card(card, w, locale), (x, y))
            # Under the card: what may be done with it, and the curses that hit it (never over
            # the card, whose name must stay readable).
            signs: list[Image.Image] = []
            if mark is not None:
                signs.append(icon(MARK_ICON[mark], size, GOOD if mark != "discard" else None))
            signs += [curse_icon(c, size) for c in cancelled(card, cursed)]
            sx = x + (w - len(signs) * size - (len(signs) - 1) * 8) // 2
            for sign in signs:
                paste(img, sign, (sx, y + h + 12))
                sx += size + 8
            below = below or bool(signs)
            x += w + GAP
        y += h + (size + 24 if below else 16)
    return y


def _status(obs: Observation, marks: dict[str, str]) -> tuple[str, str | None]:
    """The header's right side: what the viewer may do now, and the mark that goes with it."""
    if "play" in marks.values():
        return "render.hand.playable", "play"
    if "discard" in marks.values():
        return "render.hand.discard_now", "discard"
    if "keep" in marks.values():
        return "render.hand.keep_now", "keep"
    if not obs.legal:
        return "render.hand.waiting", None
    if obs.phase in PENDING_PHASES:
        return f"render.hand.pending.{obs.phase.value}", None
    return "render.hand.none_playable", None


STRIP_X0 = EQUIP_X
STRIP_X1 = WIDTH - MARGIN - 16
STRIP_NAME = 28  # equipment names: condensed, shrinking to MIN_TEXT at most


def _bonuses(item: str) -> list[tuple[str, int]]:
    info = tables().equipment[item]
    return [(e, v) for e, v in (("attack", info.attack), ("defence", info.defence),
                                ("heal", info.heal), ("hand", info.hand)) if v]


def _strip_parts(item: str, cursed: bool) -> tuple[int, int, list[int]]:
    """Where a strip's bonuses start and end, and each bonus's width."""
    right = STRIP_X1 - 10
    widths = [32 + 2 + text_width(f"+{v}", 30) for _, v in _bonuses(item)]
    return right - sum(widths) - 10 * (len(widths) - 1), right, widths


def strip_name_width(item: str, cursed: bool) -> int:
    """The room an equipment strip leaves for the item's name."""
    start, _, _ = _strip_parts(item, cursed)
    return start - 12 - (STRIP_X0 + 56)


def _equipment_strip(img: Image.Image, d: ImageDraw.ImageDraw, item: str, y: int,
                     cursed: bool, locale: str) -> None:
    """A weapon or armour as one line: its kind, its name, what it adds (struck through when the
    battle's curse switches it off, the curse's mark then leading the line)."""
    info = tables().equipment[item]
    x, x1 = STRIP_X0, STRIP_X1
    h = 56
    cy = y + h // 2
    panel(d, (x, y, x1, y + h), fill=EQUIP_INNER, outline=EQUIP_FRAME, width=2, radius=10)
    if cursed:  # the curse's mark stands for the item's kind
        paste(img, curse_icon(info.kind, 46), (x + 5, cy - 23))
    else:
        paste(img, icon(info.kind, 40), (x + 8, cy - 20))
    start, right, widths = _strip_parts(item, cursed)
    bonuses = _bonuses(item)
    bx = start
    for (effect, value), w in zip(bonuses, widths, strict=True):
        paste(img, icon(effect, 32), (bx, cy - 16))
        draw_text(d, (bx + 34, cy), f"+{value}", 30, fill=LINE if cursed else INK, anchor="lm")
        bx += w + 10
    if cursed:
        d.line((start - 4, cy, right, cy), fill=BAD, width=4)
    draw_text(d, (x + 56, cy), translate(card_name(item), locale), STRIP_NAME, anchor="lm",
              condensed=True, max_width=strip_name_width(item, cursed))


def draw_hand(obs: Observation, locale: str) -> Image.Image:
    """The hand picture of ``obs`` (a seat's observation) as an RGB image."""
    if obs.viewer is None:
        raise ValueError("hand_image needs a seat's observation; a spectator has no hand")
    me = obs.seats[obs.viewer]
    marks = card_marks(obs)
    cursed = frozenset(obs.battle.active_curses) if obs.battle is not None else frozenset()
    height = 2400  # drawn tall, cropped to what is used
    img, d = new_canvas(WIDTH, height, BG)
    title = translate(msg("render.hand.title", who=name_text(me.name, locale)), locale)
    paste(img, icon("hand", 48), (MARGIN, 11))
    status_key, status_mark = _status(obs, marks)
    status = translate(status_key, locale)
    # The status takes what the title (up to 420 px of it) leaves.
    room = WIDTH - 2 * MARGIN - 90 - min(text_width(title, 38), 420) - (50 if status_mark else 0)
    sw = draw_text(d, (WIDTH - MARGIN, HEADER_H // 2), status, 30,
                   fill=MARK_COLOUR[status_mark] if status_mark else MUTED, anchor="rm",
                   max_width=room, min_size=26)
    if status_mark:
        paste(img, icon(MARK_ICON[status_mark], 40, GOOD if status_mark != "discard" else None),
              (WIDTH - MARGIN - sw - 50, HEADER_H // 2 - 20))
        sw += 50
    draw_text(d, (MARGIN + 60, HEADER_H // 2), title, 38, anchor="lm",
              max_width=WIDTH - 2 * MARGIN - 90 - sw, min_size=26)
    y = HEADER_H + 6
    if obs.hand:
        y = _cards_row(img, d, obs.hand, marks, cursed, y + 8, locale)
    else:
        panel(d, (MARGIN, y, WIDTH - MARGIN, y + 140), fill=PANEL)
        draw_text(d, (WIDTH // 2, y + 70), translate("render.hand.empty", locale), 34,
                  fill=LINE, anchor="mm")
        y += 150
    if obs.drawn:
        draw_text(d, (MARGIN, y + 20), translate("render.hand.drawn", locale), 30, fill=GOLD,
                  anchor="lm")
        y = _cards_row(img, d, obs.drawn, marks, cursed, y + 50, locale)
    # The kit: HP, hand size, potions; deck and discard counts; weapon and armour.
    y += 6
    items = [(i, slot) for i, slot in ((me.weapon, "weapon"), (me.armour, "armour"))
             if i is not None]
    box_h = max(220, 88 + 66 * len(items))
    panel(d, (MARGIN, y, WIDTH - MARGIN, y + box_h), fill=PANEL)
    hearts(img, me.hp, MARGIN + 16, y + 16, 50)
    # The hand size this battle allows: an equipment curse takes that item's bonus away (R23).
    eq = tables().equipment
    lost = sum(eq[i].hand for i, slot in items if slot in cursed)
    size = translate(msg("render.hand.size", size=me.hand_size - lost), locale)
    paste(img, icon("hand", 40), (MARGIN + 300, y + 21))
    draw_text(d, (MARGIN + 348, y + 41), size, 26, fill=MUTED, anchor="lm", bold=False,
              max_width=EQUIP_X - MARGIN - 360)
    cx = MARGIN + 16
    cy = y + 118
    for ic, n, key in (("deck", me.deck_count, "render.hand.deck"),
                       ("discard", len(me.discard), "render.hand.discard")):
        paste(img, icon(ic, 56), (cx, cy - 28))
        w = draw_text(d, (cx + 64, cy), str(n), 50, anchor="lm")
        lw = draw_text(d, (cx + 2, cy + 54), translate(key, locale), 26, fill=MUTED,
                       anchor="lm", bold=False, max_width=COUNT_LABEL_W)
        cx += max(64 + max(w, 60), lw + 2) + 36
    px = WIDTH - MARGIN - 16 - 70 * len(me.potions)
    for p in me.potions:
        paste(img, icon(f"potion.{p}", 64), (px + 3, y + 12))
        px += 70
    ey = y + 88
    for item, slot in items:
        _equipment_strip(img, d, item, ey, slot in cursed, locale)
        ey += 66
    return img.crop((0, 0, WIDTH, y + box_h + MARGIN))
