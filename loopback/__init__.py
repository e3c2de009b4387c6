"""A loopback Discord stand-in: the real bot end to end, offline, without a token.

``Loopback`` is a small server on 127.0.0.1 speaking enough of Discord's REST API v10 and
gateway for this bot, holding it to Discord's rules (3 s first response, 15 min tokens, one
initial response, component limits, request bodies valid against Discord's OpenAPI document;
see :mod:`loopback.world`), and letting tests, benchmarks and a web page act as Discord users.

Pointing the bot at it is configuration only::

    async with Loopback() as lb:
        env = lb.env()        # DISCORD_TOKEN (fake, well-formed), KARAK_API_BASE,
                              # KARAK_GATEWAY_URL; start ``python -m bot`` with it
        guild = lb.create_guild("Karak Club", locale="en-US")
        channel = lb.create_channel(guild, "goblin")
        ann = lb.create_user("Ann", locale="fr")
        await lb.wait_connected()

The user side (all checks a Discord client makes are made; ``forge=True`` skips them)::

    ix = await lb.command(ann, channel, "goblin new", abilities=True)
    await ix.answered()       # the initial response (InteractionFailed if none)
    await ix.done()           # the visible result (after a deferral: the first edit/follow-up)
    seen = lb.messages_for(channel, ann)          # oldest first, Ann's ephemerals included
    lobby = seen[-1]
    ix = await lb.click(ann, lobby, lobby.custom_ids()[0])
    ix = await lb.select(ann, lobby, menu_id, ["horan"])  # a select menu's custom_id
    choices = await lb.autocomplete(ann, channel, "goblin card", "name", "gob")
    await lb.changed(after=lb.version)            # wait until anything visible changes
    await lb.channel_changed(channel.id, lb.channel_versions.get(channel.id, 0))
    hand = lb.latest(channel, ann, lambda m: m.owner == ann.id)   # newest match, cheap
    old = lb.plant_message(channel, components)   # as if an older bot had posted it

``Interaction`` records what the bot did: ``responded`` / ``completed`` / ``imaged`` times (the
stand-in's clock), ``original_id`` (the message of the initial response, or the clicked one),
``followups``, ``choices`` (autocomplete), ``status()``. An interaction whose bot session died
fails (``InteractionFailed``) and is listed in ``lb.orphaned`` rather than in the breaches.

Rules and faults::

    lb.breaches               # list[Breach]; tests assert it is empty
    lb.orphaned               # interactions lost because the bot's connection died
    lb.inject_429(r"/channels/\\d+/messages", count=2, retry_after=0.3)
    Loopback(rate_limits=Schedule(seed=7, rate=0.05))   # 429s on a seeded schedule
    Loopback(channel_limit=ChannelLimit(5, 5.0))        # a channel's message limit
    Loopback(global_limit=GlobalLimit(50, 1.0))         # the bot's global limit
    lb.limiter.retries, lb.limiter.early                # each retry after a 429; too early
    lb.send_malformed("int_custom_id")                  # damaged component interactions
    lb.delete_message(message)                          # a moderator deletes it (or dismissed)
    channel.bot_permissions = 0                         # posts there answer 403 (50013)
    lb.set_overwrite(channel, ann, deny=ATTACH_FILES)   # Ann may not attach files there
    lb.set_slowmode(channel, 60)                        # a person posts there once a minute
    thread = lb.create_thread(channel)                  # a public thread (type 11)
    crew = lb.create_role(guild, "Crew")                # roles, members' roles and a channel's
    lb.give_role(guild, ann, crew)                      # permission overwrites, resolved as
    lb.set_overwrite(channel, guild.everyone, deny=VIEW_CHANNEL)  # Discord does: a member who
    lb.set_overwrite(channel, crew, allow=VIEW_CHANNEL)  # may not view a channel cannot act there
    lb.clock.advance(16 * 60) # with Loopback(clock=ManualClock())
    await lb.gateway.drop()   # the socket closes; the bot RESUMEs (drop(shard=1): one shard's)
    Loopback(shards=2)        # GET /gateway/bot recommends 2 shards (required_shards=2: fewer
                              # are closed with 4011); each shard hears only its guilds
    lb.create_guild("Far", shard=1)               # a guild whose id lands on shard 1
    lb.gateway.connected([1])                     # shard 1's session is connected

Threads, as Discord runs them (routes in :mod:`loopback.threads`: the bot starts one from a
message or on its own, edits, archives, locks and deletes it; a post unarchives it; the bot's
permissions are its parent's)::

    thread = lb.create_thread(channel, "Table 1", owner=ann, message=lobby)  # from a message
    lb.threads_of(channel)          # its threads, oldest first (archived=True/False: some)
    lb.starter(thread)              # the message it was started from (None: none)
    lb.messages_for(thread, ann)    # a thread's messages, as any channel's
    lb.archive_thread(thread, locked=True)   # a moderator archives (and locks) it
    lb.lock_thread(thread)          # a moderator locks it, left open: a post or an edit
                                    # without Manage Threads answers 403 (160005)
    lb.unarchive_thread(thread)
    lb.delete_thread(thread)        # THREAD_DELETE; the API answers Unknown Channel (10003)
    # GET /channels/{id} answers an archived thread too (its parent_id, type and archive
    # state), and Missing Access (403, 50001) where the bot may not view the parent
    lb.delete_channel(channel)      # CHANNEL_DELETE only: its threads go with it, unannounced
    lb.remove_guild(guild)          # the bot is removed: GUILD_DELETE, then Missing Access
                                    # (403, 50001) for its channels and threads
    lb.leave_guild(guild, ann)      # Ann leaves (no event): GET /guilds/{id}/members/{ann}
                                    # answers 404 (10007), a DM once she shares no guild 50007
    lb.join_guild(guild, ann)       # she is back
    lb.clock.advance(3600); lb.check_deadlines()  # idle past auto_archive minutes: archived
    channel.bot_permissions &= ~CREATE_PUBLIC_THREADS  # starting one answers 403 (50013)

The same user side is served as JSON over HTTP under ``/_loopback/`` (documented in
:mod:`loopback.server`) so a web page can drive it. ``python -m loopback`` runs a stand-in on its
own and prints the bot's environment. :mod:`loopback.botproc` starts and kills a real bot
process against it.
"""

from loopback.attachment import Attachment
from loopback.clock import ManualClock, SystemClock
from loopback.interaction import Breach, Interaction, InteractionFailed
from loopback.model import Channel, Guild, Message, User
from loopback.permissions import (
    CREATE_PRIVATE_THREADS,
    CREATE_PUBLIC_THREADS,
    MANAGE_THREADS,
    SEND_MESSAGES_IN_THREADS,
    VIEW_CHANNEL,
    Role,
)
from loopback.ratelimit import ChannelLimit, GlobalLimit, Schedule
from loopback.server import FAKE_TOKEN, Loopback
from loopback.spec import Spec
from loopback.world import LoopbackError, World

__all__ = [
    "CREATE_PRIVATE_THREADS", "CREATE_PUBLIC_THREADS", "FAKE_TOKEN", "MANAGE_THREADS",
    "SEND_MESSAGES_IN_THREADS", "VIEW_CHANNEL", "Attachment", "Breach", "Channel", "ChannelLimit",
    "GlobalLimit", "Guild", "Interaction", "InteractionFailed", "Loopback", "LoopbackError",
    "ManualClock", "Message", "Role", "Schedule", "Spec", "SystemClock", "User", "World",
]
