"""Compiled kernels of the simulator, specialised to one student activation σ.

This file is a template (:mod:`asymptotics.rendering.templates`): ``Activation.specialise`` renders
it to a module on disk whose header binds ``sigma`` and ``dsigma`` to the activation's compiled
scalar functions σ and σ', so that ``numba.njit(cache=True)`` keeps the machine code between
processes. Everything from the marker line on is copied verbatim.

Each kernel is a pure loop over rows (``prange``: one thread per row, so every sum is taken in
the same order whatever the number of threads, and results do not depend on it).
"""

from numba import njit, prange


def sigma(x):  # placeholder: replaced by the student's compiled σ in the rendered module
    raise NotImplementedError


def dsigma(x):  # placeholder: replaced by the student's compiled σ'
    raise NotImplementedError


def d2sigma(x):  # placeholder: replaced by the student's compiled σ'' (unused here)
    raise NotImplementedError


# ---- kernels (copied into the rendered module) ----


@njit(cache=True, nogil=True)
def _output_row(Z, i, c):
    """Σⱼ cⱼ σ(Zᵢⱼ), summed in order j = 0 … N − 1."""
    s = 0.0
    for j in range(Z.shape[1]):
        s += sigma(Z[i, j]) * c[j]
    return s


@njit(cache=True, parallel=True, nogil=True)
def residual_gradient(Z, y, c, f):
    """Fused gradient assembly, in place.

    On entry Z = XW (n×N pre-activations); ``c`` the effective readout (the network is
    f(x) = Σⱼ cⱼ σ(wⱼᵀx)). On exit f[i] = f(xᵢ) and Z[i, j] = (yᵢ − f(xᵢ)) cⱼ σ'(Zᵢⱼ), so that
    the negative gradient of (1/2n)Σ(y − f)² is Xᵀ Z / n. One pass per row, no temporary.
    """
    n, N = Z.shape
    for i in prange(n):
        s = _output_row(Z, i, c)
        f[i] = s
        r = y[i] - s
        for j in range(N):
            Z[i, j] = r * c[j] * dsigma(Z[i, j])


@njit(cache=True, parallel=True, nogil=True)
def network_output(Z, c, f):
    """f[i] = Σⱼ cⱼ σ(Zᵢⱼ) (the network output on pre-activations Z)."""
    for i in prange(Z.shape[0]):
        f[i] = _output_row(Z, i, c)


@njit(cache=True, parallel=True, nogil=True)
def apply_sigma(Z):
    """Z ← σ(Z), in place."""
    n, N = Z.shape
    for i in prange(n):
        for j in range(N):
            Z[i, j] = sigma(Z[i, j])


@njit(cache=True, parallel=True, nogil=True)
def predict_blocks(Z, B, P):
    """Fused predictions of K readouts without materialising σ(Z).

    Z is K×m×N (Z[k] = X Wₖ, the pre-activations of weights k on m inputs), B is K×N (readout
    k); on exit P[i, k] = Σⱼ σ(Z[k, i, j]) B[k, j].
    """
    K, m, N = Z.shape
    for i in prange(m):
        for k in range(K):
            s = 0.0
            for j in range(N):
                s += sigma(Z[k, i, j]) * B[k, j]
            P[i, k] = s
