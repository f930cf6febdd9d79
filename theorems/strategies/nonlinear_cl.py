"""Strategies for paper 001 (Tian, nonlinearity in contrastive learning).

Ranges encode the hypotheses of each result (and the digest's §5 recipes); every draw is re-validated with
:func:`valid_for`.
"""

from __future__ import annotations

import math

from hypothesis import strategies as st

from ..core.result import AS_PRINTED, CORRECTED
from ._common import valid_for

__all__ = ["lme_mixture_params", "summation_params", "roughness_params", "linear_vs_relu_params"]

Q_STAR = (3 - math.sqrt(5)) / 2


@st.composite
def lme_mixture_params(draw) -> dict:
    """Theorem 1 on a simplex Gaussian mixture: d ∈ [2, 4], radius ∈ [2, 4], σ ∈ [0.2, 0.6] (clusters well
    separated, so LMEs exist; digest R5(b))."""
    params = dict(d=draw(st.integers(2, 4)), radius=round(draw(st.floats(2.0, 4.0)), 3),
                  sigma=round(draw(st.floats(0.2, 0.6)), 3), seed=draw(st.integers(0, 2**16)), starts=16)
    return valid_for("nonlinear_cl.theorem_1", AS_PRINTED)(params)


@st.composite
def summation_params(draw) -> dict:
    """Latent summation: M ∈ [2, 6], q ∈ [0.02, 0.95] away from the threshold by ≥ 1e-3 (both sides)."""
    q = draw(st.floats(0.02, 0.95).filter(lambda q: abs(q - Q_STAR) > 1e-3))
    params = dict(M=draw(st.integers(2, 6)), q=round(q, 6), seed=draw(st.integers(0, 2**16)))
    return valid_for("nonlinear_cl.summation_model", AS_PRINTED)(params)


@st.composite
def roughness_params(draw, form: str = CORRECTED) -> dict:
    """Theorem 2: C₀ log-uniform on [0.01, 100], uniform or bump (k ∈ [0, 4]) radial profiles."""
    params = dict(C0=float(f"{10 ** draw(st.floats(-2.0, 2.0)):.6g}"), profile=draw(st.sampled_from(("uniform", "bump"))),
                  k=draw(st.integers(0, 4)))
    return valid_for("nonlinear_cl.theorem_2", form)(params)


@st.composite
def linear_vs_relu_params(draw) -> dict:
    params = dict(d=draw(st.integers(2, 5)), sigma=round(draw(st.floats(0.2, 0.6)), 3),
                  radius=round(draw(st.floats(2.0, 4.0)), 3), seed=draw(st.integers(0, 2**16)), starts=32)
    return valid_for("nonlinear_cl.linear_vs_relu", AS_PRINTED)(params)
