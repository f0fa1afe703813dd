"""Committed simulation studies: each module has a ``main()`` that runs it from a root seed and prints
its table (``python -m validation.studies.<name>``). Besides the study of the spiked-RF network map,
the studies that take the simulator's trained networks apart (``step_decomposition``,
``large_step_decomposition``, ``large_step_initial_output``, ``large_step_self_part``,
``large_step_column_norms``), each cited where its finding is documented (``docs/finite-size.md``,
``docs/large-step-exact.md``, ``docs/spiked-rf-finite-width.md``)."""
