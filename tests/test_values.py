"""engine.values: the fast __init__ and copy of frozen value classes behave like the dataclass's."""

from __future__ import annotations

import dataclasses
import inspect
import pickle

import pytest

from engine import GameConfig, SeatConfig, new_game, values
from engine.actions import Play
from engine.state import Battle, GameState, Seat, evolve_battle, evolve_seat
from engine.values import builder, evolver, fast_init


@dataclasses.dataclass(frozen=True, slots=True)
class Plain:
    """A reference class with the dataclass's own __init__."""

    name: str
    hp: int = 5
    cards: tuple[str, ...] = ()


@fast_init
@dataclasses.dataclass(frozen=True, slots=True)
class Fast:
    """The same fields with the fast __init__."""

    name: str
    hp: int = 5
    cards: tuple[str, ...] = ()


def test_fast_init_keeps_signature_defaults_and_values() -> None:
    assert str(inspect.signature(Fast)) == str(inspect.signature(Plain))
    for args, kwargs in ((("a",), {}), (("a", 3), {}),
                         ((), {"name": "b", "cards": ("x",)}), (("c",), {"hp": 0})):
        fast, plain = Fast(*args, **kwargs), Plain(*args, **kwargs)
        assert dataclasses.astuple(fast) == dataclasses.astuple(plain)
        assert fast == Fast(*args, **kwargs) and hash(fast) == hash(Fast(*args, **kwargs))
    with pytest.raises(TypeError):
        Fast()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Fast("a", colour="red")  # type: ignore[call-arg]


def test_fast_values_stay_frozen_and_pickle() -> None:
    value = Fast("a", 2, ("x",))
    with pytest.raises(dataclasses.FrozenInstanceError):
        value.hp = 3  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(value)) == value
    state = new_game(GameConfig(seats=(SeatConfig("horan"), SeatConfig("taia")), seed=4))
    assert pickle.loads(pickle.dumps(state)) == state


def test_evolver_matches_dataclasses_replace() -> None:
    state = new_game(GameConfig(seats=(SeatConfig("horan"), SeatConfig("taia")), seed=4))
    seat = state.seats[0]
    assert evolve_seat(seat, hp=2, keys=("g1",)) == dataclasses.replace(seat, hp=2, keys=("g1",))
    assert evolve_seat(seat) == seat and evolve_seat(seat) is not seat
    battle = Battle(level=1, slot=2, monster="m")
    assert evolve_battle(battle, chain=("c",)) == dataclasses.replace(battle, chain=("c",))
    later = evolver(GameState)(state, step=7, round=3)
    assert later == dataclasses.replace(state, step=7, round=3)
    assert isinstance(later, GameState) and later.seats is state.seats
    with pytest.raises(TypeError):
        evolve_seat(seat, colour="red")


def test_engine_values_use_the_fast_init() -> None:
    """The hot classes really got it (a plain dataclass __init__ calls object.__setattr__)."""
    for cls in (Seat, Battle, GameState, Play):
        assert "set_" in " ".join(cls.__init__.__code__.co_names), cls
    for cls in (Seat, Battle, GameState):  # wide enough to be built as their twins
        assert "Twin" in cls.__init__.__code__.co_names, cls


def test_classes_the_fast_paths_cannot_serve_are_refused() -> None:
    @dataclasses.dataclass(frozen=True)
    class NoSlots:
        a: int

    @dataclasses.dataclass(frozen=True, slots=True)
    class Factory:
        a: list[int] = dataclasses.field(default_factory=list)

    @dataclasses.dataclass(frozen=True, slots=True)
    class Post:
        a: int

        def __post_init__(self) -> None:
            pass

    for cls in (NoSlots, Factory, Post):
        with pytest.raises(TypeError):
            fast_init(cls)
        with pytest.raises(TypeError):
            evolver(cls)


@fast_init
@dataclasses.dataclass(frozen=True, slots=True)
class Wide:
    """Enough fields to be built as its twin (engine.values._TWIN_FROM)."""

    a: int
    b: str
    c: tuple[int, ...] = ()
    d: int | None = None
    e: bool = False


@dataclasses.dataclass(frozen=True, slots=True)
class PlainWide:
    """The same fields with the dataclass's own __init__."""

    a: int
    b: str
    c: tuple[int, ...] = ()
    d: int | None = None
    e: bool = False


class WideChild(Wide):
    """A subclass: its instances must keep their own class."""

    __slots__ = ()


@dataclasses.dataclass(frozen=True, slots=True)
class FrozenBase:
    """A frozen base class, whose own __setattr__ rules out a twin for its subclasses."""

    a: int


@fast_init
@dataclasses.dataclass(frozen=True, slots=True)
class FrozenChild(FrozenBase):
    """Built slot by slot: its base would refuse the twin's stores."""

    b: int
    c: int = 0
    d: int = 0


def test_twin_built_values_are_the_class_itself_and_stay_frozen() -> None:
    assert values._twin(Wide) is not None and values._twin(FrozenChild) is None
    wide, plain = Wide(1, "x", (2,), e=True), PlainWide(1, "x", (2,), e=True)
    assert type(wide) is Wide and dataclasses.astuple(wide) == dataclasses.astuple(plain)
    assert wide == Wide(1, "x", (2,), None, True) and hash(wide) == hash(Wide(1, "x", (2,), e=True))
    assert pickle.loads(pickle.dumps(wide)) == wide
    with pytest.raises(dataclasses.FrozenInstanceError):
        wide.a = 2  # type: ignore[misc]
    changed = evolver(Wide)(wide, d=4)
    assert type(changed) is Wide and changed == Wide(1, "x", (2,), 4, True)
    with pytest.raises(dataclasses.FrozenInstanceError):
        changed.d = 5  # type: ignore[misc]
    half = builder(Wide, ("a", "b"))(7, "y")
    assert type(half) is Wide and (half.a, half.b) == (7, "y")
    with pytest.raises(AttributeError):
        half.c  # noqa: B018 - an unset slot
    child = WideChild(3, "z")
    assert type(child) is WideChild and (child.a, child.b, child.c) == (3, "z", ())
    frozen = FrozenChild(1, 2, d=3)
    assert type(frozen) is FrozenChild and dataclasses.astuple(frozen) == (1, 2, 0, 3)
    assert evolver(FrozenChild)(frozen, c=9) == FrozenChild(1, 2, 9, 3)
