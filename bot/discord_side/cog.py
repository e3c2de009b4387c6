"""The ``/goblin`` slash command group: new, learn, join, leave, start, hand, status, rules, card,
history, replay, stats, leaderboard, abandon, forget-me, settings, turns, notify and the
tournament group (new, start, standings, drop, cancel, end-round). This module
only declares the commands and their options; their bodies are in
:mod:`bot.discord_side.commands` (history and replay in :mod:`bot.discord_side.past`, stats and
leaderboard in :mod:`bot.discord_side.standings`, forget-me in :mod:`bot.discord_side.forget`,
turns and notify in :mod:`bot.discord_side.turns`, the tournament group in
:mod:`bot.discord_side.tournaments`)."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord_side import forget
from bot.discord_side.commands import Commands
from bot.discord_side.context import answer_privately, loc
from bot.discord_side.counting import answered
from bot.discord_side.language import follow_person
from bot.discord_side.past import tournament_choices
from bot.discord_side.standings import show_board, show_stats
from bot.discord_side.tournaments import TournamentDesk
from bot.discord_side.turns import set_notify, show_turns
from bot.game.card_lookup import suggest
from bot.game.refusals import Refusal
from bot.game.seats import TIMERS
from bot.game.servers import AUTO
from bot.game.tournaments import MAX_NAME, MAX_ROUNDS
from engine.agents import LEVELS
from i18n import LOCALES, Msg, msg, translate


def _t(key: str) -> app_commands.locale_str:
    """A command text: English now, translated through i18n by the tree's translator."""
    return app_commands.locale_str(translate(Msg(key), "en"), key=key)


def _name(command: str) -> app_commands.locale_str:
    """A command's name (``bot.cmd.name.<command>``), localised like every other text."""
    return _t(f"bot.cmd.name.{command}")


#: The options' names, localised (the Python parameter keeps the English name).
OPTION = {o: _t(f"bot.cmd.option.{o}")
          for o in ("abilities", "timer", "name", "language", "ai_level", "undo", "player",
                    "id", "hints", "thread", "threads")}
TIMER_CHOICES = [app_commands.Choice(name=_t(f"bot.cmd.timer.t{t}"), value=t) for t in TIMERS]
#: ``auto`` follows the server's language in Discord; the others force a shipped language.
LANGUAGE_CHOICES = [app_commands.Choice(name=_t(f"bot.cmd.lang.{c}"), value=c)
                    for c in (AUTO, *LOCALES)]
#: /goblin notify's choices: direct-message reminders on or off.
NOTIFY_CHOICES = [app_commands.Choice(name=_t(f"turns.cmd.{v}"), value=v) for v in ("on", "off")]
#: /goblin tournament new's table sizes.
SIZE_CHOICES = [app_commands.Choice(name=_t(f"bot.tournament.cmd.size.s{n}"), value=n)
                for n in (3, 4)]
#: The options of /goblin tournament, localised.
TOURNAMENT_OPTION = {o: _t(f"bot.tournament.cmd.option.{o}")
                     for o in ("rounds", "table_size", "round_hours", "signup_hours")}
LEVEL_CHOICES = [app_commands.Choice(name=_t(f"bot.cmd.level.{lv}"), value=lv) for lv in LEVELS]


async def _run(interaction: discord.Interaction[Any], work: Awaitable[None]) -> None:
    """Run a command body; a refusal becomes a polite private answer."""
    try:
        await work
        answered(interaction, "accepted")
    except Refusal as exc:
        answered(interaction, "refused")
        text = translate(exc.reason, loc(interaction))
        if interaction.response.is_done():
            await interaction.edit_original_response(content=text, view=None, attachments=[])
        else:
            await answer_privately(interaction, text)


