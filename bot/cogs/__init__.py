"""Command groups of the bot (discord.py cogs)."""
