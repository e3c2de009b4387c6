"""Server tournaments on Discord: the ``/goblin tournament`` command bodies, the sign-up message
with its Join and Leave buttons (edited as entrants come and go; posted anew, the old one
deleted, once Discord no longer lets the bot edit it: a sign-up open for more than an hour takes
only a few edits an hour), and what a tournament's step
(:class:`~bot.game.tournaments.Progress`) posts: each opened match begun as any started match
(its own thread where the bot may create one), the standings picture after a round, the
champion at the end (the messages' layouts are :mod:`bot.discord_side.ui.tournament`'s). The
rules and the storage are the game service's
(:mod:`bot.game.tournaments`); nothing here holds a table's lock while it sends.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any, Literal
from weakref import WeakValueDictionary

import discord

from bot.discord_side.context import (
    NO_MENTIONS,
    TOO_OLD_TO_EDIT,
    UNDELIVERED,
    UNKNOWN_CHANNEL,
    UNKNOWN_MESSAGE,
    answer_privately,
    can_manage_channel,
    loc,
    missing_message,
    missing_permissions,
    noted,
    pinging,
    place_refusal,
    public_locale,
    why,
)
from bot.discord_side.feed import made_before, standings_nonce, undelivered
from bot.discord_side.messages import Messages
from bot.discord_side.sight import Sights
from bot.discord_side.threads import unarchived
from bot.discord_side.ui.parts import nested
from bot.discord_side.ui.tournament import picture_view, signup_view
from bot.discord_side.uploads import ImageFile
from bot.game.markup import plain
from bot.game.meta import FINAL_ROUND
from bot.game.people import forgotten, person
from bot.game.places import Place
from bot.game.refusals import Refusal
from bot.game.service import GameService
from bot.game.tournament import BYE_POINTS
from bot.game.tournament_pictures import champion_picture, standings_picture
from bot.game.tournaments import Progress
from bot.storage.records import (
    DamagedTournament,
    StorageError,
    TableRecord,
    TournamentRecord,
)
from bot.supervision.tasks import Tasks
from engine.agents import AiLevel
from i18n import Msg, msg, translate

log = logging.getLogger("karak.bot")
Begin = Callable[[TableRecord], Awaitable[None]]
#: The direct-message channel with a person (opened once and kept).
Direct = Callable[[int], Awaitable[discord.abc.Messageable]]
#: What a tournament's lock guards: its sign-up message, or its standings.
Guarded = Literal["signup", "standings"]


class TournamentDesk:
    """The Discord side of server tournaments: ``begin`` starts an opened match as a lobby's
    Start does (its table message, its thread, its AI seats); ``forget`` drops what is kept
    for a match the round's deadline closed (the scheduler's forget); ``sights`` tells which
    tournaments the asker may see; ``ours`` whether a server is heard on this process's shards
    (only their tournaments move on here in the background: their matches begin in the process
    that takes them up); ``direct`` opens the direct messages with the tournament's host, told
    there when Discord refuses a round's match its table for a permission."""

    def __init__(self, service: GameService, messages: Messages, tasks: Tasks,
                 begin: Begin, forget: Callable[[int], None], sights: Sights,
                 ours: Callable[[int], bool] = lambda guild: True,
                 direct: Direct | None = None) -> None:
        self.service = service
        self.messages = messages
        self.tasks = tasks
        self.begin = begin
        self.forget = forget
        self.sights = sights
        self.ours = ours
        self.direct = direct
        #: (tournament, round) whose host was told a match of it was refused its table
        self._withheld: set[tuple[int, int]] = set()
        #: The locks of :meth:`_lock`, by what they guard and tournament, while anyone holds one.
        self._locks: WeakValueDictionary[tuple[Guarded, int], asyncio.Lock] = (
            WeakValueDictionary())

    def _lock(self, what: Guarded, tournament_id: int) -> asyncio.Lock:
        """The lock of one tournament's ``what`` (a server's clicks and its tournaments' steps
        all come through one process): held while its sign-up message is read and drawn
        (``"signup"``: each draw reads it after the one before), or while its standings are
        noted and posted (``"standings"``: each step finds the note of the one before)."""
        return self._locks.setdefault((what, tournament_id), asyncio.Lock())

    # ------------------------------------------------------------------ finding one

    async def _here(self, interaction: discord.Interaction[Any],
                    finished: bool = False) -> TournamentRecord:
        """The tournament of the interaction's channel (the newest one taking sign-ups or
        under way there, or, in a thread such as a match's, in the thread's channel; else the
        server's only one), or a refusal (``finished``: with none, the newest one that ended
        in that channel). A tournament held in a channel the asker may not view is none to
        them."""
        if interaction.guild_id is None:
            raise Refusal(msg("bot.tournament.error.server_only"))
        sight = self.sights.known(interaction)
        found = [t for t in await self.service.tournaments.open_in(interaction.guild_id)
                 if sight.sees(t.place_key, t.channel_id)]
        channel = interaction.channel
        parent = channel.parent_id if isinstance(channel, discord.Thread) else None
        mine = ([t for t in found if t.channel_id == interaction.channel_id]
                or [t for t in found if parent is not None and t.channel_id == parent])
        if mine:
            return mine[-1]
        if len(found) == 1:
            return found[0]
        if finished:  # its final standings, once it is over
            ended = [t for t in await self.service.store.tournaments_of(
                         Place.server(interaction.guild_id).key, "finished")
                     if sight.sees(t.place_key, t.channel_id)]
            mine = ([t for t in ended if t.channel_id == interaction.channel_id]
                    or [t for t in ended if parent is not None and t.channel_id == parent])
            if mine:
                return mine[-1]
        raise Refusal(msg("bot.tournament.refusal.none_here"))

    @staticmethod
    def _manager(interaction: discord.Interaction[Any], record: TournamentRecord) -> bool:
        """Whether the asker may manage the tournament's channel: Discord tells their rights
        in the channel asked from, so only there or in a thread of it (a match's) do they
        count; a manager of another channel is none of this tournament's."""
        channel = interaction.channel
        parent = channel.parent_id if isinstance(channel, discord.Thread) else None
        return (record.channel_id in (interaction.channel_id, parent)
                and can_manage_channel(interaction))

    # ------------------------------------------------------------------ commands

    async def new(self, interaction: discord.Interaction[Any], name: str,
                  rounds: int | None, table_size: int, timer: int | None,
                  abilities: bool | None, ai_level: AiLevel | None, round_hours: int | None,
                  signup_hours: int | None) -> None:
        """/goblin tournament new (Manage Server): open a tournament in this channel and post
        its sign-up message (a ``timer`` or ``abilities`` not chosen: the server's default).
        Refused, as a table is, in a server that did not install the bot (a user install
        answers there, but can post none of the matches of its rounds) and where the bot lacks
        a permission its posts need (the sign-up, the command's answer, needs none)."""
        if interaction.guild_id is not None:
            refused = place_refusal(interaction)
            if refused is not None:
                raise Refusal(refused)
            if not interaction.permissions.manage_guild:
                raise Refusal(msg("bot.tournament.refusal.admins_only"))
            missing = missing_permissions(interaction)
            if missing:
                raise Refusal(missing_message(missing))
        now = self.service.clock()
        record = await self.service.tournaments.create(
            guild_id=interaction.guild_id, channel_id=interaction.channel_id or 0,
            host_id=interaction.user.id, name=name, rounds=rounds, table_size=table_size,
            timer=timer, abilities=abilities, ai_level=ai_level,
            round_span=(round_hours or 0) * 3600,
            closes_at=None if not signup_hours else now + signup_hours * 3600,
            locale=public_locale(interaction))
        view = await self.service.tournaments.view(record.id)
        await interaction.response.send_message(view=signup_view(view),
                                                allowed_mentions=NO_MENTIONS)
        sent = await interaction.original_response()
        # the sign-up stands when it cannot be saved, and its clicks redraw it in place
        await noted(self.service.store.set_tournament_messages(record.id,
                                                               signup_message_id=sent.id),
                    f"tournament {record.id}: its sign-up message")

    async def start(self, interaction: discord.Interaction[Any]) -> None:
        """/goblin tournament start (its host or a channel manager): round 1 is seated."""
        record = await self._here(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)
        progress = await self.service.tournaments.start(record.id, interaction.user.id,
                                                        self._manager(interaction, record))
        await interaction.edit_original_response(content=translate(
            msg("bot.tournament.done.started", name=plain(record.name)), loc(interaction)))
        await self._signup_edit(progress.record)
        await self.post(progress)

    async def cancel(self, interaction: discord.Interaction[Any]) -> None:
        """/goblin tournament cancel (its host or a channel manager), while sign-up lasts."""
        record = await self._here(interaction)
        view = await self.service.tournaments.cancel(record.id, interaction.user.id,
                                                     self._manager(interaction, record))
        await answer_privately(interaction, translate(
            msg("bot.tournament.done.cancelled", name=plain(record.name)), loc(interaction)))
        await self._signup_edit(view.record)

    async def standings(self, interaction: discord.Interaction[Any]) -> None:
        """/goblin tournament standings: the standings picture, privately (once the
        tournament is over, its final standings: the champion's post shows only the podium;
        refused before round 1, when nothing is played)."""
        record = await self._here(interaction, finished=True)
        if record.status == "signup":  # nothing played yet: no standings to show
            raise Refusal(msg("bot.tournament.error.not_started", name=plain(record.name)))
        await interaction.response.defer(ephemeral=True, thinking=True)
        view = await self.service.tournaments.view(record.id)
        locale = loc(interaction)
        png = await asyncio.to_thread(standings_picture, view.tournament, locale)
        title, alt = (translate(msg("bot.tournament.post.standings", name=name), locale)
                      for name in (plain(record.name), record.name))
        await interaction.edit_original_response(
            view=picture_view(title, alt),
            attachments=[ImageFile(png, "standings.png")])

    async def drop(self, interaction: discord.Interaction[Any],
                   player: discord.User | discord.Member | None) -> None:
        """/goblin tournament drop: a player drops out (``player``: someone else, by the
        tournament's host or a channel manager), told privately to whoever asked: "you" for
        themselves, the player by a mention for someone else."""
        record = await self._here(interaction)
        who = interaction.user.id if player is None else player.id
        await self.service.tournaments.drop(record.id, who, interaction.user.id,
                                            self._manager(interaction, record))
        told = (msg("bot.tournament.dropped_you", name=plain(record.name))
                if who == interaction.user.id
                else msg("bot.tournament.dropped", who=f"<@{who}>", name=plain(record.name)))
        await answer_privately(interaction, translate(told, loc(interaction)))

    async def end_round(self, interaction: discord.Interaction[Any]) -> None:
        """/goblin tournament end-round (its host or a channel manager): the round under way
        ends now, as at its deadline: each unfinished match is decided as it stands, the
        standings are posted and the next round seated (or the champion named)."""
        record = await self._here(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)
        # refused when the round the asker saw is over or being closed by someone else
        progress = await self.service.tournaments.close_round(
            record.id, interaction.user.id, self._manager(interaction, record), record.round)
        await interaction.edit_original_response(content=translate(
            msg("bot.tournament.end_round.done", round=record.round, name=plain(record.name)),
            loc(interaction)))
        await self.post(progress)

    async def click(self, interaction: discord.Interaction[Any], tournament: int,
                    op: str) -> None:
        """A Join or Leave button: the person signed up or off (a refusal answers privately),
        the sign-up message edited for everyone. A button of a tournament out of the
        clicker's sight (forged elsewhere) reaches no tournament."""
        tours = self.service.tournaments
        await tours.in_sight(self.sights.known(interaction), tournament)
        if op == "join":
            name = getattr(interaction.user, "display_name", None) or interaction.user.name
            view = await tours.join(tournament, interaction.user.id, name)
        else:
            view = await tours.leave(tournament, interaction.user.id)
        key = "bot.tournament.done.joined" if op == "join" else "bot.tournament.done.left"
        told = translate(msg(key, name=plain(view.record.name)), loc(interaction))
        message = interaction.message
        if message is not None and view.record.signup_message_id in (message.id, None):
            # the sign-up (or, when its id could not be saved, the message clicked), drawn as
            # the tournament stands once the sign-ups answered before it were drawn: never an
            # older list over a newer one; posted anew when Discord no longer edits it
            async with self._lock("signup", tournament):
                now = await tours.view(tournament)
                try:
                    await interaction.response.edit_message(view=signup_view(now))
                    too_old = False
                except discord.HTTPException as exc:
                    if exc.code != TOO_OLD_TO_EDIT:
                        raise
                    too_old = True
            if too_old:  # posted anew once the lock is let go (the post may redraw instead)
                await answer_privately(interaction, told)
                await self._signup_afresh(tournament, message.id)
                return
            await interaction.followup.send(told, ephemeral=True)
            return
        await answer_privately(interaction, told)  # a button elsewhere: the sign-up is redrawn
        await self._signup_edit(view.record)

    # ------------------------------------------------------------------ posting a step

    async def signup_changed(self, tournament_id: int) -> None:
        """Redraw the sign-up message of a tournament changed outside its buttons (a person
        forgotten on request taken off its entrants, the server's language forced)."""
        try:
            record = await self.service.store.tournament(tournament_id)
            if record is not None:
                await self._signup_edit(record)
        except (DamagedTournament, Refusal):  # nothing of it can be read (named in a log)
            return

    async def _signup_edit(self, record: TournamentRecord) -> None:
        """Redraw the sign-up message (its buttons gone once sign-up is over); in a thread
        archived since (sign-up lasting longer than Discord leaves an idle thread open), the
        thread is taken out of the archive first."""
        if record.signup_message_id is None:
            return
        client = self.messages.client
        message = client.get_partial_messageable(record.channel_id).get_partial_message(
            record.signup_message_id)
        too_old = False
        async with self._lock("signup", record.id):
            view = await self.service.tournaments.view(record.id)
            try:
                await self.messages.pace.request(record.channel_id)
                await unarchived(client, record.channel_id, partial(
                    message.edit, view=signup_view(view), allowed_mentions=NO_MENTIONS))
            except UNDELIVERED as exc:  # refused, or cut off: the matches begin all the same
                too_old = (isinstance(exc, discord.HTTPException)
                           and exc.code == TOO_OLD_TO_EDIT and view.record.status == "signup")
                if not too_old:
                    log.warning("could not edit the sign-up message of tournament %s (%s)",
                                record.id, why(exc))
                    if not (isinstance(exc, discord.NotFound)
                            and exc.code in (UNKNOWN_MESSAGE, UNKNOWN_CHANNEL)):
                        return  # tried again at the next start; a message or channel gone not
        if too_old:  # posted anew once the lock is let go (the post may redraw instead)
            await self._signup_afresh(record.id, record.signup_message_id)
            return
        if view.record.status != "signup":  # not drawn again at the next start
            await noted(self.service.meta.signup_closed(record.id),
                        f"tournament {record.id}: its sign-up message drawn closed")

    async def _signup_afresh(self, tournament: int, old: int) -> None:
        """Post the sign-up message of ``tournament`` anew in place of message ``old``, which
        Discord no longer lets the bot edit (a sign-up open for more than an hour takes only a
        few edits an hour, JSON error 30046: those who join later would find their click
        failed and the list without them), and delete ``old``; when another click posted it
        anew meanwhile, that message is redrawn instead. Posted under the lock its draws hold,
        so one post is made and no draw lands on the message being replaced."""
        async with self._lock("signup", tournament):
            try:
                record = await self.service.store.tournament(tournament)
            except DamagedTournament:  # nothing of it can be read (named in a log)
                return
            if record is None:
                return
            if record.signup_message_id not in (old, None):
                reposted = record
            else:
                reposted = None
                await self._post_signup_anew(record, old)
        if reposted is not None:  # another click posted it anew meanwhile: redrawn, lock let go
            await self._signup_edit(reposted)

    async def _post_signup_anew(self, record: TournamentRecord, old: int) -> None:
        """Post the sign-up message of tournament ``record`` anew, note its id and delete the
        message ``old`` it replaces (under its sign-up's :meth:`_lock`)."""
        tournament = record.id
        view = await self.service.tournaments.view(tournament)
        client = self.messages.client
        channel = client.get_partial_messageable(record.channel_id,
                                                 guild_id=record.guild_id)
        log.info("the sign-up message of tournament %s is too old to edit; posting it "
                 "again", tournament)
        try:
            await self.messages.pace.request(record.channel_id)
            sent = await channel.send(view=signup_view(view), allowed_mentions=NO_MENTIONS)
        except UNDELIVERED as exc:
            log.warning("could not post the sign-up message of tournament %s again (%s)",
                        tournament, why(exc))
            return
        await noted(self.service.store.set_tournament_messages(
            tournament, signup_message_id=sent.id),
            f"tournament {tournament}: its sign-up message")
        try:
            await self.messages.pace.request(record.channel_id)
            await unarchived(client, record.channel_id,
                             channel.get_partial_message(old).delete)
        except UNDELIVERED as exc:
            log.info("could not delete the old sign-up message of tournament %s (%s)",
                     tournament, why(exc))

    async def resume(self) -> None:
        """On start: the sign-up message of each tournament under way or cancelled on this
        process's shards that was never drawn closed (the bot stopped between seating round 1,
        or cancelling sign-up, and that edit, or Discord refused it) loses its Join and Leave
        buttons, once; the standings (or the champion) of each tournament under way or
        finished there that a crash left unposted are posted, once."""
        store = self.service.store
        for tid in await store.tournaments_with_status("running", "finished"):
            try:
                await self._owed_standings(tid)
            except (DamagedTournament, Refusal):  # nothing of it can be read (named in a log)
                continue
        for tid in await store.tournaments_with_status("running", "cancelled"):
            if await self.service.meta.was_signup_closed(tid):
                continue  # the years' cancelled tournaments are not read again at each start
            try:
                record = await store.tournament(tid)
                if (record is None or record.signup_message_id is None
                        or not self.ours(record.guild_id)):
                    continue
                await self._signup_edit(record)
            except (DamagedTournament, Refusal):  # nothing of it can be read (named in a log)
                continue

    async def post(self, progress: Progress) -> None:
        """Post what one step of a tournament changed: the matches the round's deadline closed
        say so, the round's standings (and, at the end, the champion) go to the tournament's
        channel, and each match the step opened begins (also when Discord refused, or the
        connection cut off, the standings or the sign-up message's edit)."""
        record = progress.record
        for decided in progress.decided:
            table = decided.table
            if decided.result.at_deadline and table is not None and table.status == "abandoned":
                await self.messages.closed(table, ending="round_over")
                self.forget(table.id)
        if record.status == "cancelled":
            await self._signup_edit(record)
            return
        if progress.finished or progress.opened is not None:
            await self._standings_once(progress)
        if progress.opened is not None:
            if len(progress.tournament.rounds) == 1 and record.closes_at is not None:
                await self._signup_edit(record)
            if progress.opened.seating.bye is not None:
                await self._send_bye(record, progress.opened.seating.bye)
            seated = len(progress.tournament.rounds)
            for table in progress.opened.tables:
                self.messages.when_withheld(table.id, self._host_told(record, seated))
                await self.begin(table)

    def _host_told(self, record: TournamentRecord, round_no: int) -> Callable[[Msg],
                                                                             Awaitable[None]]:
        """What tells the tournament's host by direct message, once a round, that Discord
        refused a match of round ``round_no`` its first table message for a permission
        (``told``: what a person who clicked Start would be told): nobody started it by a
        click, and the round's matches share its channel, where such a refusal holds them all
        up (each is tried again, as any start is)."""
        async def tell(told: Msg) -> None:
            if (self.direct is None or forgotten(record.host_id)
                    or (record.id, round_no) in self._withheld):
                return
            self._withheld.add((record.id, round_no))
            text = translate(msg("bot.tournament.post.withheld", round=round_no,
                                 name=plain(record.name), table=told.get("table") or 0,
                                 channel=told.get("channel") or "",
                                 needed=told.get("needed") or ""), record.locale)
            channel = await self.direct(record.host_id)
            await channel.send(content=text[:2000], allowed_mentions=NO_MENTIONS)
        return tell

    async def _standings_once(self, progress: Progress, resumed: bool = False) -> None:
        """Post the standings of a round seated now (none after round 1 is seated: nothing is
        played yet) or the champion of a tournament that ended now, once: noted in the bot's
        metadata before the post (which carries its
        :func:`~bot.discord_side.feed.standings_nonce`, so Discord makes it once), and noted
        made after it, so neither a second step reporting it nor a restart posts it twice.
        ``resumed`` (on start): a post noted but never noted made (a crash, or Discord's
        trouble) may have been made by a try whose answer never came, longer ago than Discord
        remembers its nonce: it is looked for first, and posted only when absent."""
        record = progress.record
        final = progress.finished
        seated = len(progress.tournament.rounds)
        meta = self.service.meta
        async with self._lock("standings", record.id):
            try:
                note = await meta.standings_posted(record.id)
            except StorageError as exc:  # unknown: posted as ever, the matches begin after it
                log.warning("tournament %s: how far its standings were posted cannot be read "
                            "(%s)", record.id, exc)
                note = None
            if note is not None and note.reached >= (FINAL_ROUND if final else seated):
                if note.made or not resumed:
                    return  # posted, or tried by this process: the next start tries again
            else:
                await self._note_standings(record.id, seated, final, made=False)
            if (final or seated > 1) and not await self._send_standings(
                    progress, look=note is not None and resumed):
                return  # Discord's trouble: tried again at the next start
            await self._note_standings(record.id, seated, final, made=True)

    async def _note_standings(self, tournament_id: int, seated: int, final: bool,
                              made: bool) -> None:
        """Note in the bot's metadata that the tournament's standings are being posted, or
        (``made``) were; a note that cannot be written is logged (a restart may post again)."""
        try:
            await self.service.meta.posting_standings(tournament_id, seated, final, made)
        except StorageError as exc:
            log.warning("tournament %s: its standings could not be noted as posted (%s)",
                        tournament_id, exc)

    async def _owed_standings(self, tournament_id: int) -> None:
        """On start: post the standings of the tournament when the bot stopped between
        saving a round's end (the next round seated, or the champion known) and hearing that
        their post was made (a crash; a clean stop waits for the post). A tournament none were
        ever noted for (started by an older bot) is owed none."""
        note = await self.service.meta.standings_posted(tournament_id)
        if note is None or (note.made and note.reached >= FINAL_ROUND):
            return  # the years' finished tournaments are not read again at each start
        record = await self.service.store.tournament(tournament_id)
        if record is None or not self.ours(record.guild_id):
            return
        final = record.status == "finished"
        if note.made and note.reached >= (FINAL_ROUND if final else record.round):
            return
        view = await self.service.tournaments.view(tournament_id)
        log.info("tournament %s: posting the standings a stop left unposted", tournament_id)
        await self._standings_once(Progress(view.record, view.tournament), resumed=True)

    async def _send_standings(self, progress: Progress, look: bool = False) -> bool:
        """The standings picture in the tournament's channel; the champion's at the end. True
        once made (``look``: or found made by a try whose answer never came, see
        :func:`~bot.discord_side.feed.made_before`), or refused for good; False on Discord's
        trouble or the connection's (the next start tries again)."""
        record = progress.record
        locale = record.locale
        champion = progress.champion
        seated = len(progress.tournament.rounds)
        if champion is not None:
            png = await asyncio.to_thread(champion_picture, progress.tournament, locale)
            title = translate(msg("bot.tournament.champion", who=person(champion.user),
                                  name=plain(record.name)), locale)
            alt = translate(msg("bot.tournament.champion", who=person(champion.user),
                                name=record.name), locale)
            line = None
        else:
            png = await asyncio.to_thread(standings_picture, progress.tournament, locale)
            title, alt = (translate(msg("bot.tournament.post.standings", name=name), locale)
                          for name in (plain(record.name), record.name))
            line = translate(msg("bot.tournament.post.round.next_round", done=seated - 1,
                                 round=seated, rounds=progress.rounds), locale)
        if png is None:  # pragma: no cover - a finished tournament has its champion
            return True
        channel = self.messages.client.get_partial_messageable(record.channel_id)
        mark = line or title  # what tells this post from the tournament's others
        try:
            if look and await made_before(
                    channel, self.messages.client.user, record.signup_message_id or 0,
                    lambda message: any(mark in (getattr(c, "content", None) or "")
                                        for c in nested(message.components)),
                    f"the standings of tournament {record.id}") is not None:
                return True
            await self.messages.pace.request(record.channel_id)
            await channel.send(view=picture_view(title, alt, line),
                               files=[ImageFile(png, "standings.png")],
                               allowed_mentions=NO_MENTIONS,
                               nonce=standings_nonce(record, seated, champion is not None))
        except UNDELIVERED as exc:  # refused, or cut off: the next round begins all the same
            log.warning("could not post the standings of tournament %s (%s)", record.id,
                        why(exc))
            return not undelivered(exc)
        return True

    async def _send_bye(self, record: TournamentRecord, user_id: int) -> None:
        """The line in the tournament's channel telling the player with the round's bye so
        (pinging them alone): no match of the round names them, and round 1 posts no
        standings."""
        text = translate(msg("bot.tournament.bye", who=person(user_id), count=BYE_POINTS),
                         record.locale)
        channel = self.messages.client.get_partial_messageable(record.channel_id)
        try:
            await self.messages.pace.request(record.channel_id)
            await channel.send(content=text, allowed_mentions=NO_MENTIONS if forgotten(user_id)
                               else pinging(user_id))
        except UNDELIVERED as exc:  # refused, or cut off: the round's matches begin all the same
            log.warning("could not tell the bye of tournament %s (%s)", record.id, why(exc))

    # ------------------------------------------------------------------ the background

    def ended(self, table: int) -> None:
        """A table ended (the scheduler forgets it): when it is a tournament's match, the
        tournament moves on in the background (its next round seated as soon as the round's
        last match ended)."""
        self.tasks.spawn(self._ended(table), f"tournament-table-{table}")

    async def _ended(self, table: int) -> None:
        progress = await self.service.tournaments.table_ended(table, self.ours)
        if progress is not None:
            await self.post(progress)

    async def sweep(self) -> None:
        """Each pass of the timers: every tournament moved on (deadlines, closed sign-ups),
        what changed posted."""
        for progress in await self.service.tournaments.sweep(self.ours):
            try:
                await self.post(progress)
            except Exception:  # one tournament's trouble never stops the others
                log.exception("could not post tournament %s", progress.record.id)


__all__ = ["TournamentDesk"]
