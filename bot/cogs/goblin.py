"""The ``/goblin`` slash command group: new, join, leave, start, hand, status, rules, card,
abandon and settings. Commands only parse options and call the controller."""

from __future__ import annotations

import logging
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.controller import loc, public_locale, timer_text
from bot.service import TIMERS, Refusal
from engine.catalog import tables
from engine.names import card_name, word
from i18n import LOCALES, Msg, msg, normalise_locale, translate

if TYPE_CHECKING:
    from bot.client import KarakBot

log = logging.getLogger("karak.bot")


def _t(key: str) -> app_commands.locale_str:
    """A command text: English now, translated through i18n by the tree's translator."""
    return app_commands.locale_str(translate(Msg(key), "en"), key=key)


def _name(command: str) -> app_commands.locale_str:
    """A command's name (``bot.cmd.name.<command>``), localised like every other text."""
    return _t(f"bot.cmd.name.{command}")


#: The options' names, localised (the Python parameter keeps the English name).
OPTION = {o: _t(f"bot.cmd.option.{o}") for o in ("abilities", "timer", "name", "language")}
TIMER_CHOICES = [app_commands.Choice(name=_t(f"bot.cmd.timer.t{t}"), value=t) for t in TIMERS]
#: ``auto`` follows the server's language in Discord; the others force a shipped language.
AUTO = "auto"
LANGUAGE_CHOICES = [app_commands.Choice(name=_t(f"bot.cmd.lang.{c}"), value=c)
                    for c in (AUTO, *LOCALES)]


async def _run(interaction: discord.Interaction[Any], work: Awaitable[None]) -> None:
    """Run a command body; a refusal becomes a polite ephemeral answer."""
    locale = loc(interaction)
    try:
        await work
    except Refusal as exc:
        text = translate(exc.reason, locale)
        if interaction.response.is_done():
            await interaction.edit_original_response(content=text, embed=None, attachments=[])
        else:
            await interaction.response.send_message(text, ephemeral=True)


def card_ids() -> list[str]:
    """Every card a player may look up: starting cards, monsters, gatekeepers and Lords."""
    t = tables()
    out = [c for cards in t.hero_cards.values() for c in cards]
    out += list(t.monsters)
    return out


def card_label(card: str, locale: str) -> str:
    """The name shown for a card in the lookup (the monster and its reward for monsters)."""
    t = tables()
    if card in t.monsters:
        front = translate(msg(f"card.{card}"), locale)
        if t.monsters[card].reward in ("action", "weapon", "armour"):
            return f"{front} / {translate(card_name(card), locale)}"
        return front
    return translate(card_name(card), locale)


def find_card(name: str, locale: str) -> str | None:
    """The card called ``name`` (its label, the monster on its front or the reward on its back),
    in the asker's language first, then in any shipped language."""
    wanted = name.strip().lower()
    for lc in (locale, *(other for other in LOCALES if other != locale)):
        for c in card_ids():
            names = (card_label(c, lc), translate(msg(f"card.{c}"), lc),
                     translate(card_name(c), lc))
            if wanted in (n.lower() for n in names):
                return c
    return None


def card_lines(card: str, locale: str) -> list[str]:
    """What the lookup tells about a card."""
    t = tables()
    lines: list[str] = []
    if card in t.monsters:
        m = t.monsters[card]
        curses = [word("curse", c) for c in m.curses]
        cursed: Msg | str = msg("list.0")
        for i, curse in enumerate(curses):
            cursed = curse if i == 0 else msg("list.more", head=cursed, tail=curse)
        lines.append(translate(msg("bot.card.monster", level=m.level, attack=m.attack, hp=m.hp,
                                   curses=cursed), locale))
        lines.append(translate(msg(f"bot.card.reward_{m.reward}"), locale))
    if card in t.actions:
        a = t.actions[card]
        nxt: Msg | str = msg("list.0")
        for i, c in enumerate(sorted(a.next)):
            w = word("colour", c)
            nxt = w if i == 0 else msg("list.more", head=nxt, tail=w)
        lines.append(translate(msg("bot.card.action", name=card_name(card),
                                   colour=word("colour", a.colour), attack=a.attack,
                                   defence=a.defence, draw=a.draw, heal=a.heal, next=nxt),
                               locale))
    if card in t.equipment:
        e = t.equipment[card]
        lines.append(translate(msg("bot.card.equipment", name=card_name(card),
                                   kind=word("slot", e.kind), attack=e.attack,
                                   defence=e.defence, heal=e.heal, hand=e.hand), locale))
    return lines


