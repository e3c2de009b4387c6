"""Discord's rules for the components of a message: buttons and select menus, and the
Components V2 layout (flag ``IS_COMPONENTS_V2``).

The OpenAPI schema checks each component's shape; these checks hold what it cannot say: with the
flag, no ``content``, ``embeds``, ``poll`` or ``sticker_ids``; at most 40 components counting
nested ones; at most 4,000 characters of text display content in all; which component may sit
where (top level, inside a container, inside a section); 1 to 3 texts and one button or
thumbnail beside them in a section; 1 to 10 gallery items; action rows of 1 to 5 buttons or one
select menu; unique custom_ids and numeric ids. Each problem comes with the path of the field
at fault, so the answer carries Discord's error tree (HTTP 400, code 50035).
"""

from __future__ import annotations

from typing import Any

from loopback.components import (
    BUTTON,
    CONTAINER,
    FILE,
    MEDIA_GALLERY,
    ROW,
    SECTION,
    SELECT_TYPES,
    SEPARATOR,
    TEXT_DISPLAY,
    THUMBNAIL,
    walk,
)

IS_COMPONENTS_V2 = 1 << 15
TOTAL_COMPONENTS = 40
TEXT_TOTAL = 4000
SECTION_TEXTS = 3
GALLERY_ITEMS = 10
MEDIA_DESCRIPTION = 1024
ROW_BUTTONS = 5
CUSTOM_ID = 100
LABEL = 80
PLACEHOLDER = 150
OPTIONS = 25
OPTION_TEXT = 100
LINK = 5
PREMIUM = 6
TOP_LEVEL = (ROW, SECTION, TEXT_DISPLAY, MEDIA_GALLERY, FILE, SEPARATOR, CONTAINER)
IN_CONTAINER = (ROW, SECTION, TEXT_DISPLAY, MEDIA_GALLERY, FILE, SEPARATOR)

Path = tuple[str | int, ...]
Problem = tuple[Path, str]


def _len(value: Any) -> int:
    return len(value) if isinstance(value, str) else 0


def button_problems(c: dict[str, Any], where: str) -> list[str]:
    """What breaks the rules of one button (style, custom_id or url, label)."""
    out: list[str] = []
    style = c.get("style")
    label = c.get("label")
    if style == LINK:
        if not c.get("url") or c.get("custom_id"):
            out.append(f"{where}: a link button needs a url and no custom_id")
    elif style == PREMIUM:
        if not c.get("sku_id"):
            out.append(f"{where}: a premium button needs a sku_id")
    elif style in (1, 2, 3, 4):
        if not c.get("custom_id"):
            out.append(f"{where}: a button without custom_id")
        if c.get("url"):
            out.append(f"{where}: a non-link button with a url")
    else:
        out.append(f"{where}: unknown button style {style!r}")
    if _len(label) > LABEL:
        out.append(f"{where}: label of {_len(label)} characters (at most {LABEL})")
    if style != PREMIUM and not label and not c.get("emoji"):
        out.append(f"{where}: a button needs a label or an emoji")
    return out


def select_problems(c: dict[str, Any], where: str) -> list[str]:
    """What breaks the rules of one select menu (placeholder, value counts, options)."""
    out: list[str] = []
    if not c.get("custom_id"):
        out.append(f"{where}: a select menu without custom_id")
    if _len(c.get("placeholder")) > PLACEHOLDER:
        out.append(f"{where}: placeholder of {_len(c.get('placeholder'))} characters "
                   f"(at most {PLACEHOLDER})")
    low = c.get("min_values", 1)
    high = c.get("max_values", 1)
    if not (isinstance(low, int) and isinstance(high, int) and 0 <= low <= high <= OPTIONS
            and high >= 1):
        out.append(f"{where}: min_values {low!r} / max_values {high!r} out of range")
    if c.get("type") == 3:
        options = c.get("options") or []
        if not 1 <= len(options) <= OPTIONS:
            out.append(f"{where}: {len(options)} options (1 to {OPTIONS})")
        if isinstance(high, int) and high > len(options):
            out.append(f"{where}: max_values {high} exceeds its {len(options)} options")
        values: set[str] = set()
        for o in options:
            for key in ("label", "value", "description"):
                if _len(o.get(key)) > OPTION_TEXT:
                    out.append(f"{where}: option {key} of {_len(o.get(key))} characters "
                               f"(at most {OPTION_TEXT})")
            if not o.get("label") or not o.get("value"):
                out.append(f"{where}: an option without label or value")
            if o.get("value") in values:
                out.append(f"{where}: option value {o.get('value')!r} appears twice")
            values.add(o.get("value"))
    return out


def row_problems(row: dict[str, Any], where: str) -> list[str]:
    """What breaks the rules of an action row: 1 to 5 buttons, or one select menu alone."""
    out: list[str] = []
    items = [c for c in row.get("components") or [] if isinstance(c, dict)]
    if not items:
        out.append(f"{where}: an empty action row")
    kinds = {c.get("type") for c in items}
    if kinds & set(SELECT_TYPES) and len(items) != 1:
        out.append(f"{where}: a select menu must be alone in its row")
    if kinds == {BUTTON} and len(items) > ROW_BUTTONS:
        out.append(f"{where}: {len(items)} buttons (at most {ROW_BUTTONS})")
    for i, c in enumerate(items):
        inner = f"{where} item {i}"
        if c.get("type") == BUTTON:
            out += button_problems(c, inner)
        elif c.get("type") in SELECT_TYPES:
            out += select_problems(c, inner)
        else:
            out.append(f"{inner}: component type {c.get('type')!r} cannot sit in a row")
    return out


