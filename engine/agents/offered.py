"""What an agent may choose from: the legal actions without taking a move back.

Taking back a move (``undo``, N19) is for a person's misclick; an agent plays on, so every agent
reads its observation through :func:`without_undo` before choosing (or, when it needs the
actions alone, takes :func:`choices`), and the search never expands a take-back.
"""

from __future__ import annotations

from msgspec.structs import replace

from engine.actions import Action, Undo
from engine.observe import Observation

_UNDO = Undo()


def without_undo(observation: Observation) -> Observation:
    """``observation`` with taking back a move left out of its legal actions (the same
    observation when it offers none)."""
    legal = observation.legal
    if _UNDO not in legal:
        return observation
    return replace(observation, legal=tuple([a for a in legal if a != _UNDO]))


def choices(observation: Observation) -> tuple[Action, ...]:
    """``observation``'s legal actions without taking a move back: :func:`without_undo`'s, for
    an observation :func:`engine.observe.observe` made (which offers ``undo`` last), without
    copying the observation."""
    legal = observation.legal
    if legal and type(legal[-1]) is Undo:
        return legal[:-1]
    return legal