@app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
@app_commands.allowed_installs(guilds=True, users=True)
class GoblinCog(commands.GroupCog, group_name=_name("group"),
                group_description=_t("bot.cmd.group")):
    """The ``/goblin`` commands: offered in servers, in the bot's direct messages and in other
    private channels, for a server install and a user install of the app. A table lives in a
    server channel that installed the bot or in the bot's direct messages (a solo table there);
    elsewhere the service and :func:`~bot.discord_side.context.place_refusal` say why not, and
    the commands that need no table (rules, card) work everywhere."""

    def __init__(self, bodies: Commands) -> None:
        self.bodies = bodies
        super().__init__()

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        """Before every command: in direct messages, the solo table there follows its person's
        language (in the background); every command may run."""
        follow_person(interaction, self.bodies.service, self.bodies.messages)
        return True

    @app_commands.command(name=_name("new"), description=_t("bot.cmd.new"))
    @app_commands.describe(abilities=_t("bot.cmd.new_abilities"), timer=_t("bot.cmd.new_timer"),
                           ai_level=_t("bot.cmd.new_ai_level"), undo=_t("bot.cmd.new_undo"),
                           hints=_t("bot.cmd.new_hints"), thread=_t("bot.cmd.new_thread"))
    @app_commands.rename(abilities=OPTION["abilities"], timer=OPTION["timer"],
                         ai_level=OPTION["ai_level"], undo=OPTION["undo"], hints=OPTION["hints"],
                         thread=OPTION["thread"])
    @app_commands.choices(timer=TIMER_CHOICES)
    @app_commands.choices(ai_level=LEVEL_CHOICES)
    async def new(self, interaction: discord.Interaction[Any], abilities: bool | None = None,
                  timer: app_commands.Choice[int] | None = None,
                  ai_level: app_commands.Choice[str] | None = None,
                  undo: bool | None = None, hints: bool | None = None,
                  thread: bool | None = None) -> None:
        """Open a table in this channel (its match in a thread of its own, by default where
        the bot may create threads)."""
        await _run(interaction, self.bodies.new(interaction, abilities,
                                                timer.value if timer else None,
                                                ai_level.value if ai_level else None, undo,
                                                hints, thread))

    @app_commands.command(name=_name("learn"), description=_t("bot.cmd.learn"))
    async def learn(self, interaction: discord.Interaction[Any]) -> None:
        """A guided first match against easy AI seats."""
        await _run(interaction, self.bodies.learn(interaction))

    @app_commands.command(name=_name("join"), description=_t("bot.cmd.join"))
    async def join(self, interaction: discord.Interaction[Any]) -> None:
        """Take a seat at this channel's table."""
        await _run(interaction, self.bodies.lobby(interaction, "join"))

    @app_commands.command(name=_name("leave"), description=_t("bot.cmd.leave"))
    async def leave(self, interaction: discord.Interaction[Any]) -> None:
        """Leave the lobby, or hand your seat in a running game to the AI."""
        await _run(interaction, self.bodies.lobby(interaction, "leave"))

    @app_commands.command(name=_name("start"), description=_t("bot.cmd.start"))
    async def start(self, interaction: discord.Interaction[Any]) -> None:
        """Start the game (host)."""
        await _run(interaction, self.bodies.lobby(interaction, "start"))

    @app_commands.command(name=_name("hand"), description=_t("bot.cmd.hand"))
    async def hand(self, interaction: discord.Interaction[Any]) -> None:
        """Your hand and your moves, only for you."""
        await _run(interaction, self.bodies.hand(interaction))

    @app_commands.command(name=_name("status"), description=_t("bot.cmd.status"))
    async def status(self, interaction: discord.Interaction[Any]) -> None:
        """The table as it is now, only for you."""
        await _run(interaction, self.bodies.status(interaction))

    @app_commands.command(name=_name("rules"), description=_t("bot.cmd.rules"))
    async def rules(self, interaction: discord.Interaction[Any]) -> None:
        """A short summary of the rules."""
        await _run(interaction, self.bodies.rules(interaction))

    @app_commands.command(name=_name("card"), description=_t("bot.cmd.card"))
    @app_commands.describe(name=_t("bot.cmd.card_name"))
    @app_commands.rename(name=OPTION["name"])
    async def card(self, interaction: discord.Interaction[Any], name: str) -> None:
        """Look a card up."""
        await _run(interaction, self.bodies.card(interaction, name))

    @card.autocomplete("name")
    async def card_complete(self, interaction: discord.Interaction[Any],
                            current: str) -> list[app_commands.Choice[str]]:
        """Up to 25 cards, potions and heroes with a word of their name starting with what was
        typed."""
        return [app_commands.Choice(name=label[:100], value=c)
                for label, c in suggest(current, loc(interaction))]

    @app_commands.command(name=_name("history"), description=_t("bot.cmd.history"))
    @app_commands.describe(player=_t("bot.cmd.history_player"),
                           tournament=_t("history.tournament.describe"))
    @app_commands.rename(player=OPTION["player"], tournament=_t("history.tournament.option"))
    @app_commands.guild_only()
    async def history(self, interaction: discord.Interaction[Any],
                      player: discord.User | None = None,
                      tournament: app_commands.Range[str, 1, 100] | None = None) -> None:
        """Recent matches of this server (of one server tournament), only for you."""
        await _run(interaction, self.bodies.clicks.past.history(
            interaction, player.id if player is not None else None, tournament))

    @history.autocomplete("tournament")
    async def history_tournament_complete(self, interaction: discord.Interaction[Any],
                                          current: str) -> list[app_commands.Choice[str]]:
        """Up to 25 tournaments of this server held in channels the asker may view, newest
        first, each with its status (none in direct messages), those whose name holds what was
        typed; each picked by its number."""
        return [app_commands.Choice(name=label[:100], value=str(tid))
                for label, tid in await tournament_choices(
                    self.bodies.service, self.bodies.clicks.past.sights, interaction,
                    str(current), loc(interaction))]

    @app_commands.command(name=_name("replay"), description=_t("bot.cmd.replay"))
    @app_commands.describe(table=_t("bot.cmd.replay_id"))
    @app_commands.rename(table=OPTION["id"])
    @app_commands.guild_only()
    async def replay(self, interaction: discord.Interaction[Any],
                     table: app_commands.Range[int, 1, 2**53 - 1]) -> None:
        """Step through a finished match of this server, only for you."""
        await _run(interaction, self.bodies.clicks.past.replay(interaction, table))

    @app_commands.command(name=_name("stats"), description=_t("ratings.cmd.stats"))
    @app_commands.describe(player=_t("ratings.cmd.stats_player"))
    @app_commands.rename(player=OPTION["player"])
    async def stats(self, interaction: discord.Interaction[Any],
                    player: discord.User | None = None) -> None:
        """A player's record and rating on this server (one's own record in direct messages),
        privately."""
        await _run(interaction, show_stats(interaction, self.bodies.service,
                                           self.bodies.clicks.past.sights, player))

    @app_commands.command(name=_name("leaderboard"), description=_t("ratings.cmd.leaderboard"))
    @app_commands.guild_only()
    async def leaderboard(self, interaction: discord.Interaction[Any]) -> None:
        """This server's players by rating, privately."""
        await _run(interaction, show_board(interaction, self.bodies.service,
                                           interaction.guild_id, 0))

    @app_commands.command(name=_name("abandon"), description=_t("bot.cmd.abandon"))
    async def abandon(self, interaction: discord.Interaction[Any]) -> None:
        """Close this channel's table (host or Manage Channels)."""
        await _run(interaction, self.bodies.abandon(interaction))

    @app_commands.command(name=_name("forget_me"), description=_t("forget.cmd"))
    async def forget_me(self, interaction: discord.Interaction[Any]) -> None:
        """Delete what the bot keeps about you (asked once, privately)."""
        await _run(interaction, forget.ask(interaction))

    @app_commands.command(name=_name("settings"), description=_t("bot.cmd.settings"))
    @app_commands.describe(abilities=_t("bot.cmd.new_abilities"), timer=_t("bot.cmd.new_timer"),
                           language=_t("bot.cmd.language"), ai_level=_t("bot.cmd.new_ai_level"),
                           undo=_t("bot.cmd.new_undo"), threads=_t("bot.cmd.settings_threads"))
    @app_commands.rename(abilities=OPTION["abilities"], timer=OPTION["timer"],
                         language=OPTION["language"], ai_level=OPTION["ai_level"],
                         undo=OPTION["undo"], threads=OPTION["threads"])
    @app_commands.choices(timer=TIMER_CHOICES)
    @app_commands.choices(language=LANGUAGE_CHOICES)
    @app_commands.choices(ai_level=LEVEL_CHOICES)
    async def settings(self, interaction: discord.Interaction[Any], abilities: bool | None = None,
                       timer: app_commands.Choice[int] | None = None,
                       language: app_commands.Choice[str] | None = None,
                       ai_level: app_commands.Choice[str] | None = None,
                       undo: bool | None = None, threads: bool | None = None) -> None:
        """Server defaults for new tables (each match in a thread of its own or not), and the
        language of the server's tables (admins).

        Discord has no default permissions for a subcommand (only for the whole ``/goblin``
        group, which every player needs), so everyone sees this one; the service's Manage
        Server check keeps it for admins, who may also restrict it in the server's
        Integrations settings.
        """
        await _run(interaction, self.bodies.settings(
            interaction, abilities, timer.value if timer else None,
            language.value if language else None, ai_level.value if ai_level else None, undo,
            threads))

    # ---------------------------------------------------------------- tournaments

    tournament = app_commands.Group(name=_t("bot.tournament.cmd.name.group"),
                                    description=_t("bot.tournament.cmd.group"),
                                    guild_only=True)

    def _desk(self) -> TournamentDesk:
        """The tournament bodies."""
        desk = self.bodies.clicks.tournaments
        if desk is None:
            raise Refusal(msg("bot.tournament.error.no_such"))
        return desk

    @tournament.command(name=_t("bot.tournament.cmd.name.new"),
                        description=_t("bot.tournament.cmd.new"))
    @app_commands.describe(name=_t("bot.tournament.cmd.new_name"),
                           rounds=_t("bot.tournament.cmd.new_rounds"),
                           table_size=_t("bot.tournament.cmd.new_table_size"),
                           timer=_t("bot.cmd.new_timer"), abilities=_t("bot.cmd.new_abilities"),
                           ai_level=_t("bot.tournament.cmd.new_ai_level"),
                           round_hours=_t("bot.tournament.cmd.new_round_hours"),
                           signup_hours=_t("bot.tournament.cmd.new_signup_hours"))
    @app_commands.rename(name=OPTION["name"], rounds=TOURNAMENT_OPTION["rounds"],
                         table_size=TOURNAMENT_OPTION["table_size"], timer=OPTION["timer"],
                         abilities=OPTION["abilities"], ai_level=OPTION["ai_level"],
                         round_hours=TOURNAMENT_OPTION["round_hours"],
                         signup_hours=TOURNAMENT_OPTION["signup_hours"])
    @app_commands.choices(table_size=SIZE_CHOICES)
    @app_commands.choices(timer=TIMER_CHOICES)
    @app_commands.choices(ai_level=LEVEL_CHOICES)
    async def tournament_new(self, interaction: discord.Interaction[Any],
                             name: app_commands.Range[str, 1, MAX_NAME],
                             rounds: app_commands.Range[int, 1, MAX_ROUNDS] | None = None,
                             table_size: app_commands.Choice[int] | None = None,
                             timer: app_commands.Choice[int] | None = None,
                             abilities: bool | None = None,
                             ai_level: app_commands.Choice[str] | None = None,
                             round_hours: app_commands.Range[int, 1, 168] | None = None,
                             signup_hours: app_commands.Range[int, 1, 168] | None = None
                             ) -> None:
        """Open a tournament in this channel, with its sign-up message (Manage Server)."""
        level = ai_level.value if ai_level else None
        await _run(interaction, self._desk().new(
            interaction, name, rounds, table_size.value if table_size else 4,
            timer.value if timer else None, abilities,
            level if level in LEVELS else None, round_hours, signup_hours))

    @tournament.command(name=_t("bot.tournament.cmd.name.start"),
                        description=_t("bot.tournament.cmd.start"))
    async def tournament_start(self, interaction: discord.Interaction[Any]) -> None:
        """Close sign-up and seat round 1 (host or Manage Channels)."""
        await _run(interaction, self._desk().start(interaction))

    @tournament.command(name=_t("bot.tournament.cmd.name.standings"),
                        description=_t("bot.tournament.cmd.standings"))
    async def tournament_standings(self, interaction: discord.Interaction[Any]) -> None:
        """The standings picture, privately."""
        await _run(interaction, self._desk().standings(interaction))

    @tournament.command(name=_t("bot.tournament.cmd.name.drop"),
                        description=_t("bot.tournament.cmd.drop"))
    @app_commands.describe(player=_t("bot.tournament.cmd.drop_player"))
    @app_commands.rename(player=OPTION["player"])
    async def tournament_drop(self, interaction: discord.Interaction[Any],
                              player: discord.User | None = None) -> None:
        """Drop out of the tournament (its host or a channel manager: drop someone)."""
        await _run(interaction, self._desk().drop(interaction, player))

    @tournament.command(name=_t("bot.tournament.cmd.name.cancel"),
                        description=_t("bot.tournament.cmd.cancel"))
    async def tournament_cancel(self, interaction: discord.Interaction[Any]) -> None:
        """Cancel a tournament still taking sign-ups (host or Manage Channels)."""
        await _run(interaction, self._desk().cancel(interaction))

    @tournament.command(name=_t("bot.tournament.end_round.name"),
                        description=_t("bot.tournament.end_round.description"))
    async def tournament_end_round(self, interaction: discord.Interaction[Any]) -> None:
        """End the round under way now, as at its deadline (host or Manage Channels)."""
        await _run(interaction, self._desk().end_round(interaction))

    # ---------------------------------------------------------------- slow matches

    @app_commands.command(name=_name("turns"), description=_t("turns.cmd.turns"))
    async def turns(self, interaction: discord.Interaction[Any]) -> None:
        """Your running matches everywhere, your move first, only for you."""
        await _run(interaction, show_turns(interaction, self.bodies.service))

    @app_commands.command(name=_name("notify"), description=_t("turns.cmd.notify"))
    @app_commands.describe(state=_t("turns.cmd.notify_state"))
    @app_commands.rename(state=_t("turns.cmd.option_state"))
    @app_commands.choices(state=NOTIFY_CHOICES)
    async def notify(self, interaction: discord.Interaction[Any],
                     state: app_commands.Choice[str] | None = None) -> None:
        """Whether the bot may send you a direct message when your turn waits, privately."""
        on = None if state is None else state.value == "on"
        await _run(interaction, set_notify(interaction, self.bodies.service, on))


__all__ = ["GoblinCog"]
