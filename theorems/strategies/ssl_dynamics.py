"""Strategies for paper 002: SSL learning dynamics (Esser et al.).

Every range comes from the results' `Param` declarations (`declared_params`, `param`); the strategies here only
add what a declaration cannot say: spectra with gaps and a negative smallest eigenvalue
(`theorems.ssl_dynamics.instances.gapped_spectrum`), and ranges that a hypothesis ties together (h ≥ d + z,
d ≤ h, r ≤ z, z ≤ d).
"""

from __future__ import annotations

from hypothesis import assume
from hypothesis import strategies as st

from ..core.result import AS_PRINTED, CORRECTED
from ._common import param, param_of, valid_for

__all__ = ["gapped_spectrum_strategy", "ssl_theorem3_params", "ssl_theorem2_params", "ssl_prop3_params",
           "ssl_figure3_params", "ssl_lemma2_params", "ssl_remark3_params", "ssl_remark2_params"]


@st.composite
def gapped_spectrum_strategy(draw, d: int, gap: float = 0.1) -> tuple[float, ...]:
    """d sorted eigenvalues, consecutive gaps ≥ ``gap``, none within 0.05 of zero, the smallest negative."""
    from ..data.spectra import SPECTRUM_START, SPECTRUM_STEP_MAX, gapped_spectrum

    start = draw(st.floats(*SPECTRUM_START))
    return gapped_spectrum(start, [draw(st.floats(gap, SPECTRUM_STEP_MAX)) for _ in range(d - 1)])


@st.composite
def ssl_theorem3_params(draw) -> dict:
    """Theorem 3 (corrected) with λ₁ < 0 simple, ‖q₀‖ from its declaration, e₁ᵀq₀ ≠ 0 (a hypothesis of the
    corrected form: the sign is ±1, never the control's 0)."""
    rid = "ssl_dynamics.theorem_3"
    params = dict(lams=draw(gapped_spectrum_strategy(draw(st.integers(2, 6)), gap=0.15)),
                  q0_norm=draw(param(param_of(rid, "q0_norm"))), e1_sign=draw(st.sampled_from((-1, 1))),
                  seed=draw(param(param_of(rid, "seed"))))
    return valid_for(rid, CORRECTED)(params)


@st.composite
def ssl_theorem2_params(draw) -> dict:
    rid = "ssl_dynamics.theorem_2"
    d, z = draw(st.integers(1, 5)), draw(param(param_of(rid, "z")))
    params = dict(spectrum=draw(gapped_spectrum_strategy(d)), z=z,
                  h=draw(param(param_of(rid, "h"), lo=d + z)), seed=draw(param(param_of(rid, "seed"))))
    return valid_for(rid, AS_PRINTED)(params)


@st.composite
def ssl_prop3_params(draw) -> dict:
    rid = "ssl_dynamics.proposition_3"
    d, z = draw(st.integers(2, 5)), draw(param(param_of(rid, "z")))
    params = dict(spectrum=draw(gapped_spectrum_strategy(d, gap=0.3)), z=z,
                  h=draw(param(param_of(rid, "h"), lo=d + z, hi=d + z + 4)), seed=draw(param(param_of(rid, "seed"))))
    return valid_for(rid, CORRECTED)(params)


@st.composite
def ssl_figure3_params(draw) -> dict:
    """Figure 3 on resampled half moons: initialisations, widths from h = d = 2 upwards, η around 0.01."""
    rid = "ssl_dynamics.figure_3"
    widths = tuple(sorted(draw(st.sets(st.integers(2, 3000), min_size=2, max_size=3))))
    params = {name: draw(param(param_of(rid, name))) for name in ("seed", "n", "seeds", "eta")}
    return valid_for(rid, AS_PRINTED)({**params, "widths": widths})


@st.composite
def ssl_lemma2_params(draw) -> dict:
    """Lemma 2 with the witness L and the proof's split s varied, widths from d (the hypothesis d ≤ h) upwards."""
    rid = "ssl_dynamics.lemma_2"
    d = draw(param(param_of(rid, "d")))
    widths = tuple(sorted(draw(st.sets(st.integers(max(d, 2), 3000), min_size=1, max_size=4))))
    params = {name: draw(param(param_of(rid, name))) for name in ("draws", "L", "s", "seed")}
    from ..data.haar import bites, entry_tail_bound as epsilon

    def judged(h):
        return bites(epsilon(h, d, params["L"], params["s"]), params["draws"])

    if not any(judged(h) for h in widths):
        # The check judges only widths whose ε_h the draws can contradict (ε_h^draws < PVALUE_MIN): add the first
        # such width of a geometric grid up to 10⁴, if any.
        grid = [h for h in (30, 100, 300, 1000, 3000, 10_000) if h >= d and judged(h)]
        assume(bool(grid))
        widths = tuple(sorted({*widths, grid[0]}))
    return valid_for(rid, AS_PRINTED)({**params, "d": d, "widths": widths})


@st.composite
def ssl_remark3_params(draw) -> dict:
    """Remark 3 (corrected) on Gaussian SSL data with a Gaussian or orthonormal fixed projector, r ≤ z."""
    rid = "ssl_dynamics.remark_3"
    z = draw(param(param_of(rid, "z")))
    params = dict(d=draw(param(param_of(rid, "d"))), z=z, r=draw(param(param_of(rid, "r"), hi=z)),
                  projector=draw(param(param_of(rid, "projector"))), loss=draw(param(param_of(rid, "loss"))),
                  seed=draw(param(param_of(rid, "seed"))))
    return valid_for(rid, CORRECTED)(params)


@st.composite
def ssl_remark2_params(draw) -> dict:
    """Remark 2 on Gaussian anchors of a random full-rank spectrum, z ≤ d. One negative per anchor (the
    structure of (1)): the batch form's n×n similarities cost 20× more and are run by the report."""
    rid = "ssl_dynamics.remark_2"
    d = draw(st.integers(3, 6))
    spectrum = tuple(sorted((round(draw(st.floats(0.2, 5.0)), 3) for _ in range(d)), reverse=True))
    params = dict(spectrum=spectrum, z=draw(param(param_of(rid, "z"), hi=d)),
                  **{name: draw(param(param_of(rid, name))) for name in ("n", "sigma2", "seed")})
    return valid_for(rid, AS_PRINTED)(params)
