"""Ground truth for :mod:`asymptotics`: a Monte-Carlo simulator of the network (``validation.simulator``)
and a registry of theory-vs-simulation cases (``validation.registry``, cases in ``validation.cases``).

The simulator imports only :mod:`asymptotics.activations`, :mod:`asymptotics.params` and
:mod:`asymptotics.errors`: the ground truth never shares code with the theory it checks.
"""
