"""Between Discord and the game service: answers clicks and commands, keeps the table message
up to date, lets AI seats play at a visible pace and enforces turn timers.

Every interaction is acknowledged first (deferred), images are drawn off the event loop (in worker
processes in production, see :mod:`bot.drawing`; urgent pictures first), and edits
of a table message are coalesced: while one edit is pending, further changes only mark the table
dirty, so a fast AI turn costs a handful of edits instead of one per move.
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Coroutine, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol

import discord

from bot.drawing import BACKGROUND, URGENT, DrawingPool
from bot.present import Controls, controls, phase_line, seat_line
from bot.service import GameService, Outcome, Refusal, Stale
from bot.storage import TableRecord
from bot.views import BadCustomId, lobby_view, moves_view, parse_custom_id, table_view
from engine import Observation, observe
from i18n import Msg, msg, normalise_locale, translate

if TYPE_CHECKING:
    from bot.client import KarakBot

log = logging.getLogger("karak.bot")
EVENTS_SHOWN = 6
EMPTY = Controls((), ())
MENTIONS = discord.AllowedMentions(everyone=False, roles=False, users=True, replied_user=False)
NO_MENTIONS = discord.AllowedMentions.none()
#: Battle pictures kept (table, version, language): shared by hand and table messages.
BATTLE_PICTURES = 64
#: Metadata key remembering that a finished table's result was posted.
ANNOUNCED = "announced:{}"
#: On start, results not yet posted are posted for games that ended this recently (seconds)...
ANNOUNCE_WINDOW = 3600.0
#: ... among this many most recent finished or abandoned tables.
RECENT_ENDS = 50


class Renderer(Protocol):
    """Turns observations into PNG bytes (the real one is :class:`PillowRenderer`)."""

    def table(self, obs: Observation, locale: str) -> bytes:
        """The public table."""
        ...

    def battle(self, obs: Observation, locale: str) -> bytes:
        """The battle in progress."""
        ...

    def hand(self, obs: Observation, locale: str) -> bytes:
        """The viewer's hand."""
        ...


class PillowRenderer:
    """The project's renderer (``render`` package).

    With ``workers`` > 0 the pictures are drawn in that many worker processes, urgent ones
    first (:mod:`bot.drawing`); with 0, in threads of the bot's process.
    """

    def __init__(self, workers: int = 0) -> None:
        self.pool = DrawingPool(workers)

    async def draw(self, kind: str, obs: Observation, locale: str, urgent: bool = True) -> bytes:
        """Draw ``kind`` (table, battle, hand) off the event loop."""
        return await self.pool.draw(kind, obs, locale, URGENT if urgent else BACKGROUND)

    async def close(self) -> None:
        """Stop the worker processes."""
        await self.pool.close()

    def table(self, obs: Observation, locale: str) -> bytes:
        """The public table."""
        from render import table_image

        return table_image(obs, locale)

    def battle(self, obs: Observation, locale: str) -> bytes:
        """The battle in progress."""
        from render import battle_image

        return battle_image(obs, locale)

    def hand(self, obs: Observation, locale: str) -> bytes:
        """The viewer's hand."""
        from render import hand_image

        return hand_image(obs, locale)


class ImageFile(discord.File):
    """A PNG upload whose attachment id is sent as a snowflake string, as the API specifies
    (discord.py sends the bare index as a number)."""

    def __init__(self, data: bytes, filename: str) -> None:
        super().__init__(io.BytesIO(data), filename=filename)

    def to_dict(self, index: int) -> dict[str, Any]:
        """The attachment entry of the request's payload_json."""
        payload = super().to_dict(index)
        payload["id"] = str(index)
        return payload


async def _nothing() -> None:
    """No picture."""
    return None


def loc(interaction: discord.Interaction[Any]) -> str:
    """The clicking user's locale, mapped onto a shipped one."""
    return normalise_locale(str(interaction.locale.value) if interaction.locale else None)


def public_locale(interaction: discord.Interaction[Any]) -> str:
    """The language of what everyone sees: the server's preferred language in Discord (the
    clicking user's outside a server); a server's forced language is applied by the service."""
    if interaction.guild_locale is not None:
        return normalise_locale(str(interaction.guild_locale.value))
    return loc(interaction)


