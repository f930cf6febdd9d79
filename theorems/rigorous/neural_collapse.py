"""Paper 004 (neural collapse): the UFM's global minimum certified from below, exactly, and from above by a feasible
point evaluated in ball arithmetic; and the closed forms L* evaluated a second time, exactly (MSE) or in Arb (CE).
For CE the lower bound is L* = g(ρ*) itself (Jensen and Cauchy–Schwarz: lemma_4_2's correction), enclosed in Arb.

The lower bound (Lemma 4.2's MSE UFM, features on the LayerNorm sphere {x : 1ᵀx = 0, ‖x‖² = d}, no ‖X‖² term):
for every feasible (W, X), with P the projector onto 1^⊥ in R^d, WX = (WP)X, ‖WP‖_F ≤ ‖W‖_F and rank(WP) ≤ d − 1;
by Hölder ‖Z‖_* ≤ ‖WP‖_F‖X‖_F = ‖WP‖_F√(Nd) for Z = WPX, so

    L(W, X) ≥ (1/2N)‖Z − Y‖² + (λ/(2Nd))‖Z‖_*²,   rank Z ≤ r := min(K, d − 1).

By Mirsky's inequality ‖Z − Y‖² ≥ Σ_i (σ_i(Z) − σ_i(Y))² (σ_i(Y) = √n, K of them), and the right-hand side is a
convex symmetric function of the r singular values s_i of Z, minimised at equal s_i = s = √n·d/(d + λr):

    L(W, X) ≥ L_r := [(K − r) + λr²/(d + λr)] / (2K)      for every feasible (W, X).

At d ≥ K + 1 (r = K) this is the collapsed closed form Kλ/(2(d + Kλ)); at d = K (r = K − 1) it is strictly above it,
so "no start reaches L*" becomes "the global minimum is provably above L*". It is evaluated in exact rationals.
The upper end of the enclosure is the objective at the optimiser's best point, made exactly feasible (each feature
column re-projected onto the LN sphere in Arb) and evaluated in Arb: a rigorous sandwich of the global minimum.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping

from flint import arb

from ..core.errors import SuiteError
from .arith import NotDecided, ball, enclosure, exact, fname, need, rigorous, with_prec

LEMMA = "neural_collapse.lemma_4_2"
DIMENSION = "neural_collapse.dimension_conditions"
# The claims' own tolerances (lemma_4_2.REACH_RTOL / REACH_ATOL; tests/test_rigorous_replay.py checks they agree):
REACH_RTOL = Fraction(1, 10**7)
REACH_ATOL = Fraction(1, 10**12)
# The float closed form against its exact re-evaluation: a handful of float64 operations on O(1) numbers.
CLOSED_FORM_RTOL = 1e-13


def mse_lower_bound(K: int, d: int, lam: Fraction) -> Fraction:
    """L_r = [(K − r) + λr²/(d + λr)]/(2K), r = min(K, d − 1): a lower bound on every feasible point (module doc)."""
    if K < 1 or d < 2 or lam < 0:
        raise ValueError(f"mse_lower_bound: K = {K}, d = {d}, λ = {lam} outside K ≥ 1, d ≥ 2, λ ≥ 0")
    r = min(K, d - 1)
    return (Fraction(K - r) + lam * r * r / (d + lam * r)) / (2 * K)


def mse_collapsed_value(K: int, d: int, lam: Fraction) -> Fraction:
    """The collapsed MSE value Kλ/(2(d + Kλ)) (Lemma 4.2's L*, the suite's closed form), exactly."""
    return Fraction(K) * lam / (2 * (d + K * lam))


def mse_objective(W: list[list[Any]], X: list[list[Any]], n: int, lam: Fraction) -> arb:
    """(1/2N)‖WX̂ − Y‖² + (λ/2)‖W‖² in Arb, X̂ the recorded features re-projected onto the LN sphere column by column
    (x̂ = √d·Px/‖Px‖: exactly feasible), labels k repeated n times (data.frames.balanced_labels)."""
    K, d, N = len(W), len(X), len(X[0])
    need(N == K * n, f"N = K·n ({N} vs {K}·{n})")
    Wb = [[ball(w) for w in row] for row in W]
    feats = _feature_columns(X)
    fit = arb(0)
    for i in range(N):
        for k in range(K):
            z = sum((Wb[k][j] * feats[i][j] for j in range(d)), arb(0))
            y = 1 if i // n == k else 0
            fit += (z - y) ** 2
    reg = sum((w * w for row in Wb for w in row), arb(0))
    return fit / (2 * N) + ball(lam) * reg / 2


def ce_objective(W: list[list[Any]], X: list[list[Any]], n: int, lam: Fraction) -> arb:
    """mean_i[log Σ_k e^{z_ki} − z_{y_i i}] + (λ/2)‖W‖², Z = WX̂, X̂ re-projected onto the LN sphere, in Arb."""
    K, d, N = len(W), len(X), len(X[0])
    need(N == K * n, f"N = K·n ({N} vs {K}·{n})")
    Wb = [[ball(w) for w in row] for row in W]
    total = arb(0)
    for i, x in enumerate(_feature_columns(X)):
        z = [sum((Wb[k][j] * x[j] for j in range(d)), arb(0)) for k in range(K)]
        total += sum((zk.exp() for zk in z), arb(0)).log() - z[i // n]
    reg = sum((w * w for row in Wb for w in row), arb(0))
    return total / N + ball(lam) * reg / 2


def _feature_columns(X: list[list[Any]]) -> list[list[arb]]:
    d, N = len(X), len(X[0])
    sqrt_d = arb(d).sqrt()
    out = []
    for i in range(N):
        col = [ball(X[j][i]) for j in range(d)]
        mean = sum(col, arb(0)) / d
        pc = [c - mean for c in col]
        norm = sum((c * c for c in pc), arb(0)).sqrt()
        need(bool(norm > 0), f"feature column {i} has a non-zero component in 1^⊥")
        out.append([sqrt_d * c / norm for c in pc])
    return out


def _ufm_point(params: Mapping[str, Any], details: Mapping[str, Any]) -> dict:
    need(params.get("loss") in ("mse", "ce"), "the MSE or CE UFM")
    need(params.get("closed_form_scale", 1.0) == 1.0 and params.get("perturb", 0.0) == 0.0,
         "the closed form and the optimiser's points as they are")
    if not ({"best_W", "best_X"} <= set(details) or {"gufm_best_W", "gufm_best_X"} <= set(details)):
        raise NotDecided("the evidence records no best point (details['best_W'], details['best_X'])")
    extra = {"rho": details["closed_form_row_norm"]} if params["loss"] == "ce" else {}
    return {"loss": params["loss"], **extra, "K": int(params["K"]), "n": int(params["n"]), "d": int(params["d"]),
            "lam": params["lam"],
            "W": details.get("best_W", details.get("gufm_best_W")),
            "X": details.get("best_X", details.get("gufm_best_X"))}


def _sandwich(point: dict, fn, rtol: Fraction, atol: Fraction):
    """The global minimum and the best point's value both lie in [L_r, L(best point)]: against the collapsed value
    this decides either way (a failure at d = K, where L_r is above it; a hold at d ≥ K+1, where L_r is it), so the
    replay serves both forms."""
    K, n, d, lam = point["K"], point["n"], point["d"], exact(point["lam"])
    need(lam > 0 and d >= K, "λ > 0 and d ≥ K (Definition 3.4)")
    if point.get("loss", "mse") == "ce":
        return _ce_sandwich(point, fn, rtol, atol)
    lower = mse_lower_bound(K, d, lam)
    upper = mse_objective(point["W"], point["X"], n, lam)
    need(not bool(upper < ball(lower)), "the feasible point's value is not below the lower bound (a sanity check)")
    value = (lower, upper)  # the global minimum and the best point's value both lie in [L_r, L(Ŵ, X̂)]
    printed = mse_collapsed_value(K, d, lam)
    return enclosure(value, printed, "<=", f"exact lower bound L_r = [(K−r) + λr²/(d+λr)]/(2K), r = min(K, d−1) = "
                     f"{min(K, d - 1)} (nuclear-norm relaxation in Z = WX with rank Z ≤ d−1, Mirsky), = {lower}; "
                     "upper end: the optimiser's best point made exactly feasible, objective in Arb; bound: the "
                     "collapsed value Kλ/(2(d+Kλ)) plus the claim's tolerance",
                     fname(fn), point, allowance=rtol * printed + atol, require=None)


def _ce_sandwich(point: dict, fn, rtol: Fraction, atol: Fraction):
    """CE: L* = g(ρ*) (enclosed in Arb from the recorded root) bounds every feasible point from below (Jensen and
    Cauchy–Schwarz, lemma_4_2's correction); the best point, made feasible, from above."""
    K, n, d, lam = point["K"], point["n"], point["d"], exact(point["lam"])
    star = ce_closed_form_ball(K, d, lam, float(point["rho"]))
    upper = ce_objective(point["W"], point["X"], n, lam)
    need(not bool(upper < star), "the feasible point's value is not below L*")
    from .arith import bounds

    lo_star, hi_star = bounds(star)
    return enclosure((lo_star, upper), (lo_star, hi_star), "<=", "CE: lower end L* = g(ρ*) in Arb (ρ* bracketed by a "
                     "sign change of g'), a lower bound on every feasible point; upper end: the optimiser's best point "
                     "made exactly feasible, objective in Arb; bound: L* plus the claim's tolerance", fname(fn), point,
                     allowance=rtol * hi_star + atol, require=None)


@rigorous(LEMMA, "best_run_reaches_closed_form", _ufm_point, forms=("as_printed", "corrected"))
def lemma_4_2_global_minimum(point: dict):
    """Lemma 4.2 (MSE): the global minimum of the UFM lies in [L_r, L(best point)]: above the collapsed L* at d = K,
    equal to it (and reached by the best point) at d ≥ K+1."""
    return _sandwich(point, lemma_4_2_global_minimum, REACH_RTOL, REACH_ATOL)


@rigorous(DIMENSION, "gufm_optimum_is_collapsed_value", _ufm_point)
def dimension_conditions_global_minimum(point: dict):
    """Corollaries 4.5/4.7, MSE at d = K: the GUFM's global minimum is provably above the collapsed value."""
    return _sandwich(point, dimension_conditions_global_minimum, REACH_RTOL, Fraction(0))


# -- the closed forms a second time (issue 41, item 4) -------------------------------------------------------------
@with_prec
def ce_closed_form_ball(K: int, d: int, lam: Fraction, rho_float: float) -> arb:
    """CE L* = g(ρ*), g(ρ) = log(1 + (K−1)e^{−aρ}) + λKρ²/2, a = √d·K/(K−1), ρ* the root of g' (g convex): the
    float root is bracketed in Arb (g' < 0 < g' at its two ends, widened until it is) and g enclosed on the bracket."""
    a = arb(d).sqrt() * K / (K - 1)
    lam_b = ball(lam)

    def dg(rho: arb) -> arb:
        return -a * (K - 1) / ((a * rho).exp() + (K - 1)) + lam_b * K * rho

    rho = ball(rho_float)
    for width in (1e-14, 1e-12, 1e-10, 1e-8, 1e-6):
        lo, hi = rho - ball(width) * (abs(rho_float) + 1), rho + ball(width) * (abs(rho_float) + 1)
        if bool(dg(lo) < 0) and bool(dg(hi) > 0):
            bracket = lo.union(hi)
            return (1 + (K - 1) * (-a * bracket).exp()).log() + lam_b * K * bracket * bracket / 2
    raise SuiteError(f"CE closed form: the float root ρ* = {rho_float!r} is not bracketed by a sign change of g' "
                     f"(K = {K}, d = {d}, λ = {float(lam)!r})")


def check_closed_form(loss: str, K: int, d: int, lam: float, value: float, rho: float | None = None) -> str:
    """The float L* of ``ufm.closed_form`` against its exact (MSE) or Arb (CE) re-evaluation: SuiteError when they
    disagree beyond the enclosure widened by CLOSED_FORM_RTOL (the float's own rounding). Returns the enclosure as text."""
    lam_q = exact(lam)
    if loss == "mse":
        ref = mse_collapsed_value(K, d, lam_q)
        lo = hi = ref
    else:
        if rho is None or lam_q == 0:
            return "not evaluated (λ = 0: the infimum 0 is not attained)"
        enc = ce_closed_form_ball(K, d, lam_q, rho)
        from .arith import bounds

        lo, hi = bounds(enc)
    slack = Fraction(CLOSED_FORM_RTOL) * max(abs(lo), abs(hi))
    v = exact(value)
    if not (lo - slack <= v <= hi + slack):
        raise SuiteError(f"UFM {loss} closed form: float L* = {value!r} outside its exact re-evaluation "
                         f"[{float(lo)!r}, {float(hi)!r}] (K = {K}, d = {d}, λ = {lam!r})")
    return f"[{float(lo)!r}, {float(hi)!r}]"
