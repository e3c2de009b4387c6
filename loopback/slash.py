"""What Discord's client checks before it sends a slash command: the command and sub-command
exist, the user may see it, every option has the right type, choice, length and bounds, and the
required ones are there. Each refusal is a :class:`~loopback.errors.LoopbackError`.

Also what Discord's API checks of the names of a command registered: :func:`name_errors`."""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Any

from loopback.errors import LoopbackError
from loopback.model import Channel, User

#: Letters of these scripts count in a name even when Unicode calls them marks (Devanagari, Thai).
_SCRIPTS = ((0x0900, 0x097F), (0x0E00, 0x0E7F))


def name_ok(name: object) -> bool:
    """True when ``name`` is a name Discord takes for a slash command, sub-command or option:
    1 to 32 of ``-``, ``_``, letters and digits of any script (``numéro``, ``vzít_zpět``; Discord's
    rule ``^[-_\\p{L}\\p{N}\\p{sc=Deva}\\p{sc=Thai}]{1,32}$``), each letter in its lower case
    where it has one."""
    if not isinstance(name, str) or not 1 <= len(name) <= 32 or name != name.lower():
        return False
    return all(c in "-_" or unicodedata.category(c)[0] in "LN"
               or any(low <= ord(c) <= high for low, high in _SCRIPTS) for c in name)


def name_errors(command: Mapping[str, Any]) -> list[str]:
    """Where a command registered breaks Discord's rule for names (:func:`name_ok`): its name, its
    localised names and its options' (sub-commands' too), as paths into the body; none for a
    user or message command (type 2, 3), whose names may hold spaces and capitals."""
    if command.get("type", 1) != 1:
        return []
    out: list[str] = []
    todo: list[tuple[str, Mapping[str, Any]]] = [("", command)]
    while todo:
        path, item = todo.pop()
        if not name_ok(item.get("name")):
            out.append(f"{path}name")
        for locale, name in (item.get("name_localizations") or {}).items():
            if not name_ok(name):
                out.append(f"{path}name_localizations.{locale}")
        todo += [(f"{path}options.{i}.", o) for i, o in enumerate(item.get("options") or [])]
    return sorted(out)


def find_command(registered: list[dict[str, Any]], path: str) -> tuple[
        dict[str, Any], list[str], list[dict[str, Any]]]:
    """The registered command ``path`` names: (root command, sub-command chain, options)."""
    names = path.split()
    if not names:
        raise LoopbackError("empty command", "empty_command")
    root = next((c for c in registered
                 if c["name"] == names[0] and c.get("type", 1) == 1), None)
    if root is None:
        known = ", ".join(sorted(c["name"] for c in registered)) or "none"
        raise LoopbackError(f"no command /{names[0]} is registered (known: {known})",
                             "unknown_command", command=names[0])
    options: list[dict[str, Any]] = root.get("options") or []
    chain: list[str] = []
    for name in names[1:]:
        sub = next((o for o in options if o["name"] == name and o["type"] in (1, 2)), None)
        if sub is None:
            command = " ".join(names[:len(chain) + 1])
            raise LoopbackError(f"/{command} has no sub-command {name}", "no_subcommand",
                                command=command, name=name)
        chain.append(name)
        options = sub.get("options") or []
    if any(o["type"] in (1, 2) for o in options):
        raise LoopbackError(f"/{path} needs a sub-command", "needs_subcommand",
                            command=path)
    return root, chain, options

