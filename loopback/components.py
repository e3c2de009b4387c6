"""Reading a message's components, whether legacy action rows or a Components V2 layout.

A legacy message holds action rows of buttons and select menus; a Components V2 message (flag
``IS_COMPONENTS_V2``) holds a tree: containers of text displays, sections (text with a button
or thumbnail beside it), media galleries, files, separators and action rows. These helpers walk
either shape, so whoever looks for buttons, text or pictures in a message finds them in both.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

ROW = 1
BUTTON = 2
SELECT_TYPES = (3, 5, 6, 7, 8)
SECTION = 9
TEXT_DISPLAY = 10
THUMBNAIL = 11
MEDIA_GALLERY = 12
FILE = 13
SEPARATOR = 14
CONTAINER = 17


def children(component: dict[str, Any]) -> list[dict[str, Any]]:
    """The components directly inside ``component`` (a section's accessory comes last)."""
    inner = [c for c in component.get("components") or [] if isinstance(c, dict)]
    accessory = component.get("accessory")
    if isinstance(accessory, dict):
        inner.append(accessory)
    return inner


def walk(components: list[Any]) -> Iterator[dict[str, Any]]:
    """Every component of the list and of everything nested in it, in reading order."""
    for c in components:
        if isinstance(c, dict):
            yield c
            yield from walk(children(c))


def interactive(components: list[Any]) -> list[dict[str, Any]]:
    """The buttons and select menus, wherever they sit."""
    return [c for c in walk(components) if c.get("type") == BUTTON or c.get("type") in
            SELECT_TYPES]


def texts(components: list[Any]) -> list[str]:
    """The text a person reads in the components: text displays, button labels, menu
    placeholders and options, pictures' and files' descriptions."""
    out: list[str] = []
    for c in walk(components):
        kind = c.get("type")
        if kind == TEXT_DISPLAY:
            out.append(str(c.get("content") or ""))
        elif kind == BUTTON:
            out.append(str(c.get("label") or ""))
        elif kind in SELECT_TYPES:
            out.append(str(c.get("placeholder") or ""))
            out += [f"{o.get('label')}\n{o.get('description') or ''}"
                    for o in c.get("options") or []]
        elif kind == THUMBNAIL:
            out.append(str(c.get("description") or ""))
        elif kind == MEDIA_GALLERY:
            out += [str(item.get("description") or "") for item in c.get("items") or []
                    if isinstance(item, dict)]
    return [t for t in out if t]


def media_urls(components: list[Any]) -> list[str]:
    """The URLs of the pictures shown (thumbnails and gallery items), in reading order."""
    out: list[str] = []
    for c in walk(components):
        if c.get("type") == THUMBNAIL:
            out.append(_url(c.get("media")))
        elif c.get("type") == MEDIA_GALLERY:
            out += [_url(item.get("media")) for item in c.get("items") or []
                    if isinstance(item, dict)]
    return [u for u in out if u]


def file_urls(components: list[Any]) -> list[str]:
    """The URLs of the file components (``attachment://name``)."""
    return [u for c in walk(components) if c.get("type") == FILE and (u := _url(c.get("file")))]


def _url(media: Any) -> str:
    url = media.get("url") if isinstance(media, dict) else None
    return url if isinstance(url, str) else ""
