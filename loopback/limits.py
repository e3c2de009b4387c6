"""Discord's limits on what a bot may send, as plain checks returning a list of problems.

These are the rules the Discord client and API enforce beyond the request's JSON shape (the
OpenAPI schema covers types and some lengths): message content and embed sizes, components
(legacy action rows here, the Components V2 layout in :mod:`loopback.layout`), autocomplete
results, and which interaction response types fit which interaction.
"""

from __future__ import annotations

from typing import Any

from loopback.components import ROW
from loopback.layout import (
    IS_COMPONENTS_V2,
    Problem,
    id_problems,
    layout_problems,
    row_problems,
)

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
FILES = 10
#: The largest file Discord takes without Nitro or server boosts (bytes; interactions tell it
#: as ``attachment_size_limit``), and the largest request carrying a message.
FILE_SIZE = 10 * 1024 * 1024
REQUEST_SIZE = 25 * 1024 * 1024
CHOICES = 25
CHOICE_NAME = 100
CHOICE_VALUE = 100

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


def component_problems(components: list[Any]) -> list[str]:
    """What breaks Discord's rules for a legacy message's components (no Components V2
    flag): at most 5 action rows, each of 1 to 5 buttons or one select menu."""
    out: list[str] = []
    if len(components) > ROWS:
        out.append(f"{len(components)} action rows (at most {ROWS})")
    for r, row in enumerate(components):
        if not isinstance(row, dict) or row.get("type") != ROW:
            out.append(f"top-level component {r} is not an action row (without the "
                       "IS_COMPONENTS_V2 flag)")
            continue
        out += row_problems(row, f"row {r}")
    return out + id_problems(components)


def message_errors(body: dict[str, Any], files: int = 0,
                   flags: int | None = None) -> list[Problem]:
    """Every limit a message body (create, edit, callback data, follow-up) breaks, each with
    the path of the field at fault. ``flags`` are the message's flags after the request (an
    edit keeps IS_COMPONENTS_V2); by default the body's own."""
    if flags is None:
        raw = body.get("flags")
        flags = raw if isinstance(raw, int) else 0
    out: list[Problem] = []
    content = body.get("content")
    if _len(content) > CONTENT:
        out.append((("content",), f"content of {_len(content)} characters (at most {CONTENT})"))
    out += [(("embeds",), p) for p in embed_problems(body.get("embeds") or [])]
    if flags & IS_COMPONENTS_V2:
        out += layout_problems(body)
    else:
        out += [(("components",), p) for p in component_problems(body.get("components") or [])]
    attachments = body.get("attachments") or []
    if max(files, len(attachments)) > FILES:
        out.append((("attachments",),
                    f"{max(files, len(attachments))} attachments (at most {FILES})"))
    return out


def upload_problems(sizes: list[int]) -> list[str]:
    """What breaks Discord's size limits of uploaded files (each file, and the request)."""
    out = [f"file {i} of {size} bytes (at most {FILE_SIZE})"
           for i, size in enumerate(sizes) if size > FILE_SIZE]
    if sum(sizes) > REQUEST_SIZE:
        out.append(f"files of {sum(sizes)} bytes in all (at most {REQUEST_SIZE})")
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
