"""One module per reproduced figure or table (each registers an :class:`~asymptotics.reproduce.registry.Item`)."""
