"""The bot's Discord messages as Components V2 layouts: the lobby, the table and the hand, and
the one module that knows the custom_id format of their buttons and menus."""
