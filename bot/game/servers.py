"""A server's settings: the defaults of its new tables and the language its tables speak, read
by anyone and changed only by people who may Manage Server."""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack
from dataclasses import dataclass, field, replace

from bot.game.refusals import Refusal
from bot.game.seats import MAX_TIMER, TIMERS, level_of
from bot.game.tables import Tables
from bot.storage.interface import Storage
from bot.storage.records import ServerDefaults
from i18n import LOCALES, msg, normalise_locale

#: The language choice of /goblin settings that follows the server's language in Discord.
AUTO = "auto"


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """A server's defaults for new tables and the language it forced (None: Discord's)."""

    defaults: ServerDefaults
    forced_locale: str | None
    relocalised: tuple[int, ...] = ()  # tables whose language changed with this request
    tournaments: tuple[int, ...] = ()  # tournaments whose language changed with it


#: The timer stored for a server that never chose one: it follows the bot's default
#: (``KARAK_TURN_TIMER``), also when that changes.
UNCHOSEN = -1


def allowed_timer(timer: int) -> bool:
    """Whether ``timer`` (seconds a turn; 0: none) is one a table may have."""
    return timer in TIMERS or 30 <= timer <= MAX_TIMER


@dataclass
class Servers:
    """Reading and changing the servers' settings (``default_timer``: a new server's timer;
    ``default_threads``: whether a server that never chose plays each match in a thread)."""

    store: Storage
    tables: Tables
    default_timer: int = 0
    default_threads: bool = True
    _locks: dict[int, asyncio.Lock] = field(default_factory=dict)

    def _lock(self, guild_id: int) -> asyncio.Lock:
        found = self._locks.get(guild_id)
        if found is None:
            found = self._locks[guild_id] = asyncio.Lock()
        return found

    async def defaults(self, guild_id: int | None) -> ServerDefaults:
        """The defaults of new tables in a server (or outside one); a server that never chose
        a timer (:data:`UNCHOSEN`) follows the bot's default, and so does a saved timer no
        table may have (a damaged row)."""
        saved = await self.store.guild_settings(guild_id)
        if saved is None:
            return ServerDefaults(timer=self.default_timer)
        if not allowed_timer(saved.timer):
            return replace(saved, timer=self.default_timer)
        return saved

    async def threads(self, guild_id: int | None) -> bool:
        """Whether a new match of the server moves to a thread of its own (never outside a
        server)."""
        if guild_id is None:
            return False
        chosen = (await self.defaults(guild_id)).threads
        return self.default_threads if chosen is None else chosen

    async def takebacks(self, guild_id: int | None) -> bool:
        """Whether players may take back a move at a new table of the server (or outside one)
        that chose nothing else for itself (a tournament's match)."""
        return (await self.defaults(guild_id)).undo

    async def settings(self, guild_id: int | None) -> ServerSettings:
        """A server's defaults for new tables and its forced language (read by anyone)."""
        return ServerSettings(await self.defaults(guild_id),
                              await self.store.guild_locale(guild_id))

    async def change_settings(self, guild_id: int | None, admin: bool, *,
                              abilities: bool | None = None, timer: int | None = None,
                              language: str | None = None, ai_level: str | None = None,
                              undo: bool | None = None, threads: bool | None = None,
                              discord_locale: str = "en") -> ServerSettings:
        """/goblin settings: people who may Manage Server (``admin``) set the defaults of new
        tables (``undo``: whether players may take back a move) and the language of the
        server's tables (``language``: a shipped locale or :data:`AUTO`; ``discord_locale``: the
        server's language in Discord, which AUTO follows). Lobbies and running tables change
        language at once, and so do the finished tables whose rematch offer is open (the offer
        and the rematch it starts speak it) and the tournaments taking sign-ups or under way
        (the rounds seated from now on), in one write with the defaults (a database that stops
        part of the way changes nothing); their ids are returned so their messages can be
        redrawn."""
        if guild_id is None:  # direct messages: no server to set
            raise Refusal(msg("bot.error.guild_only"))
        if not admin:
            raise Refusal(msg("bot.error.admins_only"))
        if timer is not None and timer not in TIMERS:
            raise Refusal(msg("bot.error.bad_timer"))
        if language is not None and language != AUTO and language not in LOCALES:
            raise Refusal(msg("bot.error.bad_option"))
        level = level_of(ai_level) if ai_level is not None else None
        async with self._lock(guild_id):
            now = await self.settings(guild_id)
            old = now.defaults
            saved = await self.store.guild_settings(guild_id)
            kept = saved.timer if saved is not None and allowed_timer(saved.timer) else UNCHOSEN
            new = ServerDefaults(old.abilities if abilities is None else abilities,
                                 kept if timer is None else timer,
                                 old.ai_level if level is None else level,
                                 old.undo if undo is None else undo,
                                 old.threads if threads is None else threads)
            chosen = any(v is not None for v in (abilities, timer, level, undo, threads))
            told = replace(new, timer=self.default_timer) if new.timer == UNCHOSEN else new
            if language is None:
                if chosen:
                    await self.store.set_guild_settings(guild_id, new)
                return ServerSettings(told, now.forced_locale)
            forced = None if language == AUTO else normalise_locale(language)
            target = forced or normalise_locale(discord_locale)
            # one write, the tables held (no move of theirs is drawn over by an older
            # language): a database that stops part of the way changes nothing
            async with AsyncExitStack() as held:
                for tid in sorted(await self.store.active_in_guild(guild_id)):
                    await held.enter_async_context(self.tables.locked(tid))
                changed, moved = await self.store.relocalise_guild(
                    guild_id, new if chosen or saved is None else None,  # the row holds it
                    forced, target)
            return ServerSettings(told, forced, tuple(changed), tuple(moved))


__all__ = ["AUTO", "UNCHOSEN", "ServerSettings", "Servers", "allowed_timer"]
