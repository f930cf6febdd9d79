"""Strategies for paper 001 (Tian, nonlinearity in contrastive learning).

Ranges encode the hypotheses of each result; every draw is re-validated with :func:`valid_for`. Where a
hypothesis can be made to nearly bind, the ranges reach towards it (the conformance worst-case search then
steers there with ``hypothesis.target`` on the slack).
"""

from __future__ import annotations

import math

from hypothesis import strategies as st

from ..core.result import AS_PRINTED, CORRECTED
from ._common import valid_for

__all__ = ["lme_mixture_params", "theorem_1_params", "summation_params", "categorical_params", "roughness_params",
           "linear_vs_relu_params", "theorem_3_params", "theorem_4_params", "theorem_5_params", "theorem_6_params"]

Q_STAR = (3 - math.sqrt(5)) / 2


@st.composite
def lme_mixture_params(draw) -> dict:
    """Theorem 1 on a simplex Gaussian mixture (ReLU): d ∈ [2, 4], radius ∈ [2, 4], σ ∈ [0.2, 0.6] (clusters
    well separated, so LMEs exist)."""
    params = dict(d=draw(st.integers(2, 4)), radius=round(draw(st.floats(2.0, 4.0)), 3),
                  sigma=round(draw(st.floats(0.2, 0.6)), 3), seed=draw(st.integers(0, 2**16)), starts=16)
    return valid_for("nonlinear_cl.theorem_1", AS_PRINTED)(params)


@st.composite
def leaky_pair_params(draw) -> dict:
    """Theorem 1 on the LeakyReLU pair, where λ_gap/ρ runs from ≈ 13 (τ = 1) down to ≈ 1.1 (τ = 1.39)."""
    params = dict(model="leaky_pair", d=draw(st.integers(2, 3)), radius=1.0, sigma=1.0, neg_weight=0.9, leak=0.5,
                  tangent_sigma=round(draw(st.floats(1.0, 1.39)), 4), seed=draw(st.integers(0, 2**16)), dt=0.02,
                  steps=1000)
    return valid_for("nonlinear_cl.theorem_1", AS_PRINTED)(params)


def theorem_1_params():
    return st.one_of(lme_mixture_params(), leaky_pair_params())


@st.composite
def summation_params(draw) -> dict:
    """Latent summation: M ∈ [2, 6], q ∈ [0.02, 0.95] away from the threshold by ≥ 1e-3 (both sides)."""
    q = draw(st.floats(0.02, 0.95).filter(lambda q: abs(q - Q_STAR) > 1e-3))
    params = dict(M=draw(st.integers(2, 6)), q=round(q, 6), seed=draw(st.integers(0, 2**16)))
    return valid_for("nonlinear_cl.summation_model", AS_PRINTED)(params)


@st.composite
def categorical_params(draw) -> dict:
    """Latent categorical: M ∈ [2, 8], optionally one rare pattern P[y = 1] ∈ [1e-8, 1e-2]."""
    M = draw(st.integers(2, 8))
    p_min = draw(st.one_of(st.just(0.0), st.floats(-8.0, -2.0).map(lambda e: float(f"{10 ** e:.3g}"))))
    params = dict(M=M, p_min=p_min, seed=draw(st.integers(0, 2**16)))
    return valid_for("nonlinear_cl.categorical_model", AS_PRINTED)(params)


@st.composite
def roughness_params(draw, form: str = CORRECTED) -> dict:
    """Theorem 2: C₀ log-uniform on [0.01, 100], uniform or bump (k ∈ [0, 4]) radial profiles."""
    params = dict(C0=float(f"{10 ** draw(st.floats(-2.0, 2.0)):.6g}"), profile=draw(st.sampled_from(("uniform", "bump"))),
                  k=draw(st.integers(0, 4)))
    return valid_for("nonlinear_cl.theorem_2", form)(params)


