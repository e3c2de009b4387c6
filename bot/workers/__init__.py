"""Worker processes: the pictures drawn and the hard AI's thinking done away from the event loop.

Owns: the worker processes (one way to run them: they die with the bot, a dead worker costs one
job, urgent work first), the drawing of pictures and the AI's decisions.
May import: ``bot.supervision`` (the metrics it counts in); no other package of the bot.
"""