def option(spec: dict[str, Any], value: Any, forge: bool) -> dict[str, Any]:
    """One option of an interaction, checked like Discord's client checks it (type, choices,
    lengths, bounds) unless ``forge``."""
    kind = spec["type"]
    name = spec["name"]
    ok = {3: isinstance(value, str), 4: isinstance(value, int) and not isinstance(value, bool),
          5: isinstance(value, bool),
          10: isinstance(value, int | float) and not isinstance(value, bool)}.get(kind, True)
    if not ok and not forge:
        raise LoopbackError(f"option {name}: {value!r} is not of type {kind}", "option_type",
                            option=name)
    if not forge:
        choices = spec.get("choices")
        if choices and value not in [c["value"] for c in choices]:
            raise LoopbackError(f"option {name}: {value!r} is not one of its choices",
                                "option_choice", option=name, value=str(value))
        if kind == 3:
            low, high = spec.get("min_length", 0), spec.get("max_length", 6000)
            if not low <= len(value) <= high:
                raise LoopbackError(f"option {name}: length {len(value)} not in "
                                    f"{low}..{high}", "option_length", option=name,
                                    low=low, high=high)
        if kind in (4, 10):
            if "min_value" in spec and value < spec["min_value"]:
                raise LoopbackError(f"option {name}: below {spec['min_value']}",
                                    "option_below", option=name, limit=spec["min_value"])
            if "max_value" in spec and value > spec["max_value"]:
                raise LoopbackError(f"option {name}: above {spec['max_value']}",
                                    "option_above", option=name, limit=spec["max_value"])
    return {"name": name, "type": kind, "value": value}


def command_data(registered: list[dict[str, Any]], channel: Channel, path: str,
                 options: dict[str, Any], focused: str | None, forge: bool,
                 user: User) -> dict[str, Any]:
    """The ``data`` of a slash command (or autocomplete) interaction of ``user``, checked
    against the registered command like Discord's client does (``forge``: unchecked)."""
    root, chain, specs = find_command(registered, path)
    # where Discord offers a command: its contexts (none given: servers and the bot's direct
    # messages); a group direct message only for a command a user install provides
    contexts = root.get("contexts")
    offered = contexts if contexts is not None else [0, 1]
    if channel.context == 2 and 1 not in (root.get("integration_types") or [0]):
        offered = [c for c in offered if c != 2]
    if channel.context not in offered and not forge:
        raise LoopbackError(f"/{root['name']} is not offered in this kind of channel",
                            "command_context", command=root["name"])
    perms = root.get("default_member_permissions")
    if perms not in (None, "") and int(perms) & ~user.permissions and not forge:
        raise LoopbackError(f"/{root['name']} is hidden from {user.name} (permissions)",
                            "command_hidden", command=root["name"])
    by_name = {o["name"]: o for o in specs}
    built = []
    for name, value in options.items():
        spec = by_name.get(name)
        if spec is None:
            if not forge:
                raise LoopbackError(f"/{path} has no option {name}", "no_option",
                                    command=path, option=name)
            spec = {"name": name, "type": 3}
        item = option(spec, value, forge or name == focused)
        if name == focused:
            if not spec.get("autocomplete"):
                raise LoopbackError(f"option {name} has no autocomplete", "no_autocomplete",
                                    option=name)
            item["focused"] = True
        built.append(item)
    if not forge and focused is None:
        missing = [o["name"] for o in specs if o.get("required") and o["name"] not in options]
        if missing:
            raise LoopbackError(f"/{path} needs {', '.join(missing)}", "missing_options",
                                command=path, options=", ".join(missing))
    for name in reversed(chain):
        kind = 1 if name == chain[-1] else 2
        built = [{"name": name, "type": kind, "options": built}]
    data: dict[str, Any] = {"id": root["id"], "name": root["name"], "type": 1,
                            "options": built}
    if root.get("guild_id"):
        data["guild_id"] = root["guild_id"]
    return data


def with_resolved_users(data: dict[str, Any], users: Mapping[int, User]) -> None:
    """Add the ``resolved`` users and members of ``data``'s user options (type 6), as
    Discord sends them: the user objects of the stand-in's known users, named by id or by name
    (as the playground's composer lets one type them)."""
    found: dict[str, Any] = {}
    options: list[dict[str, Any]] = list(data.get("options") or [])
    while options:
        item = options.pop()
        options.extend(item.get("options") or [])
        if item.get("type") == 6:
            typed = str(item.get("value", "")).strip().removeprefix("@")
            known = users.get(int(typed)) if typed.isdigit() else next(
                (u for u in users.values() if u.name.lower() == typed.lower()), None)
            if known is not None:
                item["value"] = str(known.id)
                found[str(known.id)] = known
    if found:
        data["resolved"] = {
            "users": {k: u.payload() for k, u in found.items()},
            "members": {k: {key: v for key, v in u.member().items() if key != "user"}
                        for k, u in found.items()}}
