"""Command option values checked against the command's declared types before discord.py reads
them: a modified client can send any JSON (a string for a yes/no option, a number for a card
name, ``options: null``), and discord.py only converts what a real client sends."""

from __future__ import annotations

import logging
from typing import Any, cast

import discord
from discord import app_commands

from bot.discord_side.context import answer_privately, loc
from i18n import msg, translate

log = logging.getLogger("karak.bot")
#: The largest integer Discord sends in an integer option.
MAX_INTEGER = 2**53
#: The longest string Discord sends in a string option.
MAX_STRING = 6000

Leaf = app_commands.Command[Any, ..., Any]


def fits(kind: discord.AppCommandOptionType, value: object) -> bool:
    """True when ``value`` is what Discord sends for an option of type ``kind``."""
    match kind:
        case discord.AppCommandOptionType.string:
            return isinstance(value, str) and len(value) <= MAX_STRING
        case discord.AppCommandOptionType.integer:
            return (isinstance(value, int) and not isinstance(value, bool)
                    and abs(value) <= MAX_INTEGER)
        case discord.AppCommandOptionType.boolean:
            return isinstance(value, bool)
        case discord.AppCommandOptionType.number:
            return isinstance(value, int | float) and not isinstance(value, bool)
    return True  # users, channels, roles...: discord.py resolves them itself


def within(param: app_commands.Parameter, value: object) -> bool:
    """True when ``value`` is within the bounds ``param`` declares: a number between its least
    and greatest value, a string of a length between them (Discord's client keeps to them)."""
    if isinstance(value, str):
        size: float = len(value)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        size = value
    else:
        return True
    low, high = param.min_value, param.max_value
    return (low is None or size >= low) and (high is None or size <= high)


def _leaf(tree: app_commands.CommandTree[Any], data: dict[str, Any],
          guild: discord.abc.Snowflake | None) -> tuple[Leaf | None, Any]:
    """The command a payload names and its options (None: not ours, let discord.py answer);
    raises ValueError for a payload no client sends."""
    name = data.get("name")
    command: Leaf | app_commands.Group | None = None
    if isinstance(name, str):
        found = tree.get_command(name, guild=guild) or tree.get_command(name)
        if isinstance(found, app_commands.Command | app_commands.Group):
            command = found
    options = data.get("options", [])
    while isinstance(command, app_commands.Group):
        if not isinstance(options, list) or len(options) != 1 or not isinstance(options[0], dict):
            raise ValueError("a command group needs exactly one subcommand")
        sub = options[0]
        if sub.get("type") not in (1, 2) or not isinstance(sub.get("name"), str):
            raise ValueError("not a subcommand")
        command = command.get_command(sub["name"])
        options = sub.get("options", [])
    return command, options


def well_formed(tree: app_commands.CommandTree[Any], interaction: discord.Interaction[Any]) -> bool:
    """True when every option of the payload is one the command declares, of its declared type
    (among its choices, within its bounds); every required option is there (autocomplete
    aside: what is being typed is not yet bound)."""
    data = cast(dict[str, Any], interaction.data or {})
    guild = discord.Object(interaction.guild_id) if interaction.guild_id else None
    try:
        command, options = _leaf(tree, data, guild)
    except ValueError:
        return False
    if command is None:
        return True
    if not isinstance(options, list) or not all(isinstance(o, dict) for o in options):
        return False
    params = {p.display_name: p for p in command.parameters}
    given = set()
    for option in options:
        param = params.get(option.get("name"))
        if param is None or option.get("type") != param.type.value:
            return False
        value = option.get("value")
        if not fits(param.type, value):
            return False
        if param.choices and not option.get("focused") \
                and value not in {c.value for c in param.choices}:
            return False
        if interaction.type is not discord.InteractionType.autocomplete \
                and not within(param, value):
            return False
        given.add(param.display_name)
    if interaction.type is discord.InteractionType.autocomplete:
        return True
    return all(p.display_name in given for p in params.values() if p.required)


class OptionTree(app_commands.CommandTree[Any]):
    """The command tree, refusing option values a real client never sends."""

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        """Check the options before discord.py reads them; a forged payload gets a private
        answer (an empty suggestion list while typing)."""
        if well_formed(self, interaction):
            return True
        log.warning("refused a command with forged options: %.300r", interaction.data)
        if interaction.type is discord.InteractionType.autocomplete:
            await interaction.response.autocomplete([])
        else:
            await answer_privately(interaction, translate(msg("bot.error.bad_option"),
                                                          loc(interaction)))
        return False


__all__ = ["OptionTree", "fits", "well_formed", "within"]