@st.composite
def linear_vs_relu_params(draw) -> dict:
    params = dict(d=draw(st.integers(2, 5)), sigma=round(draw(st.floats(0.2, 0.6)), 3),
                  radius=round(draw(st.floats(2.0, 4.0)), 3), seed=draw(st.integers(0, 2**16)), starts=16,
                  weight_mix=round(draw(st.floats(0.2, 1.0)), 3))
    return valid_for("nonlinear_cl.linear_vs_relu", AS_PRINTED)(params)


@st.composite
def theorem_3_params(draw) -> dict:
    """Theorem 3 where (11) holds with its safety margin: narrow to medium clusters, small γ and θ₀ (instances
    that violate (11) raise; the ranges are those where it held in every draw tried)."""
    params = dict(sigma=round(draw(st.floats(0.1, 0.5)), 3), gamma=0.03, theta0=round(draw(st.floats(0.02, 0.15)), 3),
                  seed=draw(st.integers(0, 2**16)))
    return valid_for("nonlinear_cl.theorem_3", AS_PRINTED)(params)


@st.composite
def theorem_4_params(draw) -> dict:
    params = dict(K=draw(st.integers(1, 3)), M=draw(st.integers(2, 4)), d=draw(st.integers(2, 5)), N=16,
                  seed=draw(st.integers(0, 2**16)),
                  s_small=draw(st.one_of(st.just(0.0), st.floats(-6.0, -1.0).map(lambda e: float(f"{10 ** e:.3g}")))))
    return valid_for("nonlinear_cl.theorem_4", AS_PRINTED)(params)


@st.composite
def theorem_5_params(draw) -> dict:
    params = dict(K=draw(st.integers(2, 4)), d=draw(st.integers(2, 4)), atoms=draw(st.integers(2, 3)),
                  p1=round(draw(st.floats(0.05, 0.95)), 4), seed=draw(st.integers(0, 2**16)),
                  weak_rf=float(f"{10 ** draw(st.floats(-3.0, 0.0)):.3g}"))
    return valid_for("nonlinear_cl.theorem_5", AS_PRINTED)(params)


@st.composite
def theorem_6_params(draw) -> dict:
    """Theorem 6: d ∈ [2, 8], c_max ∈ [0.2, 3] away from the marginal c = 1, 400 starts."""
    c_max = draw(st.floats(0.2, 3.0).filter(lambda c: abs(c - 1) >= 0.1))
    params = dict(d=draw(st.integers(2, 8)), c_max=round(c_max, 3), inits=400, seed=draw(st.integers(0, 2**16)))
    return valid_for("nonlinear_cl.theorem_6", AS_PRINTED)(params)


@st.composite
def lemma_1_params(draw) -> dict:
    """Lemma 1: n ∈ [2, 40], k ∈ [1, 3], spread ∈ [0.1, 3], τ log-uniform on [0.1, 10], optional near-duplicates
    (down to 1e-6 apart: the Gram matrix at the edge of PSD); the truncation degree keeps n·C(order + k, k) small."""
    k = draw(st.integers(1, 3))
    params = dict(n=draw(st.integers(2, 40)), k=k, spread=round(draw(st.floats(0.1, 3.0)), 3),
                  tau=float(f"{10 ** draw(st.floats(-1.0, 1.0)):.3g}"), order=(60, 50, 30)[k - 1],
                  near=draw(st.one_of(st.just(0.0), st.floats(-6.0, -1.0).map(lambda e: float(f"{10 ** e:.3g}")))),
                  seed=draw(st.integers(0, 2**16)))
    return valid_for("nonlinear_cl.lemma_1", AS_PRINTED)(params)


@st.composite
def alpha_cl_gradient_params(draw) -> dict:
    """α-CL correspondence: N ∈ [2, 48], small layers, every activation, τ log-uniform on [0.01, 10] (down to one-hot α),
    augmentation ∈ [0, 2]."""
    params = dict(N=draw(st.integers(2, 48)), d=draw(st.integers(1, 8)), hidden=draw(st.integers(1, 8)),
                  d_out=draw(st.integers(1, 6)), activation=draw(st.sampled_from(("relu", "linear", "tanh"))),
                  tau=float(f"{10 ** draw(st.floats(-2.0, 1.0)):.3g}"), aug=round(draw(st.floats(0.0, 2.0)), 3),
                  seed=draw(st.integers(0, 2**16)))
    return valid_for("nonlinear_cl.alpha_cl_gradient", AS_PRINTED)(params)


