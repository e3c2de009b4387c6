"""The private hand picture: the viewer's cards, which of them can be played now, and their kit.

Only for a seat (never a spectator). Marks come from the observation's legal actions alone: a
card a legal Play uses is "playable now"; in the discard step the cards a legal Discard names are
marked instead, and Taia's drawn pair is marked when she must keep one.
"""

from __future__ import annotations

from PIL import Image, ImageDraw

from engine.actions import Discard, KeepDrawn, Play
from engine.catalog import tables
from engine.observe import Observation
from i18n import msg, translate
from render.cards import action_card, card_height, equipment_card
from render.icons import curse_icon, icon, paste
from render.style import (
    BG,
    DISCARD,
    GOLD,
    GOOD,
    LINE,
    MUTED,
    PANEL,
    RGB,
    draw_text,
    new_canvas,
    panel,
)
from render.table import hearts, name_text

WIDTH = 1200
MARGIN = 20
HEADER_H = 70
MAX_CARD_W = 250
GAP = 16
#: Widest label under the deck and discard counts (two fit before the equipment at x=580).
COUNT_LABEL_W = 250


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


def _cards_row(img: Image.Image, d: ImageDraw.ImageDraw, cards: tuple[str, ...],
               marks: dict[str, str], cursed: frozenset[str], y: int, locale: str,
               max_w: int = MAX_CARD_W) -> int:
    """Cards side by side; those a legal move uses are framed with a mark below them, and
    cards of a cursed colour carry the curse."""
    n = len(cards)
    w = min(max_w, (WIDTH - 2 * MARGIN - (n - 1) * GAP) // max(1, n))
    h = card_height(w)
    total = n * w + (n - 1) * GAP
    x = (WIDTH - total) // 2
    size = min(56, max(36, w // 4))
    below = False  # anything drawn under a card (a mark, a curse)
    for card in cards:
        mark = marks.get(card)
        if mark is not None:
            d.rounded_rectangle((x - 7, y - 7, x + w + 6, y + h + 6), radius=w // 10 + 6,
                                outline=MARK_COLOUR[mark], width=7)
        paste(img, action_card(card, w, locale), (x, y))
        # Under the card: what may be done with it, and the curse on its colour (never over
        # the card, whose name must stay readable).
        signs: list[Image.Image] = []
        if mark is not None:
            signs.append(icon(MARK_ICON[mark], size, GOOD if mark != "discard" else None))
        colour = tables().actions[card].colour
        if colour in cursed:
            signs.append(curse_icon(colour, size))
        sx = x + (w - len(signs) * size - (len(signs) - 1) * 8) // 2
        for sign in signs:
            paste(img, sign, (sx, y + h + 12))
            sx += size + 8
        below = below or bool(signs)
        x += w + GAP
    return y + h + (size + 20 if below else 12)


def draw_hand(obs: Observation, locale: str) -> Image.Image:
    """The hand picture of ``obs`` (a seat's observation) as an RGB image."""
    if obs.viewer is None:
        raise ValueError("hand_image needs a seat's observation; a spectator has no hand")
    me = obs.seats[obs.viewer]
    marks = card_marks(obs)
    playable = frozenset(c for c, m in marks.items() if m == "play")
    cursed = frozenset(obs.battle.active_curses) if obs.battle is not None else frozenset()
    height = 1400  # drawn tall, cropped to what is used
    img, d = new_canvas(WIDTH, height, BG)
    title = translate(msg("render.hand.title", who=name_text(me.name, locale)), locale)
    paste(img, icon("hand", 48), (MARGIN, 11))
    if playable:
        status_key = "render.hand.playable"
    elif "discard" in marks.values():
        status_key = "render.hand.discard_now"
    elif "keep" in marks.values():
        status_key = "render.hand.keep_now"
    elif obs.legal:
        status_key = "render.hand.none_playable"
    else:
        status_key = "render.hand.waiting"
    status = translate(status_key, locale)
    status_mark = ("play" if playable else next(iter(marks.values()))) if marks else None
    sw = draw_text(d, (WIDTH - MARGIN, HEADER_H // 2), status, 30,
                   fill=MARK_COLOUR[status_mark] if status_mark else MUTED, anchor="rm",
                   max_width=560, min_size=18)
    if status_mark:
        paste(img, icon(MARK_ICON[status_mark], 40, GOOD if status_mark != "discard" else None),
              (WIDTH - MARGIN - sw - 50, HEADER_H // 2 - 20))
        sw += 50
    draw_text(d, (MARGIN + 60, HEADER_H // 2), title, 38, anchor="lm",
              max_width=WIDTH - 2 * MARGIN - 90 - sw, min_size=22)
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
        y = _cards_row(img, d, obs.drawn, marks, cursed, y + 44, locale, max_w=180)
    # The kit: HP, deck and discard counts, hand size, equipment and potions.
    y += 6
    box_h = 200
    panel(d, (MARGIN, y, WIDTH - MARGIN, y + box_h), fill=PANEL)
    hearts(img, me.hp, MARGIN + 16, y + 16, 50)
    # The hand size this battle allows: an equipment curse takes that item's bonus away (R23).
    eq = tables().equipment
    lost = sum(eq[i].hand for i, slot in ((me.weapon, "weapon"), (me.armour, "armour"))
               if i is not None and slot in cursed)
    size = translate(msg("render.hand.size", size=me.hand_size - lost), locale)
    paste(img, icon("hand", 40), (MARGIN + 300, y + 21))
    draw_text(d, (MARGIN + 348, y + 41), size, 26, fill=MUTED, anchor="lm", bold=False,
              max_width=200, min_size=14)
    cx = MARGIN + 16
    cy = y + 118
    for ic, n, key in (("deck", me.deck_count, "render.hand.deck"),
                       ("discard", len(me.discard), "render.hand.discard")):
        paste(img, icon(ic, 56), (cx, cy - 28))
        w = draw_text(d, (cx + 64, cy), str(n), 50, anchor="lm")
        lw = draw_text(d, (cx + 2, cy + 52), translate(key, locale), 24, fill=MUTED,
                       anchor="lm", bold=False, max_width=COUNT_LABEL_W, min_size=14)
        cx += max(64 + max(w, 60), lw + 2) + 36
    ex = MARGIN + 580
    for item, slot in ((me.weapon, "weapon"), (me.armour, "armour")):
        if item is not None:
            paste(img, equipment_card(item, 120, locale), (ex, y + 16))
            if slot in cursed:  # this battle's curse switches the equipment off (the name
                # stays readable: the curse sits at the card's foot)
                paste(img, curse_icon(slot, 52), (ex + 74, y + 140))
            ex += 132
    px = max(ex + 10, WIDTH - MARGIN - 3 * 70 - 6)
    for p in me.potions:
        paste(img, icon(f"potion.{p}", 64), (px, y + 68))
        px += 70
    return img.crop((0, 0, WIDTH, y + box_h + MARGIN))