def timer_text(seconds: int) -> Msg:
    """A turn timer as words."""
    if seconds <= 0:
        return msg("bot.lobby.no_timer")
    if seconds % 60 == 0:
        return msg("bot.lobby.minutes", n=seconds // 60)
    return msg("bot.lobby.seconds", n=seconds)


def jump_url(record: TableRecord) -> str:
    """Link to the table's current message (or its channel)."""
    where = record.message_id or record.lobby_message_id
    guild = record.guild_id if record.guild_id else "@me"
    base = f"https://discord.com/channels/{guild}/{record.channel_id}"
    return f"{base}/{where}" if where else base


#: What the bot needs in a channel to run a table there (threads: sending in threads instead).
NEEDED = ("view_channel", "send_messages", "embed_links", "attach_files")
THREAD_TYPES = (discord.ChannelType.public_thread, discord.ChannelType.private_thread,
                discord.ChannelType.news_thread)


def missing_permissions(interaction: discord.Interaction[Any]) -> list[str]:
    """The permissions the bot lacks in the interaction's channel to post a table there (names
    of :class:`discord.Permissions` flags, in a fixed order)."""
    have = interaction.app_permissions
    channel = interaction.channel
    in_thread = getattr(channel, "type", None) in THREAD_TYPES
    needed = [("send_messages_in_threads" if in_thread and p == "send_messages" else p)
              for p in NEEDED]
    return [p for p in needed if not getattr(have, p)]


def missing_message(missing: Sequence[str]) -> Msg:
    """The refusal naming the missing permissions as Discord's settings call them."""
    names: Msg | str = msg("list.0")
    for i, name in enumerate(missing):
        part = msg(f"bot.perm.{name}")
        names = part if i == 0 else msg("list.more", head=names, tail=part)
    return msg("bot.error.missing_permissions", missing=names)


def is_lobby_message(message: discord.Message, table: int) -> bool:
    """True when ``message`` is a lobby message of table ``table`` (it holds its lobby
    buttons), not some other message a forged click came from."""
    prefix = f"kg:lobby:{table}:"
    return any((getattr(item, "custom_id", None) or "").startswith(prefix)
               for row in message.components for item in getattr(row, "children", ()))


def lobby_seen(message: discord.Message | None, table: int) -> int | None:
    """The number of seats a lobby message showed, read from its Remove AI button's custom_id
    (the lobby's version; None for a message without it)."""
    if message is None:
        return None
    prefix = f"kg:lobby:{table}:unai:"
    for row in message.components:
        for item in getattr(row, "children", ()):
            cid = getattr(item, "custom_id", None) or ""
            if cid.startswith(prefix) and cid[len(prefix):].isdigit():
                return int(cid[len(prefix):])
    return None


class Controller:
    """The bot's behaviour; one per client."""

    def __init__(self, bot: KarakBot, service: GameService, renderer: Renderer, *,
                 ai_pace: float = 1.5, edit_delay: float = 1.0, timer_poll: float = 5.0) -> None:
        self.bot = bot
        self.service = service
        self.renderer = renderer
        self.ai_pace = ai_pace
        self.edit_delay = edit_delay
        self.timer_poll = timer_poll
        self._tasks: set[asyncio.Task[Any]] = set()
        self._dirty: set[int] = set()
        self._refreshing: dict[int, asyncio.Task[Any]] = {}
        self._ai: dict[int, asyncio.Task[Any]] = {}
        self._timer_task: asyncio.Task[Any] | None = None
        self._battles: dict[tuple[int, int, str], asyncio.Future[bytes | None]] = {}

    # ------------------------------------------------------------------ background work

    def spawn(self, coro: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any]:
        """Run ``coro`` in the background, logging (never raising) its failure."""
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._finished)
        return task

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("background task %s failed", task.get_name(), exc_info=task.exception())

    async def idle(self) -> None:
        """Wait until no background work is left (tests; a clean shutdown)."""
        while True:
            pending = [t for t in self._tasks if not t.done() and t is not self._timer_task]
            if not pending:
                return
            await asyncio.gather(*pending, return_exceptions=True)

    async def close(self) -> None:
        """Cancel background work and stop the drawing workers."""
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        closer = getattr(self.renderer, "close", None)
        if closer is not None:
            await closer()

    def start_timers(self) -> None:
        """Start the loop that enforces turn timers."""
        if self._timer_task is None:
            self._timer_task = self.spawn(self._timer_loop(), "turn-timers")

    async def _timer_loop(self) -> None:
        while True:
            await asyncio.sleep(self.timer_poll)
            self.beat()
            try:
                await self.check_timers()
            except Exception:
                log.exception("turn timers failed; trying again")

    def beat(self) -> None:
        """Touch the heartbeat file while connected to Discord (container health check)."""
        path = self.bot.heartbeat
        if path is not None and self.bot.is_ready() and not self.bot.is_closed():
            try:
                path.touch()
            except OSError:
                log.warning("cannot touch the heartbeat file %s", path)

    async def check_timers(self) -> None:
        """Let the AI play every turn whose timer ran out (D7); one table's trouble never stops
        the others' timers."""
        now = self.service.clock()
        for table, version, deadline in await self.service.due():
            if deadline > now:
                continue
            try:
                await self._expire(table, version)
            except Refusal:
                continue
            except Exception:
                log.exception("the turn timer of table %s failed", table)

    async def _expire(self, table: int, version: int) -> None:
        """The AI plays a timed-out turn; the table is told, and goes on whatever that did."""
        outcomes = await self.service.expire(table, version)
        if not outcomes:
            return
        record = outcomes[-1].record
        seat = outcomes[0].seat
        who = record.seats[seat].name or msg(f"hero.{record.game.seats[seat].hero}.name")
        key = "bot.table.timeout_final" if outcomes[0].handed_to_ai else "bot.table.timeout"
        try:
            await self._send_text(record, translate(msg(key, who=who), record.locale))
        except discord.HTTPException as exc:
            log.warning("could not tell table %s its turn timer ran out (%s)", record.id,
                        exc.status)
        finally:
            await self.after(outcomes)

    async def resume(self) -> None:
        """On start: every open lobby gets its message redrawn from the database (posted again
        when it was never posted or is gone), every running table gets its message refreshed
        and its AI seats going, and a game that ended just before a crash gets its result
        posted."""
        for tid in await self.service.store.ids_with_status("lobby"):
            self.spawn(self._resume_lobby(tid), f"lobby-{tid}")
        for tid in await self.service.store.ids_with_status("running"):
            try:
                record = await self.service.load(tid)
            except Refusal as exc:
                log.error("table %s cannot be resumed: %s", tid, exc.__cause__ or exc.reason.key)
                continue
            except Exception:  # one table's trouble never stops the bot from starting
                log.exception("table %s cannot be resumed", tid)
                continue
            self.mark_dirty(tid)
            self.kick_ai(record)
        now = self.service.clock()
        for tid in await self.service.store.history(limit=RECENT_ENDS):
            if await self.service.store.get_meta(ANNOUNCED.format(tid)) is not None:
                continue
            try:
                record = await self.service.load(tid)
            except Refusal:
                continue
            if (record.status == "finished" and record.state is not None
                    and record.game.winner is not None
                    and now - record.updated_at <= ANNOUNCE_WINDOW):
                await self.announce_end(record)

    async def _resume_lobby(self, tid: int) -> None:
        """Redraw one open lobby's message after a restart (its last edit, or its first post,
        may have been lost in a crash)."""
        try:
            record = await self.service.load(tid)
        except Refusal as exc:
            log.error("table %s cannot be resumed: %s", tid, exc.__cause__ or exc.reason.key)
            return
        if record.status == "lobby":
            await self._refresh_lobby(record)

    async def announce_end(self, record: TableRecord) -> None:
        """Post the final table with the winner (once: remembered in the database)."""
        state = record.game
        assert state.winner is not None
        self._dirty.discard(record.id)
        winner = record.seats[state.winner]
        who: str | Msg = (f"<@{winner.user}>" if winner.user and not winner.ai
                          else (winner.name or msg(f"hero.{state.seats[state.winner].hero}"
                                                   ".name")))
        await self.post_table(record, translate(
            msg("bot.table.game_over", who=who, steps=state.step), record.locale),
            mention=True)
        await self.service.store.set_meta(ANNOUNCED.format(record.id), "1")

    # ------------------------------------------------------------------ pictures and payloads

    async def _shared_png(self, key: tuple[int, int, str], obs: Observation, locale: str,
                          urgent: bool = True) -> bytes | None:
        """The battle picture of table ``key[0]`` at version ``key[1]``: the same for every
        viewer, so the hand messages and the table message of that version share one drawing
        (and a drawing in progress is awaited rather than repeated)."""
        found = self._battles.get(key)
        if found is None:
            found = asyncio.ensure_future(self._png("battle", obs, locale, urgent))
            self._battles[key] = found
            while len(self._battles) > BATTLE_PICTURES:
                self._battles.pop(next(iter(self._battles)))
        png = await asyncio.shield(found)
        if png is None and self._battles.get(key) is found:
            del self._battles[key]  # a failed drawing is tried again next time
        return png

    async def _png(self, kind: str, obs: Observation, locale: str,
                   urgent: bool = True) -> bytes | None:
        """A picture drawn off the event loop (``urgent``: someone is waiting for it)."""
        drawer = getattr(self.renderer, "draw", None)
        try:
            if drawer is not None:
                data = await drawer(kind, obs, locale, urgent)
            else:
                data = await asyncio.to_thread(getattr(self.renderer, kind), obs, locale)
        except Exception:
            log.exception("could not draw the %s image", kind)
            return None
        return data if isinstance(data, bytes) else None

    def _events(self, obs: Observation, locale: str, count: int = EVENTS_SHOWN) -> list[str]:
        return [translate(e.text, locale) for e in obs.events[-count:]]

    async def table_payload(self, record: TableRecord, locale: str | None = None,
                            urgent: bool = True,
                            ) -> tuple[discord.Embed, list[discord.File], discord.ui.View | None]:
        """Embed, image and view of the table message: in the table's (public) language, or in
        ``locale`` for a private copy (``urgent=False``: a background refresh, drawn after
        the pictures people are waiting for)."""
        lc = locale or record.locale
        obs = observe(record.game, None)
        lines = [f"**{translate(phase_line(obs), lc)}**", ""]
        if record.status == "abandoned":
            lines[:0] = [f"**{translate(msg('bot.table.abandoned'), lc)}**"]
        elif record.deadline is not None and record.status == "running":
            lines.insert(1, translate(msg("bot.table.deadline",
                                          when=f"<t:{int(record.deadline)}:R>"), lc))
        lines += [translate(seat_line(obs, i, record.seats[i].ai), lc) for i in obs.order]
        events = self._events(obs, lc)
        if events:
            lines += ["", *(f"> {e}" for e in events)]
        embed = discord.Embed(title=translate(msg("bot.table.title", table=record.id), lc),
                              description="\n".join(lines)[:4000], colour=0x8B5A2B)
        embed.set_footer(text=translate(msg("bot.table.footer", round=obs.round, step=obs.step),
                                        lc))
        files: list[discord.File] = []
        kind = "battle" if obs.battle is not None else "table"
        png = (await self._shared_png((record.id, record.version, lc), obs, lc, urgent)
               if kind == "battle" else await self._png(kind, obs, lc, urgent))
        if png is not None:
            files.append(ImageFile(png, f"{kind}.png"))
            embed.set_image(url=f"attachment://{kind}.png")
        view = table_view(record.id, lc) if record.status == "running" else None
        return embed, files, view

    async def hand_payload(self, record: TableRecord, seat: int, locale: str,
                           note: Msg | None = None) -> tuple[list[discord.Embed],
                                                             list[discord.File],
                                                             discord.ui.View | None]:
        """Embeds, images and move controls of one seat's private hand message."""
        obs = observe(record.game, seat)
        playing = record.status == "running" and not record.seats[seat].ai
        ctrls = controls(obs) if playing else EMPTY
        lines: list[str] = []
        if note is not None:
            lines += [f"*{translate(note, locale)}*", ""]
        if ctrls.notations():
            prompt = msg("bot.hand.your_move", phase=msg(f"phase.{obs.phase.value}"))
            lines.append(f"**{translate(prompt, locale)}**")
        else:
            lines.append(translate(phase_line(obs), locale))
        lines.append(translate(seat_line(obs, seat, record.seats[seat].ai), locale))
        private = [translate(e.text, locale) for e in obs.events[-EVENTS_SHOWN:]
                   if e.to == seat]
        lines += [f"> {e}" for e in private[-3:]]
        hand = discord.Embed(title=translate(msg("bot.hand.title", table=record.id), locale),
                             description="\n".join(lines)[:4000], colour=0x3B7A57)
        hand.set_footer(text=translate(msg("bot.table.footer", round=obs.round, step=obs.step),
                                       locale))
        embeds = [hand]
        files: list[discord.File] = []
        png, battle_png = await asyncio.gather(
            self._png("hand", obs, locale),
            self._shared_png((record.id, record.version, locale), obs, locale)
            if obs.battle is not None else _nothing())
        if png is not None:
            files.append(ImageFile(png, "hand.png"))
            hand.set_image(url="attachment://hand.png")
        if obs.battle is not None:
            if battle_png is not None:
                files.append(ImageFile(battle_png, "battle.png"))
                embeds.append(discord.Embed(colour=0x8B0000).set_image(
                    url="attachment://battle.png"))
        view = moves_view(record.id, record.version, ctrls, locale) if ctrls.notations() else None
        return embeds, files, view

    def lobby_payload(self, record: TableRecord, locale: str | None = None,
                      ) -> tuple[discord.Embed, discord.ui.View | None]:
        """Embed and view of a lobby message (in the table's language, or ``locale``)."""
        lc = locale or record.locale
        lines = []
        for i, s in enumerate(record.seats, start=1):
            who: str | Msg = f"<@{s.user}>" if s.user else msg("bot.lobby.ai_name")
            hero = msg(f"hero.{s.hero}.name") if s.hero else msg("bot.lobby.random_hero")
            lines.append(translate(msg("bot.lobby.seat", n=i, who=who, hero=hero), lc))
        lines += ["", translate(msg("bot.lobby.settings",
                                    abilities=msg("bot.lobby.on" if record.abilities
                                                  else "bot.lobby.off"),
                                    timer=timer_text(record.timer)), lc),
                  translate(msg("bot.lobby.host", who=f"<@{record.host_id}>"), lc)]
        if record.status == "running":
            lines.append(translate(msg("bot.lobby.started"), lc))
        elif record.status != "lobby":
            lines.append(translate(msg("bot.lobby.cancelled"), lc))
        embed = discord.Embed(title=translate(msg("bot.lobby.title", table=record.id), lc),
                              description="\n".join(lines), colour=0xC8A951)
        view = None
        if record.status == "lobby":
            view = lobby_view(record.id, {s.hero for s in record.seats if s.hero},
                              len(record.seats), lc, sum(1 for s in record.seats if s.ai))
        return embed, view

    # ------------------------------------------------------------------ channel messages

    def _channel(self, record: TableRecord) -> discord.PartialMessageable:
        return self.bot.get_partial_messageable(record.channel_id, guild_id=record.guild_id)

    async def _send_text(self, record: TableRecord, text: str) -> None:
        await self._channel(record).send(content=text[:2000], allowed_mentions=NO_MENTIONS)

    async def post_table(self, record: TableRecord, content: str | None = None,
                         mention: bool = False) -> None:
        """Post a fresh table message (a turn starts, the game ends, or the old one is gone)."""
        embed, files, view = await self.table_payload(record)
        kwargs: dict[str, Any] = {}
        if view is not None:
            kwargs["view"] = view
        message = await self._channel(record).send(
            content=content, embed=embed, files=files,
            allowed_mentions=MENTIONS if mention else NO_MENTIONS, **kwargs)
        await self.service.store.set_message(record.id, message_id=message.id)

    async def edit_table(self, record: TableRecord, repost: bool = True) -> None:
        """Bring the table message up to date (re-posting it when it was deleted, unless
        ``repost`` is false)."""
        if record.message_id is None:
            if repost:
                await self.post_table(record)
            return
        embed, files, view = await self.table_payload(record, urgent=False)
        message = self._channel(record).get_partial_message(record.message_id)
        try:
            await message.edit(embed=embed, attachments=files, view=view)
        except discord.NotFound:
            if repost:
                await self.post_table(record)

    def mark_dirty(self, table: int) -> None:
        """Ask for the table message to be refreshed soon (coalesced)."""
        self._dirty.add(table)
        task = self._refreshing.get(table)
        if task is None or task.done():
            self._refreshing[table] = self.spawn(self._refresh(table), f"refresh-{table}")

    async def _refresh(self, table: int) -> None:
        """Edit the table message at most once per ``edit_delay``, always with the latest state."""
        await asyncio.sleep(self.edit_delay)
        while table in self._dirty:
            self._dirty.discard(table)
            try:
                record = await self.service.load(table)
            except Refusal:
                return
            if record.state is None:
                return
            try:
                await self.edit_table(record)
            except discord.HTTPException as exc:
                log.warning("could not refresh the table message of table %s (%s)", table,
                            exc.status)
            await asyncio.sleep(self.edit_delay)

    async def after(self, outcomes: Sequence[Outcome]) -> None:
        """Show what the moves changed: a new message (with a mention) when a human's turn
        starts or the game ends, else a coalesced edit; then let AI seats play."""
        if not outcomes:
            return
        last = outcomes[-1]
        record = await self.service.load(last.record.id)
        state = record.game
        if record.status == "finished" and state.winner is not None:
            try:
                await self.announce_end(record)
            except discord.HTTPException as exc:  # posted again on the next start
                log.warning("could not post the result of table %s (%s)", record.id, exc.status)
            self.forget(record.id)
            return
        if record.status != "running":  # abandoned meanwhile: its message was closed
            return
        try:
            if any(o.turn_changed for o in outcomes):
                seat = record.seats[state.current]
                if seat.user is not None and not seat.ai:
                    self._dirty.discard(record.id)
                    try:
                        await self.post_table(record, translate(
                            msg("bot.table.your_turn", who=f"<@{seat.user}>"), record.locale),
                            mention=True)
                        return
                    except discord.HTTPException as exc:
                        log.warning("could not post the turn of table %s (%s)", record.id,
                                    exc.status)
            self.mark_dirty(record.id)
        finally:
            self.kick_ai(record)

    def forget(self, table: int) -> None:
        """Drop what is kept in memory for a table that ended (finished or abandoned)."""
        self._dirty.discard(table)
        self._ai.pop(table, None)
        self._refreshing.pop(table, None)
        self.service.forget(table)

    def kick_ai(self, record: TableRecord) -> None:
        """Start the AI loop of a table if an AI seat must decide."""
        if record.status != "running" or record.state is None:
            return
        if not record.seats[record.game.current].ai:
            return
        task = self._ai.get(record.id)
        if task is None or task.done():
            self._ai[record.id] = self.spawn(self._ai_loop(record.id), f"ai-{record.id}")

    async def _ai_loop(self, table: int) -> None:
        while True:
            await asyncio.sleep(self.ai_pace)
            try:
                outcome = await self.service.ai_step(table)
            except Refusal as exc:
                log.error("AI cannot play table %s: %s", table, exc.reason.key)
                return
            if outcome is None:
                return
            await self.after([outcome])
            if outcome.record.status != "running":
                return

    # ------------------------------------------------------------------ replies

    @staticmethod
    async def _refuse(interaction: discord.Interaction[Any], reason: Msg, locale: str) -> None:
        text = translate(reason, locale)
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)

    # ------------------------------------------------------------------ components

    async def on_component(self, interaction: discord.Interaction[Any], body: str,
                           values: list[str]) -> None:
        """Route a click on one of our buttons or menus."""
        locale = loc(interaction)
        try:
            target = parse_custom_id(body)
        except BadCustomId:
            log.warning("unreadable custom_id %r", body[:100])
            await self._refuse(interaction, msg("bot.error.bad_button"), locale)
            return
        try:
            if target.kind == "hand":
                await self.show_hand(interaction, target.table)
            elif target.kind == "lobby":
                await self.lobby_click(interaction, target.table, target.arg, target.version)
            elif target.kind == "hero":
                await self.hero_pick(interaction, target.table, values)
            else:
                notation = target.arg if target.kind == "do" else (values[0] if values else "")
                assert target.version is not None
                await self.play(interaction, target.table, target.version, notation)
        except Refusal as exc:
            await self._refuse(interaction, exc.reason, locale)
        except Exception:
            log.exception("click on %s failed", body[:100])
            await self._refuse(interaction, msg("bot.error.internal"), locale)

    async def show_hand(self, interaction: discord.Interaction[Any], table: int,
                        note: Msg | None = None) -> None:
        """Answer with a fresh ephemeral hand message (hand image and the seat's moves)."""
        locale = loc(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)
        record = await self.service.load(table)
        seat = record.seat_of(interaction.user.id)
        if seat is None:
            await interaction.edit_original_response(
                content=translate(msg("bot.error.not_seated"), locale))
            return
        if record.state is None:
            await interaction.edit_original_response(
                content=translate(msg("bot.error.not_started"), locale))
            return
        embeds, files, view = await self.hand_payload(record, seat, locale, note)
        kwargs: dict[str, Any] = {"view": view} if view is not None else {}
        await interaction.edit_original_response(embeds=embeds, attachments=files, **kwargs)

    async def play(self, interaction: discord.Interaction[Any], table: int, version: int,
                   notation: str) -> None:
        """Apply a move clicked in a hand message, then refresh that message and the table.

        A move button on a message everyone sees (an older bot's, a forged one) must not turn
        that message into the player's hand: the answer is then a new private message.
        """
        locale = loc(interaction)
        message = interaction.message
        if message is not None and message.flags.ephemeral:
            await interaction.response.defer()
        else:
            await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            outcome = await self.service.act(table, interaction.user.id, version, notation)
        except Stale as exc:
            record = exc.record
            seat = record.seat_of(interaction.user.id) if record else None
            if record is not None and seat is not None and record.state is not None:
                await self._reply_hand(interaction, record, seat, locale, exc.reason)
            else:
                await self._refuse(interaction, exc.reason, locale)
            return
        try:
            await self._reply_hand(interaction, outcome.record, outcome.seat, locale)
        finally:
            # the move is saved: the table, the next player and the AI go on whatever the reply
            self.spawn(self.after([outcome]), f"after-{table}")

    async def _reply_hand(self, interaction: discord.Interaction[Any], record: TableRecord,
                          seat: int, locale: str, note: Msg | None = None) -> None:
        """Show the seat's hand after a click: in the clicked message, or, when that message
        cannot be edited any more (dismissed, deleted, too old), in a fresh private one. A failed
        reply is logged and never reported as a failed move."""
        embeds, files, view = await self.hand_payload(record, seat, locale, note)
        try:
            await interaction.edit_original_response(embeds=embeds, attachments=files, view=view)
            return
        except discord.HTTPException as exc:
            log.warning("could not edit the hand message of table %s (%s); sending a new one",
                        record.id, exc.status)
        embeds, files, view = await self.hand_payload(record, seat, locale, note)
        kwargs: dict[str, Any] = {"view": view} if view is not None else {}
        try:
            await interaction.followup.send(embeds=embeds, files=files, ephemeral=True, **kwargs)
        except discord.HTTPException as exc:
            log.warning("could not send a new hand message for table %s (%s)", record.id,
                        exc.status)
        finally:
            if view is not None:
                view.stop()  # the buttons are dynamic items: no per-message view is needed

    async def _edit_lobby(self, interaction: discord.Interaction[Any] | None,
                          record: TableRecord) -> None:
        embed, view = self.lobby_payload(record)
        if interaction is not None:
            await interaction.edit_original_response(embed=embed, view=view)
        elif record.lobby_message_id is not None:
            message = self._channel(record).get_partial_message(record.lobby_message_id)
            try:
                await message.edit(embed=embed, view=view)
            except discord.HTTPException:
                log.warning("could not edit the lobby message of table %s", record.id)

    async def show_lobby(self, record: TableRecord) -> TableRecord:
        """Bring a lobby's message up to date, posting it in the table's channel when it was
        never posted (the bot died first) or is gone; returns the table with the message's id.
        Raises :class:`discord.HTTPException` when Discord refuses both."""
        embed, view = self.lobby_payload(record)
        channel = self._channel(record)
        if record.lobby_message_id is not None:
            try:
                await channel.get_partial_message(record.lobby_message_id).edit(embed=embed,
                                                                                 view=view)
                return record
            except discord.NotFound:
                log.info("the lobby message of table %s is gone; posting it again", record.id)
        kwargs: dict[str, Any] = {"view": view} if view is not None else {}
        message = await channel.send(embed=embed, allowed_mentions=NO_MENTIONS, **kwargs)
        await self.service.store.set_message(record.id, lobby_message_id=message.id)
        return replace(record, lobby_message_id=message.id)

    async def _refresh_lobby(self, record: TableRecord) -> None:
        """:meth:`show_lobby`, logging (never raising) Discord's refusal."""
        try:
            await self.show_lobby(record)
        except discord.HTTPException as exc:
            log.warning("could not redraw the lobby message of table %s (%s)", record.id,
                        exc.status)

    async def _redraw_stale_lobby(self, interaction: discord.Interaction[Any], table: int,
                                  refusal: Refusal) -> None:
        """A lobby click was refused: when the clicked lobby message no longer shows the table
        as it is (a lost edit, a double click, a crash), redraw it from the database, so the
        next click on it works."""
        message = interaction.message
        record = refusal.record  # read under the table's lock when the click was refused
        if (record is None or message is None or message.flags.ephemeral
                or not is_lobby_message(message, table)):
            return
        embed, view = self.lobby_payload(record)
        shown = message.embeds[0] if message.embeds else None
        if (shown is not None and shown.title == embed.title
                and shown.description == embed.description
                and (record.status != "lobby"
                     or lobby_seen(message, table) == len(record.seats))):
            return
        try:
            await interaction.edit_original_response(embed=embed, view=view)
        except discord.HTTPException as exc:
            log.warning("could not redraw the lobby message of table %s (%s)", table,
                        exc.status)

    async def lobby_click(self, interaction: discord.Interaction[Any], table: int,
                          op: str, seen: int | None = None) -> None:
        """Join / Leave / Add AI / Remove AI / Start / Cancel on the lobby message. ``seen`` is
        the number of seats the clicked message showed (the lobby's version): a double click
        on Add AI or Remove AI then changes the lobby once."""
        if seen is None and op == "ai":
            seen = lobby_seen(interaction.message, table)
        await interaction.response.defer()
        try:
            record = await self.lobby_op(interaction, table, op, seen)
        except Refusal as exc:
            await self._redraw_stale_lobby(interaction, table, exc)
            raise
        try:
            await self._edit_lobby(interaction, record)
        finally:
            if op == "start":  # the game started: it goes on whatever the reply did
                await self.begin(record)
            elif record.status == "abandoned":
                self.forget(record.id)

    async def lobby_op(self, interaction: discord.Interaction[Any], table: int,
                       op: str, seen: int | None = None) -> TableRecord:
        """Run one lobby operation for the interaction's user (``seen``: the number of seats
        the clicked lobby message showed, when known)."""
        user = interaction.user
        svc = self.service
        if op == "join":
            return await svc.join(table, user.id, user.display_name)
        if op == "leave":
            record = await svc.leave(table, user.id)
            if record.status == "running":  # the seat is the AI's now: show it, let it play
                self.mark_dirty(record.id)
                self.kick_ai(record)
            return record
        if op == "ai":
            return await svc.add_ai(table, user.id, seen)
        if op == "unai":
            return await svc.remove_ai(table, user.id, seen)
        if op == "start":
            missing = missing_permissions(interaction)
            if missing:
                raise Refusal(missing_message(missing))
            return await svc.start(table, user.id)
        manager = bool(interaction.permissions.manage_channels) if interaction.guild_id else False
        return await svc.cancel(table, user.id, manager)

    async def relocalise_guild(self, guild_id: int, locale: str) -> None:
        """A server's language changed: its lobbies and tables switch and are redrawn."""
        for tid in await self.service.store.relocalise(guild_id, locale):
            try:
                record = await self.service.load(tid)
            except Refusal:
                continue
            if record.status == "lobby":
                await self._edit_lobby(None, record)
            else:
                self.mark_dirty(tid)

    async def begin(self, record: TableRecord) -> None:
        """The game started: post the table message mentioning the first player."""
        seat = record.seats[record.game.current]
        content = None
        if seat.user is not None and not seat.ai:
            content = translate(msg("bot.table.your_turn", who=f"<@{seat.user}>"), record.locale)
        try:
            await self.post_table(record, content, mention=content is not None)
        except discord.HTTPException as exc:
            log.warning("could not post the table message of table %s (%s)", record.id,
                        exc.status)
        finally:
            self.kick_ai(record)

    async def hero_pick(self, interaction: discord.Interaction[Any], table: int,
                        values: list[str]) -> None:
        """A seated player picked a hero in the lobby menu."""
        await interaction.response.defer()
        if not values:
            raise Refusal(msg("bot.error.unknown_hero"))
        try:
            record = await self.service.pick_hero(table, interaction.user.id, values[0])
        except Refusal as exc:
            await self._redraw_stale_lobby(interaction, table, exc)
            raise
        await self._edit_lobby(interaction, record)

    # ------------------------------------------------------------------ commands

    async def cmd_new(self, interaction: discord.Interaction[Any], abilities: bool | None,
                      timer: int | None) -> None:
        """/goblin new: open a lobby in this channel."""
        locale = loc(interaction)
        if interaction.channel_id is None:
            raise Refusal(msg("bot.error.guild_only"))
        missing = missing_permissions(interaction)
        if missing:
            raise Refusal(missing_message(missing))
        table_locale = public_locale(interaction)
        try:
            record = await self.service.create(
                guild_id=interaction.guild_id, channel_id=interaction.channel_id,
                host_id=interaction.user.id, host_name=interaction.user.display_name,
                abilities=abilities, timer=timer, locale=table_locale)
        except Refusal as exc:
            tid = await self.service.store.active_in_channel(interaction.channel_id)
            text = translate(exc.reason, locale)
            if tid is not None:
                try:
                    found = await self.service.load(tid)
                except Refusal:
                    pass
                else:
                    if found.status == "lobby":
                        await self._point_to_lobby(interaction, found, locale)
                        return
                    text += " " + jump_url(found)
            await interaction.response.send_message(text, ephemeral=True)
            return
        embed, view = self.lobby_payload(record)
        kwargs: dict[str, Any] = {"view": view} if view is not None else {}
        response = await interaction.response.send_message(embed=embed, **kwargs)
        message_id = response.message_id if response is not None else None
        if message_id is not None:
            await self.service.store.set_message(record.id, lobby_message_id=message_id)

    async def _point_to_lobby(self, interaction: discord.Interaction[Any], record: TableRecord,
                              locale: str) -> None:
        """/goblin new where a lobby is already open: its message is brought up to date (posted
        again when it never was, or is gone) and the asker gets a link to it."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            record = await self.show_lobby(record)
        except discord.HTTPException as exc:  # the link then leads to the channel at least
            log.warning("could not redraw the lobby message of table %s (%s)", record.id,
                        exc.status)
        await interaction.edit_original_response(content=translate(
            msg("bot.error.lobby_exists", table=record.id, url=jump_url(record)), locale))

    async def cmd_lobby(self, interaction: discord.Interaction[Any], op: str) -> None:
        """/goblin join|leave|start: the same as the lobby buttons, for this channel's table."""
        locale = loc(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)
        assert interaction.channel_id is not None
        table = await self.service.in_channel(interaction.channel_id)
        record = await self.lobby_op(interaction, table.id, op)
        try:
            await interaction.edit_original_response(
                content=translate(msg(f"bot.done.{op}", table=record.id), locale))
        finally:
            if record.status == "lobby":  # posted again if it was lost or deleted
                await self._refresh_lobby(record)
            elif record.status == "abandoned" or op == "start":
                await self._edit_lobby(None, record)
            if op == "start":
                await self.begin(record)
            elif record.status == "abandoned":  # the last player left the lobby
                self.forget(record.id)

    async def cmd_hand(self, interaction: discord.Interaction[Any]) -> None:
        """/goblin hand."""
        assert interaction.channel_id is not None
        table = await self.service.in_channel(interaction.channel_id)
        await self.show_hand(interaction, table.id)

    async def cmd_status(self, interaction: discord.Interaction[Any]) -> None:
        """/goblin status: the table as it is now, only for the asker."""
        locale = loc(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)
        assert interaction.channel_id is not None
        record = await self.service.in_channel(interaction.channel_id)
        if record.state is None:
            embed, _ = self.lobby_payload(record, locale)
            await interaction.edit_original_response(embed=embed)
            return
        embed, files, _ = await self.table_payload(record, locale)
        await interaction.edit_original_response(
            content=translate(msg("bot.done.status", url=jump_url(record)), locale),
            embed=embed, attachments=files)

    async def cmd_abandon(self, interaction: discord.Interaction[Any]) -> None:
        """/goblin abandon: the host or a channel manager closes the table (kept as history).

        The rights are checked without the table's lock, then the answer is deferred (publicly:
        the channel learns the table was closed) before waiting for the lock."""
        assert interaction.channel_id is not None
        manager = bool(interaction.permissions.manage_channels)
        tid = await self.service.store.active_in_channel(interaction.channel_id)
        if tid is None:
            raise Refusal(msg("bot.error.no_table_here"))
        try:
            record = await self.service.load(tid)
        except Refusal:
            if not manager:
                raise Refusal(msg("bot.error.manage_only")) from None
            await interaction.response.defer(thinking=True)
            await self.service.abandon_damaged(interaction.channel_id, tid)
            self.forget(tid)
            await interaction.edit_original_response(
                content=translate(msg("bot.done.abandon", table=tid), public_locale(interaction)))
            return
        if record.host_id != interaction.user.id and not manager:
            raise Refusal(msg("bot.error.manage_only"))
        await interaction.response.defer(thinking=True)
        record = await self.service.cancel(tid, interaction.user.id, manager=True)
        try:
            await interaction.edit_original_response(
                content=translate(msg("bot.done.abandon", table=tid), record.locale))
        finally:
            await self.closed(record)

    async def closed(self, record: TableRecord) -> None:
        """A table was cancelled or abandoned: its lobby or table message loses its buttons
        (and says so), and what was kept in memory for it is dropped."""
        self.forget(record.id)
        if record.state is None:
            await self._edit_lobby(None, record)
            return
        if record.message_id is None:
            return
        try:
            await self.edit_table(record, repost=False)
        except discord.HTTPException as exc:
            log.warning("could not close the table message of table %s (%s)", record.id,
                        exc.status)
