"""Discord's limits on what a bot may send, as plain checks returning a list of problems.

These are the rules the Discord client and API enforce beyond the request's JSON shape (the
OpenAPI schema covers types and some lengths): message content and embed sizes, the layout of
action rows, buttons and select menus, unique custom_ids, autocomplete results, and which
interaction response types fit which interaction.
"""

from __future__ import annotations

from typing import Any

CONTENT = 2000
EMBEDS = 10
EMBED_TOTAL = 6000
EMBED_TITLE = 256
EMBED_DESCRIPTION = 4096
EMBED_FIELDS = 25
FIELD_NAME = 256
FIELD_VALUE = 1024
FOOTER = 2048
AUTHOR = 256
ROWS = 5
ROW_BUTTONS = 5
CUSTOM_ID = 100
LABEL = 80
PLACEHOLDER = 150
OPTIONS = 25
OPTION_TEXT = 100
FILES = 10
CHOICES = 25
CHOICE_NAME = 100
CHOICE_VALUE = 100
SELECT_TYPES = (3, 5, 6, 7, 8)
BUTTON = 2
ROW = 1
LINK = 5
PREMIUM = 6
EPHEMERAL = 64
IS_COMPONENTS_V2 = 1 << 15

#: Interaction type -> the initial response types Discord accepts for it.
RESPONSES = {
    1: (1,),              # PING -> PONG
    2: (4, 5, 9, 12),     # application command
    3: (4, 5, 6, 7, 9),   # message component
    4: (8,),              # autocomplete -> choices
    5: (4, 5, 6, 7),      # modal submit
}


def _len(value: Any) -> int:
    return len(value) if isinstance(value, str) else 0


def embed_problems(embeds: list[Any]) -> list[str]:
    """What breaks Discord's embed limits (count, every field, total size)."""
    out: list[str] = []
    if len(embeds) > EMBEDS:
        out.append(f"{len(embeds)} embeds (at most {EMBEDS})")
    total = 0
    for i, e in enumerate(embeds):
        if not isinstance(e, dict):
            out.append(f"embed {i} is not an object")
            continue
        title, desc = _len(e.get("title")), _len(e.get("description"))
        footer = _len((e.get("footer") or {}).get("text"))
        author = _len((e.get("author") or {}).get("name"))
        total += title + desc + footer + author
        if title > EMBED_TITLE:
            out.append(f"embed {i}: title of {title} characters (at most {EMBED_TITLE})")
        if desc > EMBED_DESCRIPTION:
            out.append(f"embed {i}: description of {desc} characters "
                       f"(at most {EMBED_DESCRIPTION})")
        if footer > FOOTER:
            out.append(f"embed {i}: footer of {footer} characters (at most {FOOTER})")
        if author > AUTHOR:
            out.append(f"embed {i}: author of {author} characters (at most {AUTHOR})")
        fields = e.get("fields") or []
        if len(fields) > EMBED_FIELDS:
            out.append(f"embed {i}: {len(fields)} fields (at most {EMBED_FIELDS})")
        for f in fields:
            name, value = _len(f.get("name")), _len(f.get("value"))
            total += name + value
            if name > FIELD_NAME or value > FIELD_VALUE:
                out.append(f"embed {i}: a field of {name}/{value} characters "
                           f"(at most {FIELD_NAME}/{FIELD_VALUE})")
    if total > EMBED_TOTAL:
        out.append(f"embeds of {total} characters in all (at most {EMBED_TOTAL})")
    return out


def _button(c: dict[str, Any], where: str) -> list[str]:
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


def _select(c: dict[str, Any], where: str) -> list[str]:
    out: list[str] = []
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


def component_problems(components: list[Any], flags: int = 0) -> list[str]:
    """What breaks Discord's component rules (rows, buttons, selects, custom_ids)."""
    if flags & IS_COMPONENTS_V2:
        return []  # the bot does not use components v2; nothing to check here
    out: list[str] = []
    if len(components) > ROWS:
        out.append(f"{len(components)} action rows (at most {ROWS})")
    seen: set[str] = set()
    for r, row in enumerate(components):
        if not isinstance(row, dict) or row.get("type") != ROW:
            out.append(f"top-level component {r} is not an action row")
            continue
        items = row.get("components") or []
        if not items:
            out.append(f"row {r} is empty")
        kinds = {c.get("type") for c in items}
        if kinds & set(SELECT_TYPES) and len(items) != 1:
            out.append(f"row {r}: a select menu must be alone in its row")
        if kinds == {BUTTON} and len(items) > ROW_BUTTONS:
            out.append(f"row {r}: {len(items)} buttons (at most {ROW_BUTTONS})")
        for i, c in enumerate(items):
            where = f"row {r} item {i}"
            cid = c.get("custom_id")
            if isinstance(cid, str):
                if not 1 <= len(cid) <= CUSTOM_ID:
                    out.append(f"{where}: custom_id of {len(cid)} characters (1 to {CUSTOM_ID})")
                if cid in seen:
                    out.append(f"{where}: custom_id {cid!r} used twice in one message")
                seen.add(cid)
            if c.get("type") == BUTTON:
                out += _button(c, where)
            elif c.get("type") in SELECT_TYPES:
                if not cid:
                    out.append(f"{where}: a select menu without custom_id")
                out += _select(c, where)
            else:
                out.append(f"{where}: component type {c.get('type')!r} cannot sit in a row")
    return out


def message_problems(body: dict[str, Any], files: int = 0) -> list[str]:
    """Every limit a message body (create, edit, callback data, follow-up) breaks."""
    out: list[str] = []
    content = body.get("content")
    if _len(content) > CONTENT:
        out.append(f"content of {_len(content)} characters (at most {CONTENT})")
    out += embed_problems(body.get("embeds") or [])
    flags = body.get("flags") or 0
    out += component_problems(body.get("components") or [], flags if isinstance(flags, int)
                              else 0)
    attachments = body.get("attachments") or []
    if max(files, len(attachments)) > FILES:
        out.append(f"{max(files, len(attachments))} attachments (at most {FILES})")
    return out


def choices_problems(choices: list[Any]) -> list[str]:
    """What breaks the limits of an autocomplete result."""
    out: list[str] = []
    if len(choices) > CHOICES:
        out.append(f"{len(choices)} autocomplete choices (at most {CHOICES})")
    for c in choices:
        name = c.get("name") if isinstance(c, dict) else None
        value = c.get("value") if isinstance(c, dict) else None
        if not isinstance(name, str) or not 1 <= len(name) <= CHOICE_NAME:
            out.append(f"choice name {name!r} (1 to {CHOICE_NAME} characters)")
        if isinstance(value, str) and len(value) > CHOICE_VALUE:
            out.append(f"choice value of {len(value)} characters (at most {CHOICE_VALUE})")
    return out
