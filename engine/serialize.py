"""Versioned JSON for states, configs and messages; reading checks types and the format version."""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Callable
from enum import Enum
from typing import Any, TypeVar, Union, get_args, get_origin, get_type_hints

from engine.errors import BadState
from engine.state import STATE_FORMAT, GameConfig, GameState
from i18n import Msg

T = TypeVar("T")


_FIELDS: dict[type, tuple[str, ...]] = {}
_PLAIN = (str, int, bool, float, type(None))


def to_data(value: Any) -> Any:
    """Plain JSON-ready data for a state value (dataclasses, tuples, enums, messages)."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is tuple or kind is list:
        if all(type(v) is str for v in value):
            return list(value)
        return [to_data(v) for v in value]
    if kind is Msg:
        return {"key": value.key, "params": {k: to_data(v) for k, v in value.params}}
    names = _FIELDS.get(kind)
    if names is not None:
        return {n: to_data(getattr(value, n)) for n in names}
    if isinstance(value, Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(value))
        return to_data(value)
    if isinstance(value, tuple | list):
        return [to_data(v) for v in value]
    return value


Reader = Callable[[Any, str], Any]
_READERS: dict[Any, Reader] = {}


def _msg(data: Any, at: str) -> Msg:
    if not isinstance(data, dict) or set(data) != {"key", "params"}:
        raise BadState(f"{at}: a message must have key and params")
    params = data["params"]
    if not isinstance(data["key"], str) or not isinstance(params, dict):
        raise BadState(f"{at}: malformed message")
    return Msg(data["key"], tuple(sorted(
        (k, _msg(v, f"{at}.{k}") if isinstance(v, dict) else _scalar(v, f"{at}.{k}"))
        for k, v in params.items())))


def _scalar(v: Any, at: str) -> str | int:
    if isinstance(v, bool) or not isinstance(v, str | int):
        raise BadState(f"{at}: bad message parameter {v!r}")
    return v


def _reader(kind: Any) -> Reader:
    """The checking reader of type ``kind``, built once per type."""
    reader = _READERS.get(kind)
    if reader is None:
        reader = _READERS[kind] = _build(kind)
    return reader


def _build(kind: Any) -> Reader:
    if kind is Msg:
        return _msg
    origin = get_origin(kind)
    if origin in (Union, types.UnionType):
        return _union(kind)
    if origin is tuple:
        return _tuple(kind)
    if isinstance(kind, type) and issubclass(kind, Enum):
        enum = kind

        def read_enum(data: Any, at: str) -> Any:
            try:
                return enum(data)
            except ValueError as exc:
                raise BadState(f"{at}: unknown {enum.__name__} {data!r}") from exc
        return read_enum
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        return _dataclass(kind)
    if kind in _SIMPLE:
        return _SIMPLE[kind]
    if kind is typing.Any:
        return lambda data, at: data
    raise BadState(f"cannot read type {kind}")


def _read_bool(data: Any, at: str) -> bool:
    if not isinstance(data, bool):
        raise BadState(f"{at}: expected true/false, got {data!r}")
    return data


def _read_int(data: Any, at: str) -> int:
    if type(data) is not int:
        raise BadState(f"{at}: expected a number, got {data!r}")
    return data


def _read_str(data: Any, at: str) -> str:
    if not isinstance(data, str):
        raise BadState(f"{at}: expected text, got {data!r}")
    return data


_SIMPLE: dict[Any, Reader] = {bool: _read_bool, int: _read_int, str: _read_str}


def _union(kind: Any) -> Reader:
    optional = type(None) in get_args(kind)
    readers = [_reader(o) for o in get_args(kind) if o is not type(None)]

    def read_union(data: Any, at: str) -> Any:
        if data is None and optional:
            return None
        if len(readers) == 1:
            return readers[0](data, at)
        for reader in readers:
            try:
                return reader(data, at)
            except BadState:
                continue
        raise BadState(f"{at}: {data!r} fits none of {kind}")
    return read_union


def _tuple(kind: Any) -> Reader:
    args = get_args(kind)
    if len(args) == 2 and args[1] is Ellipsis:
        item = _reader(args[0])
        plain = args[0] if args[0] in (str, int) else None

        def read_many(data: Any, at: str) -> tuple[Any, ...]:
            if not isinstance(data, list):
                raise BadState(f"{at}: expected a list, got {type(data).__name__}")
            if plain is not None and all(type(v) is plain for v in data):
                return tuple(data)
            return tuple([item(v, f"{at}[{i}]") for i, v in enumerate(data)])
        return read_many
    items = [_reader(a) for a in args]

    def read_fixed(data: Any, at: str) -> tuple[Any, ...]:
        if not isinstance(data, list):
            raise BadState(f"{at}: expected a list, got {type(data).__name__}")
        if len(items) != len(data):
            raise BadState(f"{at}: expected {len(items)} items, got {len(data)}")
        return tuple([r(v, f"{at}[{i}]") for i, (r, v) in enumerate(zip(items, data,
                                                                           strict=True))])
    return read_fixed


def _dataclass(kind: type) -> Reader:
    hints = get_type_hints(kind)
    fields = dataclasses.fields(kind)
    names = frozenset(f.name for f in fields)
    required = [f.name for f in fields if f.default is dataclasses.MISSING
                and f.default_factory is dataclasses.MISSING]
    readers: list[tuple[str, Reader]] = []

    def read_dataclass(data: Any, at: str) -> Any:
        if not readers:
            readers.extend((f.name, _reader(hints[f.name])) for f in fields)
        if not isinstance(data, dict):
            raise BadState(f"{at}: expected an object for {kind.__name__}")
        if not names.issuperset(data):
            raise BadState(f"{at}: unknown fields {sorted(set(data) - names)} in {kind.__name__}")
        missing = [n for n in required if n not in data]
        if missing:
            raise BadState(f"{at}: {kind.__name__} lacks {missing}")
        try:
            return kind(**{n: r(data[n], f"{at}.{n}") for n, r in readers if n in data})
        except TypeError as exc:
            raise BadState(f"{at}: {kind.__name__}: {exc}") from exc
    return read_dataclass


def from_data(kind: Any, data: Any, at: str = "") -> Any:
    """Rebuild a value of type ``kind`` from :func:`to_data` output, checking every type.

    A problem raises :class:`BadState` naming where it is (``state.seats[0].hp: ...``); ``at``
    is the name of the value for those messages.
    """
    return _reader(kind)(data, at or getattr(kind, "__name__", "value"))


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
    state = from_data(GameState, doc["state"], "state")
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
    config = from_data(GameConfig, data, "config")
    assert isinstance(config, GameConfig)
    return config
