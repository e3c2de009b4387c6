"""What a simulated person reads of the bot's answer to their interaction, and the check that
an answer (a refusal above all) reached them alone."""
from __future__ import annotations

from loopback import Interaction, Loopback, User


def reply(lb: Loopback, ix: Interaction, user: User) -> str:
    """What ``user`` can read of the bot's answer to ``ix`` (its own message or follow-ups)."""
    parts = []
    for mid in [ix.original_id, *ix.followups]:
        m = lb.messages.get(mid or 0)
        if m is not None and m.visible_to(user.id):
            parts.append(m.text())
    return "\n".join(parts)


async def answered(lb: Loopback, ix: Interaction, user: User, *expected: str) -> str:
    """The interaction got a visible answer (mentioning one of ``expected``) only ``user`` sees
    (or the public table message for "My hand" and the like)."""
    await ix.done(10)
    text = reply(lb, ix, user)
    assert text, f"no answer to {ix.data}"
    if expected:
        assert any(e in text for e in expected), (ix.data, text)
    for mid in [ix.original_id, *ix.followups]:
        m = lb.messages.get(mid or 0)
        if m is not None and m.interaction_id == ix.id and m.owner is None and expected:
            raise AssertionError(f"a refusal was shown to everyone: {m.text()[:200]}")
    return text
