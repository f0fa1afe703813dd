import os
import tempfile

# Keep generated modules and numba caches of the test run in one place per machine.
os.environ.setdefault("ASYMPTOTICS_CACHE_DIR", os.path.join(tempfile.gettempdir(), "asymptotics-test-cache"))


def cli_commands(cmd=None, path=()) -> list[tuple[str, object]]:
    """Every leaf command of the command line as ``(name, click command)``, the name as typed
    (``"theory risk"``), in sorted order; ``cmd`` defaults to the whole ``asymptotics`` command.
    (``from conftest import cli_commands``: the walk of the option and output-path tests.)"""
    if cmd is None:
        from asymptotics.cli.app import command

        cmd = command()
    subs = getattr(cmd, "commands", None)
    if not subs:
        return [(" ".join(path), cmd)]
    return [leaf for name, sub in sorted(subs.items()) for leaf in cli_commands(sub, (*path, name))]
