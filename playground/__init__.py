"""The browser playground: Karak: Goblin without a Discord token.

``scripts/dev.py run`` with no ``DISCORD_TOKEN`` (see :func:`playground.app.main`) starts the
loopback Discord stand-in (:mod:`loopback`) on 127.0.0.1, the real bot against it (through its
``KARAK_API_BASE`` / ``KARAK_GATEWAY_URL`` settings, with a fake well-formed token: the
production code path), and serves a web page on the same port that shows the stand-in's channel
the way Discord does: messages, embeds, images, buttons, menus, private ("Only you can see
this") messages, a slash-command box, and a switch to act as any of four users.

:mod:`playground.app` is the server side, ``playground/static/`` the page (plain HTML, CSS and
JavaScript, no build step), :mod:`playground.browser` finds or installs a headless Chromium
(tests, screenshots) and :mod:`playground.screenshot` refreshes ``docs/images/playground.png``.
"""

from playground.app import Options, Playground, main, serve

__all__ = ["Options", "Playground", "main", "serve"]
