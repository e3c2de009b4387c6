"""The Discord bot: commands, Components V2 messages, the game service and its storage."""