class GoblinCog(commands.GroupCog, group_name=_name("group"),
                group_description=_t("bot.cmd.group")):
    """The ``/goblin`` commands."""

    def __init__(self, bot: KarakBot) -> None:
        self.bot = bot
        super().__init__()

    @property
    def ctl(self) -> Any:
        """The bot's controller."""
        return self.bot.controller

    @app_commands.command(name=_name("new"), description=_t("bot.cmd.new"))
    @app_commands.describe(abilities=_t("bot.cmd.new_abilities"), timer=_t("bot.cmd.new_timer"))
    @app_commands.rename(abilities=OPTION["abilities"], timer=OPTION["timer"])
    @app_commands.choices(timer=TIMER_CHOICES)
    @app_commands.guild_only()
    async def new(self, interaction: discord.Interaction[Any], abilities: bool | None = None,
                  timer: app_commands.Choice[int] | None = None) -> None:
        """Open a table in this channel."""
        await _run(interaction, self.ctl.cmd_new(interaction, abilities,
                                                 timer.value if timer else None))

    @app_commands.command(name=_name("join"), description=_t("bot.cmd.join"))
    @app_commands.guild_only()
    async def join(self, interaction: discord.Interaction[Any]) -> None:
        """Take a seat at this channel's table."""
        await _run(interaction, self.ctl.cmd_lobby(interaction, "join"))

    @app_commands.command(name=_name("leave"), description=_t("bot.cmd.leave"))
    @app_commands.guild_only()
    async def leave(self, interaction: discord.Interaction[Any]) -> None:
        """Leave the lobby, or hand your seat in a running game to the AI."""
        await _run(interaction, self.ctl.cmd_lobby(interaction, "leave"))

    @app_commands.command(name=_name("start"), description=_t("bot.cmd.start"))
    @app_commands.guild_only()
    async def start(self, interaction: discord.Interaction[Any]) -> None:
        """Start the game (host)."""
        await _run(interaction, self.ctl.cmd_lobby(interaction, "start"))

    @app_commands.command(name=_name("hand"), description=_t("bot.cmd.hand"))
    @app_commands.guild_only()
    async def hand(self, interaction: discord.Interaction[Any]) -> None:
        """Your hand and your moves, only for you."""
        await _run(interaction, self.ctl.cmd_hand(interaction))

    @app_commands.command(name=_name("status"), description=_t("bot.cmd.status"))
    @app_commands.guild_only()
    async def status(self, interaction: discord.Interaction[Any]) -> None:
        """The table as it is now, only for you."""
        await _run(interaction, self.ctl.cmd_status(interaction))

    @app_commands.command(name=_name("rules"), description=_t("bot.cmd.rules"))
    async def rules(self, interaction: discord.Interaction[Any]) -> None:
        """A short summary of the rules."""
        locale = loc(interaction)
        parts = [translate(Msg(f"bot.rules.{k}"), locale)
                 for k in ("goal", "turn", "battle", "rewards", "merchant", "lord", "bot")]
        embed = discord.Embed(title=translate(Msg("bot.rules.title"), locale),
                              description="\n\n".join(parts)[:4000])
        await interaction.response.send_message(embed=embed, ephemeral=True)

    @app_commands.command(name=_name("card"), description=_t("bot.cmd.card"))
    @app_commands.describe(name=_t("bot.cmd.card_name"))
    @app_commands.rename(name=OPTION["name"])
    async def card(self, interaction: discord.Interaction[Any], name: str) -> None:
        """Look a card up."""
        locale = loc(interaction)
        ids = card_ids()
        found = name if name in ids else find_card(name, locale)
        if found is None:
            await interaction.response.send_message(
                translate(msg("bot.error.unknown_card", name=name[:100]), locale),
                ephemeral=True)
            return
        embed = discord.Embed(title=card_label(found, locale),
                              description="\n".join(card_lines(found, locale)))
        await interaction.response.send_message(embed=embed, ephemeral=True)

    @card.autocomplete("name")
    async def card_complete(self, interaction: discord.Interaction[Any],
                            current: str) -> list[app_commands.Choice[str]]:
        """Up to 25 cards whose name contains what was typed."""
        locale = loc(interaction)
        text = current.strip().lower()
        out: list[app_commands.Choice[str]] = []
        for c in card_ids():
            label = card_label(c, locale)
            if text in label.lower():
                out.append(app_commands.Choice(name=label[:100], value=c))
            if len(out) == 25:
                break
        return out

    @app_commands.command(name=_name("abandon"), description=_t("bot.cmd.abandon"))
    @app_commands.guild_only()
    async def abandon(self, interaction: discord.Interaction[Any]) -> None:
        """Close this channel's table (host or Manage Channels)."""
        await _run(interaction, self.ctl.cmd_abandon(interaction))

    @app_commands.command(name=_name("settings"), description=_t("bot.cmd.settings"))
    @app_commands.describe(abilities=_t("bot.cmd.new_abilities"), timer=_t("bot.cmd.new_timer"),
                           language=_t("bot.cmd.language"))
    @app_commands.rename(abilities=OPTION["abilities"], timer=OPTION["timer"],
                         language=OPTION["language"])
    @app_commands.choices(timer=TIMER_CHOICES)
    @app_commands.choices(language=LANGUAGE_CHOICES)
    @app_commands.guild_only()
    async def settings(self, interaction: discord.Interaction[Any], abilities: bool | None = None,
                       timer: app_commands.Choice[int] | None = None,
                       language: app_commands.Choice[str] | None = None) -> None:
        """Server defaults for new tables, and the language of the server's tables (admins).

        Discord has no default permissions for a subcommand (only for the whole ``/goblin``
        group, which every player needs), so everyone sees this one; the Manage Server check
        below is what keeps it for admins. Server admins may also restrict it in the server's
        Integrations settings.
        """
        locale = loc(interaction)
        guild = interaction.guild_id
        if guild is None or not interaction.permissions.manage_guild:
            await interaction.response.send_message(
                translate(msg("bot.error.admins_only"), locale), ephemeral=True)
            return
        # answer first (Discord's 3 seconds), then write and redraw the server's tables
        await interaction.response.defer(ephemeral=True, thinking=True)
        store = self.bot.service.store
        current = await store.guild_settings(guild) or (False, self.bot.service.default_timer)
        new = (current[0] if abilities is None else abilities,
               current[1] if timer is None else timer.value)
        if abilities is not None or timer is not None or language is not None:
            await store.set_guild_settings(guild, new[0], new[1])
        relocalise: str | None = None
        if language is not None:
            forced = None if language.value == AUTO else normalise_locale(language.value)
            await store.set_guild_locale(guild, forced)
            relocalise = forced or public_locale(interaction)
        forced_now = await store.guild_locale(guild)
        shown: Msg = msg(f"bot.language.{forced_now}") if forced_now else msg(
            "bot.done.language_auto",
            language=msg(f"bot.language.{public_locale(interaction)}"))
        try:
            await interaction.edit_original_response(content=translate(msg(
                "bot.done.settings", abilities=msg("bot.lobby.on" if new[0] else "bot.lobby.off"),
                timer=timer_text(new[1]), language=shown), locale))
        finally:
            if relocalise is not None:  # the lobbies and tables are redrawn after the answer
                await self.ctl.relocalise_guild(guild, relocalise)


__all__ = ["GoblinCog", "card_ids", "card_label", "card_lines", "find_card"]
