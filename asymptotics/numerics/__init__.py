r"""The numerics layer: every numerical algorithm of the package, written once.

A theory contributes a *problem* — a residual and its Jacobian, or a map, with the size of its
terms, a start and named outputs — and never a loop or a linear solve. The algorithms live here:

==========================  =====================================================================
``status.py``               the one status vocabulary (:class:`~asymptotics.numerics.status.Status`)
``templates/``              the compiled algorithm templates (real, linted Python files rendered by
                            :mod:`asymptotics.rendering.templates` into the generated modules that
                            use them): the iteration families, the small dense linear algebra and
                            Gaussian quadrature (``templates/quadrature.py``)
``quadrature.py``           composite Gauss–Legendre against the Gaussian density (numpy): the
                            Legendre nodes once per order, the rule on given panels
``marchenko_pastur.py``     the Marchenko–Pastur transforms (numpy), each formula written once;
                            ``marchenko_pastur_numba.py`` compiles the same source for scalars
==========================  =====================================================================

Each compiled family has at most one plain-Python twin (for complex or mpmath arithmetic) in
:mod:`asymptotics.solvers`.
"""
