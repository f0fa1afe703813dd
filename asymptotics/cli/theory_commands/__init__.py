"""Subcommands of ``asymptotics theory``: each module defines ``register(theory_app)``."""
