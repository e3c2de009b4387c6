"""Simulated people for the end-to-end tests: they see only what Discord would show them and
click only controls present in those messages. A read-only look at the bot's database (the
"oracle") only helps them choose sensibly (so matches end) and checks the outcome.

:mod:`~e2e.messages` reads a message's controls, :mod:`~e2e.catalogue` recognises the
catalogue's texts in any language, :mod:`~e2e.oracle` reads the database, :mod:`~e2e.player`
plays, :mod:`~e2e.chaos` kills the bot now and then, :mod:`~e2e.lobby` opens tables,
:mod:`~e2e.privacy` checks no public message shows what a hand hides, :mod:`~e2e.answers`
reads the bot's answer to an interaction and :mod:`~e2e.botlog` the errors in the bot's log."""
