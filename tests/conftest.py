import os
import tempfile

# Keep generated modules and numba caches of the test run in one place per machine.
os.environ.setdefault("ASYMPTOTICS_CACHE_DIR", os.path.join(tempfile.gettempdir(), "asymptotics-test-cache"))
