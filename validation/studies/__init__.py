"""Committed simulation studies: each module has a ``main()`` that runs it from a root seed and prints
its table (``python -m validation.studies.<name>``)."""
