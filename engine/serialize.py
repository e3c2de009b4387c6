"""Versioned JSON for states, configs and messages; reading checks types and the format version."""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from enum import Enum
from typing import Any, TypeVar, Union, get_args, get_origin, get_type_hints

from engine.errors import BadState
from engine.state import STATE_FORMAT, GameConfig, GameState
from i18n import Msg

T = TypeVar("T")


def to_data(value: Any) -> Any:
    """Plain JSON-ready data for a state value (dataclasses, tuples, enums, messages)."""
    if isinstance(value, Msg):
        return {"key": value.key, "params": {k: to_data(v) for k, v in value.params}}
    if isinstance(value, Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_data(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple | list):
        return [to_data(v) for v in value]
    return value


def _msg(data: Any) -> Msg:
    if not isinstance(data, dict) or set(data) != {"key", "params"}:
        raise BadState("a message must have key and params")
    params = data["params"]
    if not isinstance(data["key"], str) or not isinstance(params, dict):
        raise BadState("malformed message")
    return Msg(data["key"], tuple(sorted(
        (k, _msg(v) if isinstance(v, dict) else _scalar(v)) for k, v in params.items())))


def _scalar(v: Any) -> str | int:
    if isinstance(v, bool) or not isinstance(v, str | int):
        raise BadState(f"bad message parameter {v!r}")
    return v


_HINTS: dict[type, dict[str, Any]] = {}


def from_data(kind: Any, data: Any) -> Any:
    """Rebuild a value of type ``kind`` from :func:`to_data` output, checking every type."""
    if kind is Msg:
        return _msg(data)
    origin = get_origin(kind)
    if origin in (Union, types.UnionType):
        options = get_args(kind)
        if data is None and type(None) in options:
            return None
        for option in options:
            if option is type(None):
                continue
            try:
                return from_data(option, data)
            except BadState:
                continue
        raise BadState(f"{data!r} fits none of {kind}")
    if origin is tuple:
        if not isinstance(data, list):
            raise BadState(f"expected a list, got {type(data).__name__}")
        args = get_args(kind)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(from_data(args[0], v) for v in data)
        if len(args) != len(data):
            raise BadState(f"expected {len(args)} items, got {len(data)}")
        return tuple(from_data(a, v) for a, v in zip(args, data, strict=True))
    if isinstance(kind, type) and issubclass(kind, Enum):
        try:
            return kind(data)
        except ValueError as exc:
            raise BadState(f"unknown {kind.__name__} {data!r}") from exc
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        if not isinstance(data, dict):
            raise BadState(f"expected an object for {kind.__name__}")
        hints = _HINTS.get(kind)
        if hints is None:
            hints = _HINTS[kind] = get_type_hints(kind)
        names = {f.name for f in dataclasses.fields(kind)}
        if set(data) - names:
            raise BadState(f"unknown fields {sorted(set(data) - names)} in {kind.__name__}")
        try:
            return kind(**{n: from_data(hints[n], data[n]) for n in names if n in data})
        except TypeError as exc:
            raise BadState(f"{kind.__name__}: {exc}") from exc
    if kind is bool:
        if not isinstance(data, bool):
            raise BadState(f"expected true/false, got {data!r}")
        return data
    if kind is int:
        if isinstance(data, bool) or not isinstance(data, int):
            raise BadState(f"expected a number, got {data!r}")
        return data
    if kind is str:
        if not isinstance(data, str):
            raise BadState(f"expected text, got {data!r}")
        return data
    if kind is typing.Any:
        return data
    raise BadState(f"cannot read type {kind}")


def state_to_json(state: GameState) -> str:
    """The state as versioned JSON text."""
    return json.dumps({"format": STATE_FORMAT, "state": to_data(state)}, separators=(",", ":"))


def state_from_json(text: str | bytes) -> GameState:
    """Read a state written by :func:`state_to_json`; raises :class:`BadState` on any problem."""
    try:
        doc = json.loads(text)
    except (ValueError, TypeError) as exc:
        raise BadState(f"not JSON: {exc}") from exc
    if not isinstance(doc, dict) or "format" not in doc or "state" not in doc:
        raise BadState("not a saved game")
    if doc["format"] != STATE_FORMAT:
        raise BadState(f"saved game format {doc['format']!r}, this engine reads {STATE_FORMAT}")
    state = from_data(GameState, doc["state"])
    assert isinstance(state, GameState)
    from engine.validate import check_state

    check_state(state)
    return state


def config_to_data(config: GameConfig) -> dict[str, Any]:
    """A game configuration as plain data."""
    data = to_data(config)
    assert isinstance(data, dict)
    return data


def config_from_data(data: Any) -> GameConfig:
    """Read a configuration written by :func:`config_to_data`."""
    config = from_data(GameConfig, data)
    assert isinstance(config, GameConfig)
    return config
