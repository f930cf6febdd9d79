"""Strategies for paper 002: SSL learning dynamics (Esser et al.)."""

from __future__ import annotations

from hypothesis import strategies as st

from ..core.result import AS_PRINTED, CORRECTED
from ._common import valid_for

__all__ = ["gapped_spectrum", "ssl_prop1_params", "ssl_theorem1_params", "ssl_prop2_params", "ssl_prop3_params", "ssl_theorem3_params", "ssl_theorem2_params",
           "ssl_figure3_params", "ssl_lemma2_params", "ssl_expected_c_params", "ssl_remark3_params", "ssl_remark2_params", "ssl_new_point_params"]


@st.composite
def gapped_spectrum(draw, d: int, negatives_at_least: int = 1, gap: float = 0.1) -> str:
    """d eigenvalues in about [−3, 3], sorted, consecutive gaps ≥ ``gap``, no zero, ≥ ``negatives_at_least`` < 0."""
    start = draw(st.floats(-3.0, -0.3))
    steps = [draw(st.floats(gap, 1.2)) for _ in range(d - 1)]
    lam = [start]
    for s in steps:
        lam.append(lam[-1] + s)
    lam = [v if abs(v) > 0.05 else v + 0.1 for v in lam]
    lam = sorted(lam)
    return ",".join(f"{v:.4f}" for v in lam)


@st.composite
def ssl_theorem3_params(draw) -> dict:
    """Theorem 3 (corrected) with λ₁ < 0 simple, ‖q₀‖ ∈ [0.05, 0.95], e₁ᵀq₀ ≠ 0 (digest R9 ranges)."""
    d = draw(st.integers(2, 6))
    params = dict(lams=draw(gapped_spectrum(d, gap=0.15)), q0_norm=round(draw(st.floats(0.05, 0.95)), 4),
                  e1_sign=draw(st.sampled_from([-1, 1])), seed=draw(st.integers(0, 2**16)))
    return valid_for("ssl_dynamics.theorem_3", CORRECTED)(params)


@st.composite
def ssl_theorem2_params(draw) -> dict:
    d, z = draw(st.integers(1, 5)), draw(st.integers(1, 3))
    params = dict(spectrum=draw(gapped_spectrum(d)), z=z, h=d + z + draw(st.integers(0, 12)),
                  seed=draw(st.integers(0, 2**16)))
    return valid_for("ssl_dynamics.theorem_2", AS_PRINTED)(params)


@st.composite
def ssl_prop2_params(draw) -> dict:
    params = dict(d=draw(st.integers(2, 5)), z=draw(st.integers(2, 4)), h=draw(st.integers(4, 16)),
                  c1=round(draw(st.floats(0.5, 2.0)), 3), c2=round(draw(st.floats(0.5, 2.0)), 3),
                  activation=draw(st.sampled_from(["tanh", "softplus2"])), seed=draw(st.integers(0, 2**16)))
    return valid_for("ssl_dynamics.proposition_2", AS_PRINTED)(params)


@st.composite
def ssl_prop3_params(draw) -> dict:
    d = draw(st.integers(2, 5))
    z = draw(st.integers(1, 3))
    params = dict(spectrum=draw(gapped_spectrum(d, gap=0.3)), z=z, h=d + z + draw(st.integers(0, 4)),
                  seed=draw(st.integers(0, 2**16)))
    return valid_for("ssl_dynamics.proposition_3", CORRECTED)(params)


@st.composite
def ssl_prop1_params(draw) -> dict:
    """Proposition 1 (corrected) on Gaussian SSL data: λ₁ simple on generic draws."""
    params = dict(d=draw(st.integers(2, 5)), z=draw(st.integers(2, 4)), loss=draw(st.sampled_from(["contrastive",
                                                                                                   "noncontrastive"])),
                  seed=draw(st.integers(0, 2**16)))
    return valid_for("ssl_dynamics.proposition_1", CORRECTED)(params)


@st.composite
def ssl_theorem1_params(draw) -> dict:
    """Theorem 1 on widths up to 4·10⁵: for d = 1 and h ≳ 5·10⁴ the bound (K = 1) is below what an adversarial W₁
    attains, so only the randomness of W₁ keeps it; smaller widths are where the Taylor chain alone implies it."""
    d = draw(st.integers(1, 4))
    z = draw(st.integers(1, 3))
    h_max = 400_000 if d == 1 else 20_000
    params = dict(activation=draw(st.sampled_from(["tanh", "softplus2"])), d=d, z=z,
                  h=draw(st.integers(max(3, d, z), h_max)), r=round(draw(st.floats(0.05, 20.0)), 4),
                  w2=draw(st.sampled_from(["random", "worst"])), draws=8, seed=draw(st.integers(0, 2**16)))
    return valid_for("ssl_dynamics.theorem_1", AS_PRINTED)(params)


