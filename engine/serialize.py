"""Versioned JSON for states and configurations, written and read by msgspec.

A saved game is ``{"format": 2, "state": {...}}``: the state's structs as JSON objects, tuples
as lists, the phase as its value, and a message as ``{"key": ..., "params": [[name, value], ...]}``.
Reading checks every type (a number where text belongs, an unknown phase...) and then the game's
invariants (:func:`engine.validate.check_state`); fields the engine does not know are ignored.
Games saved in format 1 (messages' parameters as an object) still load.
"""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec

from engine.errors import BadState
from engine.state import STATE_FORMAT, GameState
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
    """The state as versioned JSON text."""
    return _ENCODER.encode({"format": STATE_FORMAT, "state": state}).decode()


def state_from_json(text: str | bytes) -> GameState:
    """Read a state written by :func:`state_to_json` (this format or an older one); raises
    :class:`BadState` on any problem, naming where it is."""
    try:
        saved = _ENVELOPE.decode(text)
    except (msgspec.DecodeError, TypeError) as exc:  # not JSON text, or no format and state
        raise BadState(f"not a saved game: {exc}") from exc
    if saved.format == STATE_FORMAT:
        try:
            state = _STATE.decode(saved.state)
        except msgspec.DecodeError as exc:
            raise BadState(f"state: {exc}") from exc
    elif saved.format == FORMAT_OBJECT_PARAMS:
        state = from_data(GameState, msgspec.json.decode(saved.state), "state")
    else:
        raise BadState(f"saved game format {saved.format!r}, this engine reads {STATE_FORMAT}")
    check_state(state)
    return state

