"""The events the rules narrate, one maker per event: ``events.play(who, card)`` is the event
"Ann plays Cleave." as an :class:`~engine.state.Event` holding its :class:`~i18n.Msg`.

Made the plain way (``Event(msg("event.play", who=..., card=...))``), an event costs a keyword
dictionary, an ordering of its parameters and two constructors, and the rules narrate two or three
events for every action applied. A maker is built once by :func:`maker`: it takes the parameters
positionally, already knows their name order and fills the slots directly. Every maker also takes
``to``, the only seat that may see the event (None: everyone).
"""

from __future__ import annotations

from collections.abc import Callable

from engine.state import Event
from i18n import Msg

#: Every maker by its event key (the tests check each against the English text's placeholders).
MAKERS: dict[str, tuple[str, ...]] = {}


def maker(key: str, *names: str) -> Callable[..., Event]:
    """A function ``(*values, to=None) -> Event`` making the event ``key`` with the parameters
    ``names``, given in that order."""
    if key in MAKERS or len(set(names)) != len(names) or "to" in names:
        raise ValueError(f"bad event maker {key!r} {names!r}")
    MAKERS[key] = names
    namespace = {
        "new": object.__new__, "Msg": Msg, "Event": Event, "KEY": key,
        "set_key": Msg.__dict__["key"].__set__, "set_params": Msg.__dict__["params"].__set__,
        "set_text": Event.__dict__["text"].__set__, "set_to": Event.__dict__["to"].__set__,
    }
    params = "".join(f"({name!r}, {name}), " for name in sorted(names))
    args = "".join(f"{name}, " for name in names)
    exec(  # noqa: S102 - built once per event key from the names above
        f"def make({args}*, to=None):\n"
        f"    text = new(Msg)\n    set_key(text, KEY)\n    set_params(text, ({params}))\n"
        f"    event = new(Event)\n    set_text(event, text)\n    set_to(event, to)\n"
        f"    return event\n", namespace)
    function: Callable[..., Event] = namespace["make"]
    function.__name__ = function.__qualname__ = key.rsplit(".", 1)[-1]
    function.__doc__ = f"The event {key!r} with the parameters {', '.join(names) or 'none'}."
    return function


start = maker("event.start", "lord")
fight = maker("event.fight", "who", "monster", "level")
merchant = maker("event.merchant", "who")
revive = maker("event.revive", "who")
stacking = maker("event.stacking", "who", "mode")
potion_healing = maker("event.potion_healing", "who")
potion_strength = maker("event.potion_strength", "who", "effect", "card")
potion_counter = maker("event.potion_counter", "who", "curse")
discard = maker("event.discard", "who", "card")
ability = maker("event.ability", "who", "hero")
horan = maker("event.horan", "who")
play = maker("event.play", "who", "card")
heal = maker("event.heal", "who", "count")
draw = maker("event.draw", "who", "count")
draw_private = maker("event.draw_private", "cards")
reshuffle = maker("event.reshuffle", "who", "count")
taia_choice = maker("event.taia_choice", "first", "second")
taia_kept = maker("event.taia_kept", "card", "other")
hits = maker("event.hits", "who", "count")
knocked_out = maker("event.knocked_out", "who")
lost = maker("event.lost", "who", "monster", "attack", "hp")
won = maker("event.won", "who", "monster", "attack", "hp")
champion = maker("event.champion", "who")
key = maker("event.key", "who", "level")
reward_card = maker("event.reward_card", "who", "card")
pawned = maker("event.pawned", "who", "card")
equip = maker("event.equip", "who", "card")
bought = maker("event.bought", "who", "item", "paid")
leave = maker("event.leave", "who")
turn = maker("event.turn", "who", "round")