@st.composite
def lemma_4_params(draw) -> dict:
    """Lemma 4: small 2-layer networks, homogeneous activations (ReLU most often), every kind of fixed α, with or
    without the integer lattice that puts pre-activations exactly on the kinks."""
    params = dict(K=draw(st.integers(1, 4)), M=draw(st.integers(1, 3)), d=draw(st.integers(1, 5)),
                  N=draw(st.integers(2, 32)), d_out=draw(st.integers(1, 4)),
                  activation=draw(st.sampled_from(("relu", "relu", "leaky", "linear"))),
                  leak=round(draw(st.floats(0.0, 0.9)), 3), alpha=draw(st.sampled_from(("random", "ones", "infonce"))),
                  tau=float(f"{10 ** draw(st.floats(-1.5, 1.0)):.3g}"), aug=round(draw(st.floats(0.0, 1.5)), 3),
                  kinks=draw(st.booleans()), seed=draw(st.integers(0, 2**16)))
    return valid_for("nonlinear_cl.lemma_4", AS_PRINTED)(params)


@st.composite
def theorem_6_remark_params(draw, form: str = CORRECTED) -> dict:
    """Remark after Theorem 6 (corrected form): d ∈ [2, 30], eps_max ∈ (0, 5], general-case gaps in [0, 3] with jitter,
    Monte Carlo sized to stay small."""
    d = draw(st.integers(2, 30))
    params = dict(d=d, eps_max=round(draw(st.floats(0.05, 5.0)), 3), gap=round(draw(st.floats(0.0, 3.0)), 3),
                  jitter=round(draw(st.floats(0.0, 1.0)), 3), mc=20_000, seed=draw(st.integers(0, 2**16)))
    return valid_for("nonlinear_cl.theorem_6_remark", form)(params)


@st.composite
def pi_step_params(draw, result_id: str, form: str = AS_PRINTED) -> dict:
    """Lemmas 7, 8, 10 along power iteration: the three models of A(·), d ∈ [2, 5], 1–5 clusters of width
    σ ∈ [0.3, 1.2] (broad: A varies along the trajectory), batches of N ∈ [16, 256] with augmentation up to 6, small
    PD shifts (down to 1e-4: λ_min(Â) nearly 0)."""
    params = dict(model=draw(st.sampled_from(("mixture", "batch", "shifted"))), d=draw(st.integers(2, 5)),
                  clusters=draw(st.integers(1, 5)), radius=round(draw(st.floats(0.5, 3.0)), 3),
                  sigma=round(draw(st.floats(0.3, 1.2)), 3), starts=8, pi_iters=40,
                  N=draw(st.integers(16, 256)), aug=round(draw(st.floats(0.0, 6.0)), 3),
                  shift=float(f"{10 ** draw(st.floats(-4.0, 0.0)):.3g}"), seed=draw(st.integers(0, 2**16)))
    return valid_for(result_id, form)(params)


@st.composite
def corollary_2_params(draw) -> dict:
    """Corollary 2: 1–5 components, radius ∈ [0.5, 3], σ ∈ [0.2, 0.8], τ log-uniform on [0.5, 20]."""
    params = dict(clusters=draw(st.integers(1, 5)), radius=round(draw(st.floats(0.5, 3.0)), 3),
                  sigma=round(draw(st.floats(0.2, 0.8)), 3), tau=float(f"{10 ** draw(st.floats(-0.3, 1.3)):.3g}"),
                  seed=draw(st.integers(0, 2**16)))
    return valid_for("nonlinear_cl.corollary_2", AS_PRINTED)(params)
