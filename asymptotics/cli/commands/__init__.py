"""CLI commands: each module defines ``register(app)`` and is discovered by :mod:`asymptotics.cli.app`."""
