"""Discord's permissions as the stand-in keeps them: the bits it uses, a guild's roles, a
channel's permission overwrites, and a member's permissions in a channel resolved in Discord's
order (:func:`resolve`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

#: Permission bits: every permission (the guild owner, an administrator).
ALL_PERMISSIONS = (1 << 51) - 1
#: A plain member: view, send, embed, attach, history, reactions, use application commands.
MEMBER_PERMISSIONS = ((1 << 6) | (1 << 10) | (1 << 11) | (1 << 14) | (1 << 15) | (1 << 16)
                      | (1 << 31))
#: Permission bits a post needs: view the channel, send messages (in a thread: send messages in
#: threads), attach files (when it uploads any).
VIEW_CHANNEL = 1 << 10
SEND_MESSAGES = 1 << 11
ATTACH_FILES = 1 << 15
EMBED_LINKS = 1 << 14
#: Without it a channel's messages are listed as none (Discord answers an empty list).
READ_MESSAGE_HISTORY = 1 << 16
MENTION_EVERYONE = 1 << 17
#: What interactions tell an app of its permissions in a group direct message it is no member
#: of (Discord's documentation: attach files, embed links, mention everyone).
GROUP_DM_APP_PERMISSIONS = ATTACH_FILES | EMBED_LINKS | MENTION_EVERYONE
USE_EXTERNAL_EMOJIS = 1 << 18
#: What interactions tell an app of its permissions in its bot's own direct messages with a
#: person (Discord's documentation: those of a group direct message and Use External
#: Emojis; neither View Channel nor Send Messages, though the bot may post there).
BOT_DM_APP_PERMISSIONS = GROUP_DM_APP_PERMISSIONS | USE_EXTERNAL_EMOJIS
SEND_MESSAGES_IN_THREADS = 1 << 38
#: Thread permission bits: manage threads (archive, lock, delete any thread), create a public
#: thread, create a private thread.
MANAGE_THREADS = 1 << 34
CREATE_PUBLIC_THREADS = 1 << 35
CREATE_PRIVATE_THREADS = 1 << 36
ADMINISTRATOR = 1 << 3
#: Permission overwrite targets: a role, a member.
ROLE_OVERWRITE, MEMBER_OVERWRITE = 0, 1


@dataclass
class Role:
    """A role of a guild and the permissions it grants (``@everyone``'s id is the guild's)."""

    id: int
    name: str
    permissions: int = MEMBER_PERMISSIONS
    position: int = 0

    def payload(self) -> dict[str, Any]:
        """The role object."""
        return {"id": str(self.id), "name": self.name, "color": 0, "colors": {
            "primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False, "icon": None, "unicode_emoji": None, "position": self.position,
            "permissions": str(self.permissions), "managed": False, "mentionable": False,
            "flags": 0}


@dataclass
class Overwrite:
    """A channel's permission overwrite for a role (``type`` 0) or a member (``type`` 1)."""

    id: int
    type: int
    allow: int = 0
    deny: int = 0

    def payload(self) -> dict[str, Any]:
        """The overwrite object."""
        return {"id": str(self.id), "type": self.type, "allow": str(self.allow),
                "deny": str(self.deny)}


def resolve(everyone: Role, roles: Sequence[Role], overwrites: Sequence[Overwrite],
            user_id: int, everything: bool = False) -> int:
    """A member's permissions in a channel, in Discord's order: @everyone's and their
    ``roles``' permissions (all of them for ``everything``, the owner, or an administrator),
    then the channel's overwrite of @everyone, those of their roles together (an allow wins
    over a deny), then the member's own; without View Channel, none."""
    base = everyone.permissions
    for role in roles:
        base |= role.permissions
    if everything or base & ADMINISTRATOR:
        return ALL_PERMISSIONS
    mine = {r.id for r in roles}
    for o in overwrites:
        if o.type == ROLE_OVERWRITE and o.id == everyone.id:
            base = (base & ~o.deny) | o.allow
    allow = deny = 0
    for o in overwrites:
        if o.type == ROLE_OVERWRITE and o.id in mine:
            allow, deny = allow | o.allow, deny | o.deny
    base = (base & ~deny) | allow
    for o in overwrites:
        if o.type == MEMBER_OVERWRITE and o.id == user_id:
            base = (base & ~o.deny) | o.allow
    return base if base & VIEW_CHANNEL else 0


__all__ = ["ADMINISTRATOR", "ALL_PERMISSIONS", "ATTACH_FILES", "BOT_DM_APP_PERMISSIONS",
           "CREATE_PRIVATE_THREADS",
           "CREATE_PUBLIC_THREADS", "EMBED_LINKS", "GROUP_DM_APP_PERMISSIONS", "MANAGE_THREADS",
           "MENTION_EVERYONE", "MEMBER_OVERWRITE", "MEMBER_PERMISSIONS",
           "READ_MESSAGE_HISTORY", "ROLE_OVERWRITE", "SEND_MESSAGES", "SEND_MESSAGES_IN_THREADS",
           "USE_EXTERNAL_EMOJIS", "VIEW_CHANNEL",
           "Overwrite", "Role", "resolve"]
