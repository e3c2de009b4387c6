"""Keys that say when a picture must be drawn again: each is computed from exactly what its
picture reads of the observation, and the language.

Two observations with the same :func:`table_key` (or :func:`battle_key`, :func:`hand_key`) in
the same language give the same picture, so a caller may keep the last picture it sent and draw
only when the key changed. A card played in battle changes the battle picture and the mover's
hand, never the table picture: the table leaves out the events and, while a battle is on, the
fighter's hit points and card counts (the battle picture shows them).

Keys are short hexadecimal strings, the same in every process. A caller keeps, per message,
the key of the picture it last sent::

    key = render.table_key(obs, locale)
    if key != sent_key:
        png, sent_key = render.table_image(obs, locale), key
"""

from __future__ import annotations

import hashlib

from engine.observe import Observation
from engine.state import Phase
from render.hand import PENDING_PHASES, card_marks
from render.layout import name_text
from render.seats import Handed
from render.table import open_places, shown_phase


def _digest(*parts: object) -> str:
    return hashlib.blake2b(repr(parts).encode(), digest_size=10).hexdigest()


def table_key(obs: Observation, locale: str = "en", handed: Handed = ()) -> str:
    """The key of :func:`render.table_image` of ``obs`` in ``locale`` with ``handed``."""
    fighter = obs.battle.seat if obs.battle is not None else None
    seats = tuple(
        (s.index, name_text(s.name, locale), s.hero, s.ai or s.index in handed, s.keys,
         s.weapon, s.armour, s.potions,
         None if s.index == fighter else (s.hp, s.hand_count, s.deck_count, len(s.discard)))
        for s in (obs.seats[i] for i in obs.order))
    open_ = open_places(obs)
    places = None if open_ is None else tuple(sorted(open_))
    fought = (obs.battle.seat, obs.battle.level, obs.battle.slot) if obs.battle else None
    shopping = obs.phase in (Phase.MERCHANT, Phase.PAY)
    return _digest("table", locale, obs.round, shown_phase(obs).value, shopping, obs.current,
                   obs.winner, obs.winner is not None and obs.winner in handed,
                   obs.pending, seats, tuple(obs.levels), obs.lord, tuple(obs.potion_piles),
                   obs.pawnshop, fought, places)


def battle_key(obs: Observation, locale: str = "en") -> str:
    """The key of :func:`render.battle_image` of ``obs`` in ``locale`` (None: no battle)."""
    b = obs.battle
    if b is None:
        return _digest("battle", None)
    seat = obs.seats[b.seat]
    return _digest("battle", locale, obs.round, obs.abilities, name_text(seat.name, locale),
                   seat.hp, seat.hand_count, seat.deck_count, b.monster, b.curses, b.countered,
                   b.chain, b.boosted, b.unlocked, b.totals)


def hand_key(obs: Observation, locale: str = "en") -> str:
    """The key of :func:`render.hand_image` of ``obs`` in ``locale`` (a seat's observation)."""
    if obs.viewer is None:
        return _digest("hand", None)
    me = obs.seats[obs.viewer]
    cursed = tuple(obs.battle.active_curses) if obs.battle is not None else ()
    marks = tuple(sorted(card_marks(obs).items()))
    pending = obs.phase.value if obs.phase in PENDING_PHASES else None
    return _digest("hand", locale, name_text(me.name, locale), me.hp, me.hand_size,
                   me.weapon, me.armour, me.potions, me.deck_count, len(me.discard), obs.hand,
                   obs.drawn, marks, bool(obs.legal), pending, cursed)
