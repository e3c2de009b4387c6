"""The settings agree everywhere an admin meets them: the settings class (and its table of
environment variables), the settings reference ``docs/settings.md`` and ``.env.example``, which
holds every setting the reference lists for the bot, the playground and Docker Compose."""

from __future__ import annotations

import re
from pathlib import Path

from bot.process.settings import ENV, OTHER_NAMES, Settings
from playground.app import ENV_DB, ENV_HOST, ENV_LOCALE, ENV_PORT

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "docs" / "settings.md"
#: The sections of the reference whose settings belong in ``.env`` (the rest are for tests).
IN_ENV_FILE = ("The bot", "The playground", "Docker Compose")


def sections() -> dict[str, list[str]]:
    """Section title -> the names in the first column of its table in docs/settings.md."""
    out: dict[str, list[str]] = {}
    title = ""
    for line in REFERENCE.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            title = line[3:].strip()
        elif line.startswith("| `") and title:
            first = line.split("|")[1]
            out.setdefault(title, []).extend(re.findall(r"`([A-Z][A-Z0-9_]*)`", first))
    return out


def example_names() -> set[str]:
    """The names ``.env.example`` assigns, commented out or not (``# KARAK_X=...``)."""
    text = (ROOT / ".env.example").read_text(encoding="utf-8")
    return set(re.findall(r"^(?:# ?)?([A-Z][A-Z0-9_]*)=", text, flags=re.MULTILINE))


def test_every_field_of_the_settings_class_has_its_variable() -> None:
    aliases = {name: field.validation_alias for name, field in Settings.model_fields.items()}
    assert {alias: name for name, alias in aliases.items()} == ENV


def test_the_reference_lists_exactly_the_bots_settings() -> None:
    listed = sections()
    assert sorted(listed["The bot"]) == sorted(ENV)
    assert sorted(listed["The playground"]) == sorted([ENV_DB, ENV_PORT, ENV_HOST, ENV_LOCALE])


def test_every_other_name_the_reference_lists_is_known_to_the_bot() -> None:
    """The names the bot does not read but never warns about are exactly the reference's
    others that begin with ``KARAK_``."""
    listed = sections()
    others = {name for title, names in listed.items() if title != "The bot" for name in names
              if name.startswith("KARAK_")}
    assert sorted(OTHER_NAMES) == sorted(others)


def test_env_example_holds_every_setting_of_the_reference() -> None:
    listed = sections()
    wanted = {name for title in IN_ENV_FILE for name in listed[title]}
    missing = sorted(wanted - example_names())
    assert missing == [], f".env.example lacks {missing} (docs/settings.md lists them)"
    unknown = sorted(example_names() - wanted)
    assert unknown == [], f".env.example sets {unknown}, which docs/settings.md does not explain"


def test_the_readme_points_to_the_reference() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "](docs/settings.md)" in readme
    assert "docs/settings.md" in (ROOT / ".env.example").read_text(encoding="utf-8")