@st.composite
def ssl_figure3_params(draw) -> dict:
    """Figure 3 on resampled half moons: initialisations, widths from h = d upwards, η around the paper's 0.01."""
    widths = sorted(draw(st.sets(st.integers(2, 3000), min_size=2, max_size=3)))
    params = dict(seed=draw(st.integers(0, 2**16)), n=draw(st.integers(100, 400)), seeds=draw(st.integers(1, 4)),
                  widths=",".join(map(str, widths)), eta=round(draw(st.floats(0.005, 0.02)), 4))
    return valid_for("ssl_dynamics.figure_3", AS_PRINTED)(params)


@st.composite
def ssl_lemma2_params(draw) -> dict:
    """Lemma 2 with the witness L and the proof's split s varied, widths from d (the hypothesis d ≤ h) upwards."""
    d = draw(st.integers(1, 8))
    widths = sorted(draw(st.sets(st.integers(max(d, 2), 3000), min_size=1, max_size=4)))
    params = dict(d=d, widths=",".join(map(str, widths)), draws=draw(st.integers(8, 64)),
                  L=round(draw(st.floats(0.6, 3.0)), 3), s=round(draw(st.floats(0.1, 0.9)), 3),
                  seed=draw(st.integers(0, 2**16)))
    return valid_for("ssl_dynamics.lemma_2", AS_PRINTED)(params)


@st.composite
def ssl_expected_c_params(draw) -> dict:
    """E[C̃ | X] on moons or Gaussian data of any mean, sample size and augmentation variance."""
    data = draw(st.sampled_from(["moons", "gaussian"]))
    params = dict(data=data, d=2 if data == "moons" else draw(st.integers(1, 5)), n=draw(st.integers(3, 400)),
                  shift=round(draw(st.floats(-3.0, 3.0)), 3), sigma2=round(draw(st.floats(0.0, 1.0)), 3),
                  resamples=draw(st.integers(500, 2000)), seed=draw(st.integers(0, 2**16)))
    return valid_for("ssl_dynamics.expected_c", CORRECTED)(params)


@st.composite
def ssl_remark3_params(draw) -> dict:
    """Remark 3 (corrected) on Gaussian SSL data with a Gaussian or orthonormal fixed projector."""
    z = draw(st.integers(3, 12))
    params = dict(d=draw(st.integers(2, 5)), z=z, r=draw(st.integers(2, min(z, 5))),
                  projector=draw(st.sampled_from(["gaussian", "orthonormal"])),
                  loss=draw(st.sampled_from(["contrastive", "noncontrastive"])), seed=draw(st.integers(0, 2**16)))
    return valid_for("ssl_dynamics.remark_3", CORRECTED)(params)


@st.composite
def ssl_remark2_params(draw) -> dict:
    """Remark 2 (corrected) on Gaussian anchors of a random full-rank spectrum."""
    d = draw(st.integers(3, 6))
    spec = sorted((round(draw(st.floats(0.2, 5.0)), 3) for _ in range(d)), reverse=True)
    params = dict(spectrum=",".join(map(str, spec)), z=draw(st.integers(2, d)), n=draw(st.integers(100, 400)),
                  sigma2=round(draw(st.floats(0.0, 1.0)), 3), seed=draw(st.integers(0, 2**16)))
    # One negative per anchor (the structure of (1)); the batch form's n×n similarities cost 20× more per
    # evaluation and are run by the report.
    return valid_for("ssl_dynamics.remark_2", CORRECTED)(params)


@st.composite
def ssl_new_point_params(draw) -> dict:
    """New points on resampled half moons, widths from h = d + z, one or two outputs."""
    z = draw(st.integers(1, 2))
    params = dict(n=draw(st.integers(50, 400)), z=z, h=draw(st.integers(2 + z, 200)), seeds=draw(st.integers(1, 4)),
                  seed=draw(st.integers(0, 2**16)))
    return valid_for("ssl_dynamics.new_data_point", AS_PRINTED)(params)
