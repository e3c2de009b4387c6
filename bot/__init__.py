"""The Discord bot (issue 4)."""
