"""The Minecraft side of the runtime: the embedded server host and the bot bodies.

Python launchers and transports live here; the Node code they drive lives in
``bots/server/`` (flying-squid plugins) and ``bots/body/`` (mineflayer bodies).
"""
