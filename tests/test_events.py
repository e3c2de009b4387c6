"""engine.events: each maker builds the same event as the plain constructors, with the parameters
its English text expects."""

from __future__ import annotations

import pytest
from msgspec import structs

from engine import events
from engine.state import Event
from i18n import catalog, msg, placeholders, translate

ENGLISH = catalog("en")


def test_every_event_text_has_a_maker_with_its_placeholders() -> None:
    texts = {k for k in ENGLISH if k.startswith("event.")}
    assert set(events.MAKERS) == texts
    for key, names in events.MAKERS.items():
        assert set(names) == placeholders(ENGLISH[key]), key


@pytest.mark.parametrize("key", sorted(events.MAKERS))
def test_a_maker_matches_the_plain_constructors(key: str) -> None:
    names = events.MAKERS[key]
    make = getattr(events, key.removeprefix("event."))
    values = [msg("hero.horan.name") if n == "who" else (3 if n in ("count", "round", "attack",
              "hp") else msg("card.m1-01")) for n in names]
    plain = Event(msg(key, **dict(zip(names, values, strict=True))))
    made = make(*values)
    assert made == plain and hash(made) == hash(plain)
    assert structs.astuple(made) == structs.astuple(plain)
    assert made.text.params == tuple(sorted(made.text.params))
    assert make(*values, to=2) == Event(plain.text, 2)
    assert translate(made.text) == translate(plain.text)
    with pytest.raises(TypeError):
        make(*values, "extra")


def test_bad_makers_are_refused() -> None:
    for key, names in (("event.play", ("who",)), ("event.x", ("a", "a")), ("event.y", ("to",))):
        with pytest.raises(ValueError):
            events.maker(key, *names)


def test_a_viewer_sees_the_public_events_and_its_own_in_order() -> None:
    """``seen_by`` keeps the order of what it may show, whatever holds the events (a tuple, which
    comes back whole when nothing is hidden, a list or a generator)."""
    ann, bob = events.revive("Ann"), events.revive("Bob")
    mine = events.draw_private(msg("list.0"), to=1)
    theirs = events.draw_private(msg("list.0"), to=2)
    log = (ann, theirs, mine, bob, theirs)
    assert events.seen_by(log, 1) == (ann, mine, bob)
    assert events.seen_by(list(log), 2) == (ann, theirs, bob, theirs)
    assert events.seen_by((e for e in log), None) == (ann, bob)
    public = (ann, bob)
    assert events.seen_by(public, 0) is public
    assert events.seen_by((), 0) == ()
