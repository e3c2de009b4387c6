"""``python -m loopback [--port N] [--users Ann,Bob] [--locale en-US] [--rate-limits SEED:RATE]
[--shards N]``: run a stand-in alone (``--rate-limits 7:0.05``: 429s on 5 % of requests, seeded
with 7; ``--shards 2``: Discord recommends 2 shards to the bot, which runs both by default).

Creates one guild with one channel and the given users, prints the bot's environment
(``DISCORD_TOKEN``, ``KARAK_API_BASE``, ``KARAK_GATEWAY_URL``) and the control API's address,
then serves until interrupted. Without Discord's OpenAPI description (or the ``jsonschema-rs``
package) it says so in one line and serves without validating request bodies. Start the bot
with that environment (and ``--sync`` when its database already exists, since a fresh stand-in
knows no commands).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import signal
import sys

from loopback.ratelimit import Schedule
from loopback.server import Loopback
from loopback.spec import unavailable_reason, validation_off


def schedule(text: str) -> Schedule:
    """``SEED:RATE`` (``7:0.05``) as a rate limit schedule."""
    seed, _, rate = text.partition(":")
    try:
        found = Schedule(int(seed), float(rate))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not SEED:RATE (e.g. 7:0.05)") from None
    if not 0 <= found.rate <= 1:
        raise argparse.ArgumentTypeError(f"rate {found.rate} is not between 0 and 1")
    return found


async def serve(port: int, users: list[str], locale: str, validate: bool,
                rate_limits: Schedule | None = None, shards: int = 1) -> None:
    """Run the stand-in until cancelled."""
    async with Loopback(port=port, validate=validate, rate_limits=rate_limits,
                        shards=shards) as lb:
        guild = lb.create_guild("Karak Club", locale=locale)
        channel = lb.create_channel(guild, "goblin")
        made = [lb.create_user(name, locale=locale) for name in users]
        for key, value in lb.env().items():
            print(f"{key}={value}")
        print(json.dumps({"control": lb.base_url + "/_loopback/", "guild": str(guild.id),
                          "channel": str(channel.id),
                          "users": {u.name: str(u.id) for u in made},
                          "shards": shards}), flush=True)
        await asyncio.Event().wait()


def main(argv: list[str] | None = None) -> None:
    """Parse the arguments and serve."""
    parser = argparse.ArgumentParser(prog="python -m loopback", description=__doc__)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--users", default="Ann,Bob,Cleo,Dan")
    parser.add_argument("--locale", default="en-US")
    parser.add_argument("--no-validate", action="store_true",
                        help="skip OpenAPI validation of request bodies")
    parser.add_argument("--rate-limits", type=schedule, default=None, metavar="SEED:RATE",
                        help="answer a seeded share of requests with 429s (e.g. 7:0.05)")
    parser.add_argument("--shards", type=int, default=1,
                        help="the shard count GET /gateway/bot recommends (1 or more)")
    args = parser.parse_args(argv)
    if args.shards < 1:
        parser.error("--shards must be 1 or more")
    names = [n.strip() for n in args.users.split(",") if n.strip()]
    validate = not args.no_validate
    reason = unavailable_reason() if validate else None
    if reason is not None:
        print(validation_off(reason), file=sys.stderr, flush=True)
        validate = False
    # Ctrl-C and SIGINT stop it, also when started in the background by a shell (which
    # starts such jobs with SIGINT ignored)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(args.port, names, args.locale, validate, args.rate_limits,
                          args.shards))


if __name__ == "__main__":
    main()
