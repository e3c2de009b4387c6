"""Versioned JSON for states and configurations, written and read by msgspec.

A saved game is ``{"format": 2, "state": {...}}``: the state's structs as JSON objects, tuples
as lists, the phase as its value, and a message as ``{"key": ..., "params": [[name, value], ...]}``;
the state's fields at their default (no battle, no take-back, no winner...) are left out.
Reading checks every type (a number where text belongs, an unknown phase...) and then the game's
invariants (:func:`engine.validate.check_state`); fields the engine does not know are ignored.
Games saved in format 1 (messages' parameters as an object) still load.

A take-back record (N19) is saved as its moves only; the state it starts from, the anchor, is
saved apart by :func:`anchor_to_json` (it changes only when a move opens a new take-back window,
so a store writes it then, not on every move) and given back to :func:`state_from_json`, which
replays the moves from it to rebuild the record. Without the anchor, or with one the moves do
not lead from to this state, the state reads with no take-back open. States saved with the
whole anchor inside the record (before it was kept apart) read with their take-back.

A game won against the Lord saved by an engine that left the won battle open reads as the engine
leaves it today (R60): the cards played in the champion's discard pile, no battle.
"""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec
from msgspec.structs import replace

from engine.actions import parse
from engine.errors import BadNotation, BadState, EngineError
from engine.rules import apply
from engine.state import STATE_FORMAT, GameState, Phase, TakeBack
from engine.validate import check_state

T = TypeVar("T")
#: The first format, whose messages kept their parameters as an object; read, never written.
FORMAT_OBJECT_PARAMS = 1


class _Saved(msgspec.Struct):
    """The envelope of a saved game; the state is read only once its format is known."""

    format: int
    state: msgspec.Raw


_ENCODER = msgspec.json.Encoder()
_ENVELOPE = msgspec.json.Decoder(_Saved)
_STATE = msgspec.json.Decoder(GameState)


def to_data(value: Any) -> Any:
    """Plain JSON-ready data (dicts, lists, strings, numbers) for any engine value."""
    return msgspec.to_builtins(value)


def from_data(kind: type[T], data: Any, at: str = "") -> T:
    """Rebuild a value of type ``kind`` from plain data (:func:`to_data` output, or a format-1
    saved game's), checking every type; a problem raises :class:`BadState` saying where."""
    try:
        return msgspec.convert(_params_as_pairs(data), kind)
    except msgspec.ValidationError as exc:
        raise BadState(f"{at or getattr(kind, '__name__', 'value')}: {exc}") from exc


def _params_as_pairs(data: Any) -> Any:
    """``data`` with every format-1 message (parameters as an object) in today's shape."""
    if isinstance(data, list):
        return [_params_as_pairs(v) for v in data]
    if not isinstance(data, dict):
        return data
    params = data.get("params")
    if set(data) == {"key", "params"} and isinstance(params, dict):
        return {"key": data["key"],
                "params": [[k, _params_as_pairs(v)] for k, v in sorted(params.items())]}
    return {k: _params_as_pairs(v) for k, v in data.items()}


def state_to_json(state: GameState) -> str:
    """The state as versioned JSON text; its take-back record, if any, as its moves only (the
    anchor: :func:`anchor_to_json`)."""
    history = state.undo
    if history is not None and history.base is not None:
        state = replace(state, undo=TakeBack(history.moves))
    return _ENCODER.encode({"format": STATE_FORMAT, "state": state}).decode()


def anchor_to_json(state: GameState) -> str | None:
    """The anchor of ``state``'s take-back record as versioned JSON text (the state before the
    first move that can still be taken back), or None when no take-back is open. It is the same
    for every state of one take-back window: it changes when a move opens a new window (the
    record then lists one move) and goes when the window closes."""
    history = state.undo
    if history is None or history.base is None:
        return None
    return state_to_json(history.base)


def state_from_json(text: str | bytes, anchor: str | bytes | None = None) -> GameState:
    """Read a state written by :func:`state_to_json` (this format or an older one); raises
    :class:`BadState` on any problem, naming where it is.

    ``anchor``: the text :func:`anchor_to_json` gave for the state, which rebuilds its take-back
    record. A record whose anchor is missing, damaged or not this state's is dropped: the state
    reads with no take-back open. A record saved with its anchor inside reads as it was saved.
    """
    state = _tidied(_read(text))
    history = state.undo
    if history is not None and history.base is None:
        for move in history.moves:
            try:
                parse(move)
            except BadNotation as exc:
                raise BadState(f"the take-back record: {exc}") from exc
        state = replace(state, undo=None)
        check_state(state)
        return _rebuilt(state, history.moves, anchor) if anchor is not None else state
    check_state(state)
    return state


def _read(text: str | bytes) -> GameState:
    """The state of a saved game's text, its types checked (not yet its invariants)."""
    try:
        saved = _ENVELOPE.decode(text)
    except (msgspec.DecodeError, TypeError) as exc:  # not JSON text, or no format and state
        raise BadState(f"not a saved game: {exc}") from exc
    if saved.format == STATE_FORMAT:
        try:
            return _STATE.decode(saved.state)
        except msgspec.DecodeError as exc:
            raise BadState(f"state: {exc}") from exc
    if saved.format == FORMAT_OBJECT_PARAMS:
        return from_data(GameState, msgspec.json.decode(saved.state), "state")
    raise BadState(f"saved game format {saved.format!r}, this engine reads {STATE_FORMAT}")


def _tidied(state: GameState) -> GameState:
    """``state``, or the finished game it is with the won battle against the Lord closed as
    the engine closes it now (the cards played go to the champion's discard pile), when an
    earlier engine saved it with that battle left open."""
    battle, winner = state.battle, state.winner
    if state.phase is not Phase.OVER or battle is None or winner is None \
            or not 0 <= winner < len(state.seats):
        return state
    champion = state.seats[winner]
    tidy = replace(champion, discard=champion.discard + battle.chain + battle.drawn)
    return replace(state.with_seat(winner, tidy), battle=None)


def _rebuilt(state: GameState, moves: tuple[str, ...], anchor: str | bytes) -> GameState:
    """``state`` (read without its take-back record) with the record of ``moves`` rebuilt by
    replaying them from ``anchor``; ``state`` as it is when the anchor is damaged or the moves
    do not lead from it to ``state``, each one still a move that can be taken back."""
    try:
        earlier = state_from_json(anchor)
        if earlier.undo is not None:
            return state
        for move in moves:
            earlier, _ = apply(earlier, parse(move))
    except (BadState, EngineError):
        return state
    history = earlier.undo
    if history is None or history.moves != moves or replace(earlier, undo=None) != state:
        return state
    return earlier