def id_problems(components: list[Any]) -> list[str]:
    """custom_ids of 1 to 100 characters, each once in the message; numeric ids once each."""
    out: list[str] = []
    seen: set[str] = set()
    numbers: set[int] = set()
    for c in walk(components):
        cid = c.get("custom_id")
        if isinstance(cid, str):
            if not 1 <= len(cid) <= CUSTOM_ID:
                out.append(f"custom_id of {len(cid)} characters (1 to {CUSTOM_ID})")
            if cid in seen:
                out.append(f"custom_id {cid!r} used twice in one message")
            seen.add(cid)
        number = c.get("id")
        if isinstance(number, int):
            if number in numbers:
                out.append(f"component id {number} used twice in one message")
            numbers.add(number)
    return out


def _where(path: Path) -> str:
    return ".".join(map(str, path))


def _component(c: Any, path: Path, allowed: tuple[int, ...]) -> list[Problem]:
    """The problems of one layout component at ``path`` and of what it holds."""
    if not isinstance(c, dict):
        return [(path, "a component must be an object")]
    kind = c.get("type")
    if kind not in allowed:
        return [(path + ("type",), f"component type {kind!r} cannot sit here")]
    out: list[Problem] = []
    inner = [x for x in c.get("components") or []]
    if kind == ROW:
        out += [(path, p) for p in row_problems(c, _where(path))]
    elif kind == CONTAINER:
        if not inner:
            out.append((path + ("components",), "an empty container"))
        for i, x in enumerate(inner):
            out += _component(x, path + ("components", i), IN_CONTAINER)
    elif kind == SECTION:
        if not 1 <= len(inner) <= SECTION_TEXTS:
            out.append((path + ("components",),
                        f"a section holds 1 to {SECTION_TEXTS} text displays, not {len(inner)}"))
        for i, x in enumerate(inner):
            out += _component(x, path + ("components", i), (TEXT_DISPLAY,))
        accessory = c.get("accessory")
        if accessory is None:
            out.append((path + ("accessory",), "a section needs a button or thumbnail accessory"))
        elif isinstance(accessory, dict) and accessory.get("type") == BUTTON:
            out += [(path + ("accessory",), p)
                    for p in button_problems(accessory, _where(path + ("accessory",)))]
        else:
            out += _component(accessory, path + ("accessory",), (THUMBNAIL,))
    elif kind == TEXT_DISPLAY:
        if not _len(c.get("content")):
            out.append((path + ("content",), "a text display needs content"))
    elif kind == THUMBNAIL:
        out += _media(c, path)
    elif kind == MEDIA_GALLERY:
        items = c.get("items") or []
        if not 1 <= len(items) <= GALLERY_ITEMS:
            out.append((path + ("items",),
                        f"a media gallery holds 1 to {GALLERY_ITEMS} items, not {len(items)}"))
        for i, item in enumerate(items):
            out += _media(item if isinstance(item, dict) else {}, path + ("items", i))
    elif kind == FILE:
        url = (c.get("file") or {}).get("url") if isinstance(c.get("file"), dict) else None
        if not (isinstance(url, str) and url.startswith("attachment://")):
            out.append((path + ("file", "url"), "a file component shows an attachment:// file"))
    elif kind == SEPARATOR:
        if c.get("spacing", 1) not in (1, 2):
            out.append((path + ("spacing",), "separator spacing is 1 (small) or 2 (large)"))
    return out


def _media(c: dict[str, Any], path: Path) -> list[Problem]:
    out: list[Problem] = []
    url = (c.get("media") or {}).get("url") if isinstance(c.get("media"), dict) else None
    if not (isinstance(url, str) and url):
        out.append((path + ("media", "url"), "a picture needs a media url"))
    if _len(c.get("description")) > MEDIA_DESCRIPTION:
        out.append((path + ("description",), f"description of {_len(c.get('description'))} "
                    f"characters (at most {MEDIA_DESCRIPTION})"))
    return out


def layout_problems(body: dict[str, Any]) -> list[Problem]:
    """Every rule a Components V2 message body breaks, each with the path at fault."""
    out: list[Problem] = []
    for key in ("content", "embeds", "poll", "sticker_ids"):
        if body.get(key):
            out.append(((key,), f"{key} cannot be used with the IS_COMPONENTS_V2 flag"))
    components = body.get("components") or []
    for i, c in enumerate(components):
        out += _component(c, ("components", i), TOP_LEVEL)
    total = sum(1 for _ in walk(components))
    if total > TOTAL_COMPONENTS:
        out.append((("components",), f"{total} components in all (at most {TOTAL_COMPONENTS})"))
    text = sum(_len(c.get("content")) for c in walk(components) if c.get("type") == TEXT_DISPLAY)
    if text > TEXT_TOTAL:
        out.append((("components",),
                    f"text displays of {text} characters in all (at most {TEXT_TOTAL})"))
    out += [(("components",), p) for p in id_problems(components)]
    return out


def error_tree(problems: list[Problem], code: str = "BASE_TYPE_INVALID") -> dict[str, Any]:
    """Discord's ``errors`` object: nested by path, ``_errors`` lists at the leaves."""
    tree: dict[str, Any] = {}
    for path, message in problems:
        node = tree
        for key in path:
            node = node.setdefault(str(key), {})
        node.setdefault("_errors", []).append({"code": code, "message": message})
    return tree

