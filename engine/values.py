"""Fast construction and copying of the engine's frozen value classes.

A frozen dataclass sets each field in ``__init__`` through ``object.__setattr__``, which goes
through the generic attribute machinery: building a 17-field game state that way costs about
three microseconds, and every applied action builds several states, seats and battles. Two
quicker ways give the same object:

* the slot of a ``slots=True`` class has a descriptor whose ``__set__`` does the store directly,
  at a third of the cost;
* quicker still, a plain *twin* class with the very same slots takes plain stores (one
  interpreter step each); the object is built as the twin, then takes on the frozen class
  (``__class__`` assignment, which Python allows, and checks, between classes of one layout).
  Classes with a few fields or a base class of their own ``__setattr__`` keep the ``__set__``
  stores.

:func:`fast_init` gives a class an ``__init__`` made this way, :func:`evolver` a
copy-with-changes function and :func:`builder` a maker of partly filled objects. The classes stay
frozen (assignment still raises), compare, hash and pickle as before, and keep their constructor
signatures.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")
#: Marks an argument of an evolver that was not given: keep the original's value.
KEEP: Any = object()
#: From this many slots on, an object is built as its class's twin (see :func:`_twin`): taking
#: on the class costs about as much as calling three slots' ``__set__``.
_TWIN_FROM = 4


def _slots(cls: type) -> list[dataclasses.Field[Any]]:
    """The fields of a frozen ``slots=True`` dataclass, checked to be plain ones."""
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or "__slots__" not in cls.__dict__:
        raise TypeError(f"{cls.__name__} must be a frozen dataclass with slots=True")
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__} has __post_init__, which a fast __init__ would skip")
    out = dataclasses.fields(cls)
    for f in out:
        if not f.init or f.default_factory is not dataclasses.MISSING:
            raise TypeError(f"{cls.__name__}.{f.name} needs the dataclass's own __init__")
    return list(out)


def _namespace(cls: type, names: list[str]) -> dict[str, Any]:
    namespace: dict[str, Any] = {"cls": cls, "KEEP": KEEP, "new": object.__new__}
    for name in names:
        namespace[f"set_{name}"] = getattr(cls, name).__set__
    return namespace


def fast_init(cls: type[T]) -> type[T]:
    """Replace a frozen slots dataclass's ``__init__`` with one storing straight into the slots.

    Same parameters, order, defaults and keyword names as the dataclass's own; only fields with
    plain defaults are allowed (no ``default_factory``, no ``__post_init__``).
    """
    fields = _slots(cls)
    names = [f.name for f in fields]
    namespace = _namespace(cls, names)
    params = []
    for f in fields:
        if f.default is dataclasses.MISSING:
            params.append(f.name)
        else:
            namespace[f"default_{f.name}"] = f.default
            params.append(f"{f.name}=default_{f.name}")
    body = "".join(f"    set_{n}(self, {n})\n" for n in names) or "    pass\n"
    twin = _twin(cls) if len(names) >= _TWIN_FROM else None
    if twin is not None:  # the object is the twin while its slots are filled
        namespace.update(Twin=twin, become=object.__setattr__)
        body = ("    if type(self) is not cls:  # a subclass keeps its own class\n"
                + body.replace("    set_", "        set_")
                + "        return\n    become(self, '__class__', Twin)\n"
                + "".join(f"    self.{n} = {n}\n" for n in names)
                + "    self.__class__ = cls\n")
    exec(f"def __init__(self, {', '.join(params)}):\n{body}", namespace)  # noqa: S102
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__doc__ = cls.__init__.__doc__
    init.__annotations__ = dict(cls.__init__.__annotations__)
    setattr(cls, "__init__", init)  # noqa: B010 - replacing the generated method on purpose
    return cls


def _twin(cls: type) -> type | None:
    """A plain class with exactly the slots of ``cls`` (same bases, same names, same order) but
    not its frozen ``__setattr__``, or None if Python would not let one become the other.

    Storing into a plain slot is a single interpreter step, three times quicker than calling the
    slot's ``__set__``; an object built as the twin then takes on ``cls`` as its class, which
    Python allows between classes of the same layout (``__class__`` assignment) and checks.
    """
    twin = type(f"_{cls.__name__}Twin", cls.__bases__, {"__slots__": cls.__dict__["__slots__"]})
    if twin.__setattr__ is not object.__setattr__:  # type: ignore[comparison-overlap]
        return None  # a base class has its own __setattr__
    probe: Any = object.__new__(twin)
    try:
        probe.__class__ = cls
    except TypeError:
        return None
    return twin


def _maker(cls: type, head: str, values: list[tuple[str, str]]) -> Callable[..., Any]:
    """Compile ``def {head}:`` returning a new ``cls`` whose slots are set to the expressions
    ``values`` (name, expression): built as the twin where there is one, else slot by slot."""
    twin = _twin(cls) if len(values) >= _TWIN_FROM else None
    namespace = _namespace(cls, [n for n, _ in values])
    namespace["Twin"] = twin
    if twin is not None:
        body = "    x = new(Twin)\n" + "".join(f"    x.{n} = {e}\n" for n, e in values)
        body += "    x.__class__ = cls\n"
    else:
        body = "    x = new(cls)\n" + "".join(f"    set_{n}(x, {e})\n" for n, e in values)
    exec(f"def {head}:\n{body}    return x\n", namespace)  # noqa: S102
    name = head.split("(", 1)[0]
    function: Callable[..., Any] = namespace[name]
    return function


def evolver(cls: type[T]) -> Callable[..., T]:
    """A function ``(obj, **changes) -> copy`` for one frozen slots dataclass: like
    :func:`dataclasses.replace`, at about a tenth of its cost (no ``__init__`` is run, so the
    class must not rely on one beyond storing its fields)."""
    names = [f.name for f in _slots(cls)]
    params = ", ".join(f"{n}=KEEP" for n in names)
    return _maker(cls, f"evolve(o, *, {params})",
                  [(n, f"o.{n} if {n} is KEEP else {n}") for n in names])


def builder(cls: type[T], names: tuple[str, ...]) -> Callable[..., T]:
    """A function ``(*values) -> obj`` that makes a ``cls`` with only the slots ``names`` filled,
    in that order (fields, or slots of a base class); the others stay unset (for a class that
    works them out when first read)."""
    known = {f.name for f in _slots(cls)}
    for base in cls.__mro__[1:]:  # slots of base classes (private state, say) may be filled too
        known.update(getattr(base, "__slots__", ()))
    unknown = [n for n in names if n not in known]
    if unknown:
        raise TypeError(f"{cls.__name__} has no field {unknown[0]}")
    return _maker(cls, f"build({', '.join(names)})", [(n, n) for n in names])
