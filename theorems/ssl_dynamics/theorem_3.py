"""Theorem 3 of paper 002: the eigen-coordinate dynamics (10) for z = 1.

Statement as printed (Theorem 3)
--------------------------------
"Let z = 1, then ½q̇ = −(1 − qᵀq)Λq − (I − qqᵀ)Λq  (10). (i) Assume all the eigenvalues of Λ are strictly
positive, then q converges to 0. (ii) Assume there is at least one negative eigenvalue of Λ, then q becomes the
smallest eigenvector, e₁."

Quantifiers and reading
-----------------------
∀ Λ (diagonal, non-zero eigenvalues), ∀ starting points q₀ = (W₂ᵀW₁V)ᵀ of orthonormal factors (‖q₀‖ ≤ 1, every
width h ≥ d): the solution of (10) converges to 0 (case i) or to "the smallest eigenvector" (case ii). Nothing is
existential. An eigenvector is defined up to sign (and, for a repeated λ₁, up to a rotation in its eigenspace),
and the paper's Figure 3 says the outputs "converge to either of two points": case (ii) is read as "q converges
to a unit vector of the λ₁-eigenspace". Old status → new status: ``verified-corrected`` → ``verified-corrected``,
with two of the four old counterexamples withdrawn as readings the paper does not make (q → −e₁ when e₁ᵀq₀ < 0, and
a repeated λ₁: both limits *are* smallest eigenvectors). Two remain, both inside the printed hypotheses:
* e₁ᵀq₀ = 0, Λ = diag(−1, −0.3, 0.5, 2): {e₁ᵀq = 0} is invariant under (10), and q → ±e₂ (distance ≈ 1 from
  every smallest eigenvector);
* h = d (W₁ square orthogonal, allowed by W₁ᵀW₁ = I_d) with Λ = diag(0.5, 1, 2, 3) ≻ 0: then ‖q‖ ≡ 1 and on the
  sphere (10) is Oja's flow, so q → ±e₁ ≠ 0 for every network start (‖q(T)‖ = 1), against case (i).
Proof erratum (Appendix, proof of Theorem 3): "the derivative of e₁ᵀq is always positive" — it is
2e₁ᵀq[(1 − ‖q‖²)(−λ₁) + (qᵀΛq − λ₁)], of the sign of e₁ᵀq: with e₁ᵀq₀ < 0, e₁ᵀq decreases to −1.

Correction: (ii) q → sign(e₁ᵀq₀)·e₁ for e₁ᵀq₀ ≠ 0 and λ₁ simple; (i) needs ‖q₀‖ < 1 (h > d for a network start).
Asymptotic rate (linearising (10) at the limit): min(8|λ₁|, 2(λ₂ − λ₁)) near ±e₁, 4λ_min near 0.

What one check does
-------------------
C = diag(``lams``) (so V = I and q = W₁ᵀW₂); ``starts`` starting points at once, every claim taken at the worst of
them. ``start='ode'``: q₀ random directions of norm ``q0_norm`` whose e₁ component has the sign ``e1_sign`` (0:
exactly zero); (10) is integrated for all of them by one batched DOP853 integration (``optim.ode.integrate_batched``,
rtol 1e-11, every accepted step recorded). ``start='network'``: Haar-random (W₁, W₂) ∈ St(h, d) × St(h, 1) and
Riemannian GD in W-space (the only way to start on ‖q₀‖ = 1, which the q-ODE cannot hold numerically: the sphere is
unstable there). Binding instances: λ₂ − λ₁ = 0.1|λ₁| (λ₁ simple nearly fails; the slow rate is 0.2) and
‖q₀‖ = 0.99.
Claims. Printed: ``limit`` (bound; distance of q(T) from the set the printed statement predicts: 0, or the unit
vectors of the λ₁-eigenspace), ``e1_component_nondecreasing`` (proof_step; the printed proof's step).
Corrected: ``limit`` (bound; distance from sign(e₁ᵀq₀)e₁ or 0), ``asymptotic_rate`` (bound; the fitted exponential
rate of ‖q(t) − q∞‖ is at least the predicted one, 2% slack: a start whose slow-mode amplitude is tiny can reach
the float64 floor before that mode dominates, so the rate may exceed the prediction; two-sided agreement on
generic starts is in details), ``abs_e1_component_nondecreasing`` (proof_step; the corrected step).
"""

from __future__ import annotations

import math
import random

import numpy as np

from ..core.evidence import Claim
from ..core.registry import register
from ..core.params import sample_params
from ..core.result import (AS_PRINTED, CORRECTED, Binding, Cost, Logic, Outcome, Param, ProofErratum, Result, Status,
                           Violation, seed_param)
from ..core.result import Pin
from ..optim.threads import one_thread
from ..optim.ode import integrate_batched, rhs_theorem3
from ..optim.stiefel import haar_stiefel, mT, step
from .instances import gapped_spectrum_values, is_simple
from .paper import PAPER

ID = "ssl_dynamics.theorem_3"
STARTS = ("ode", "network")
# After T = RATE_HORIZON / rate time units the distance to the limit is ~e^{−RATE_HORIZON}: far below LIMIT_TOL.
RATE_HORIZON = 30.0
# The horizon is capped at RATE_HORIZON / MIN_RATE (spectra whose slow rate is below it get a longer explicit T).
MIN_RATE = 0.05
LIMIT_TOL = 1e-6
# |e₁ᵀq| may only decrease by accumulated integration error: at rtol 1e-12 over T ≤ 200 with |λ| ≤ 3 the observed
# decreases reach 2e-7 (nearly degenerate spectra, long escapes); the ‖q₀‖ > 1 control decreases by 0.14.
MONOTONE_TOL = 1e-6
RATE_RTOL = 0.02
# The rate is fitted where the distance is asymptotic but above the integrator's error floor.
RATE_WINDOW = (1e-9, 1e-5)
# Step of the network start's Riemannian GD: the discrete rate differs from the flow's by O(η·rate) ≈ 0.6%.
NETWORK_ETA = 4e-3
# Eigenvalues this close to λ₁ belong to its eigenspace (the parameters are typed decimals).
SIMPLE_ATOL = 1e-12
# The q-ODE (10): tight enough that the integration error stays far below the rate window's lower edge.
ODE_RTOL, ODE_ATOL = 1e-11, 1e-14
# Recorded times of the network start's GD (the ODE start records every accepted step).
SAMPLES = 4001
# Converged: the integration succeeded, the horizon is at least the suite's own RATE_HORIZON / max(rate, MIN_RATE) (a
# shorter explicit T is a budget too short to decide, reported as ``converged=False``, never as a failed claim), and
# q(T) is settled: ‖q̇(T)‖ ≤ SETTLED_TOL·8·max|λ| (a loose guard against a run stuck far from any stationary point:
# near a limit ‖q̇‖ ≈ rate·distance with rate ≤ 8 max|λ|).
SETTLED_TOL = LIMIT_TOL


def _ode_starts(ctx, p, d):
    """``starts`` random directions of norm ``q0_norm`` whose e₁ component has the sign ``e1_sign`` (0: zero)."""
    v = ctx.randn(p["starts"], d).cpu().numpy()
    v = v / np.linalg.norm(v, axis=1, keepdims=True)
    v[:, 0] = np.abs(v[:, 0]) * p["e1_sign"]
    return p["q0_norm"] * v / np.linalg.norm(v, axis=1, keepdims=True)


def _network_run(W1, W2, lam, T, eta, samples):
    """Riemannian GD (tangent step + QR retraction) on a batch of networks with C = diag(λ), in numpy; returns
    q = W₁ᵀW₂ (…, d) on a grid of about ``samples`` times."""
    C = np.diag(lam)
    steps = int(round(T / eta))
    every = max(1, steps // (samples - 1))
    qs, ts = [], []
    for k in range(steps + 1):
        if k % every == 0 or k == steps:
            qs.append((mT(W1) @ W2)[..., 0])
            ts.append(k * eta)
        W1, W2 = step(W1, W2, C, eta, "grassmann")
    return np.array(qs), np.array(ts)


def predicted(lam: np.ndarray, q0: np.ndarray) -> tuple[np.ndarray, float]:
    """The limits of the corrected form, one per start q0 (…, d), and the asymptotic rate of the linearisation of
    (10) at them."""
    d = len(lam)
    if lam[0] > 0:
        return np.zeros_like(q0), 4 * lam[0]
    sign = np.where(q0[..., 0] < 0, -1.0, 1.0)
    limit = np.zeros_like(q0)
    limit[..., 0] = sign
    return limit, min(8 * abs(lam[0]), 2 * (lam[1] - lam[0])) if d > 1 else 8 * abs(lam[0])


def printed_distance(lam: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Distance of each q (…, d) from what the printed statement predicts: 0 (Λ ≻ 0), else the set of unit vectors
    of the λ₁-eigenspace (an eigenvector is defined up to sign and, for a repeated λ₁, up to a rotation)."""
    if lam[0] > 0:
        return np.linalg.norm(q, axis=-1)
    m = int(np.sum(lam - lam[0] <= SIMPLE_ATOL * max(1.0, abs(lam[0]))))
    head = np.linalg.norm(q[..., :m], axis=-1)
    tail = np.linalg.norm(q[..., m:], axis=-1)
    return np.sqrt((head - 1.0) ** 2 + tail**2)


def _trajectories(p, lam, ctx):
    """(t, q (T, R, d), q0 (R, d), integrator solution or None): R = ``starts`` runs at once."""
    d = len(lam)
    if p["start"] == "network":
        W1 = haar_stiefel(ctx, p["starts"], h=p["h"], k=d).cpu().numpy()
        W2 = haar_stiefel(ctx, p["starts"], h=p["h"], k=1).cpu().numpy()
        q0 = (mT(W1) @ W2)[..., 0]
    else:
        q0 = _ode_starts(ctx, p, d)
    _, rate = predicted(lam, q0)
    T = p["T"] if p["T"] > 0 else RATE_HORIZON / max(rate, MIN_RATE)
    if p["start"] == "network":
        # Riemannian GD stays on St(h, d) × St(h, 1) exactly; the ambient W-ODE would drift off it, since
        # ‖q‖ = 1 is unstable when Λ ≻ 0.
        q, t = _network_run(W1, W2, lam, T, NETWORK_ETA, SAMPLES)
        return t, q, q0, None
    sol = integrate_batched(lambda v: rhs_theorem3(lam, v), q0, T, rtol=ODE_RTOL, atol=ODE_ATOL)
    return sol.t, sol.y, q0, sol


def _fitted_rates(t, dist):
    """The exponential decay rate of each start's distance (T, R), fitted where it lies in RATE_WINDOW."""
    out = []
    for r in range(dist.shape[1]):
        win = (dist[:, r] > RATE_WINDOW[0]) & (dist[:, r] < RATE_WINDOW[1])
        out.append(-float(np.polyfit(t[win], np.log(dist[win, r]), 1)[0]) if win.sum() >= 5 else math.nan)
    return np.array(out)


def _drops(q):
    """Largest decrease of e₁ᵀq and of |e₁ᵀq| between consecutive recorded times, over all starts."""
    e1 = q[..., 0]
    if len(e1) < 2:
        return 0.0, 0.0
    return (float(np.maximum(e1[:-1] - e1[1:], 0.0).max()),
            float(np.maximum(np.abs(e1[:-1]) - np.abs(e1[1:]), 0.0).max()))


def _claims(form, lam, dist, pdist, drops, worst_fit, rate, T, starts, rate_scale=1.0):
    """The printed form: the limit is 0 or a unit λ₁-eigenvector, e₁ᵀq never decreases (the proof's step); the
    corrected: the limit is sign(e₁ᵀq₀)e₁ or 0, |e₁ᵀq| never decreases, and the asymptotic rate."""
    signed_drop, drop = drops
    if form == AS_PRINTED:
        claims = [Claim.at_most("limit", float(pdist[-1].max()), 0.0,
                                "largest distance of q(T) from " + ("0" if lam[0] > 0 else "the unit λ₁-eigenvectors")
                                + f" over {starts} starts, T = {T:.4g}", atol=LIMIT_TOL)]
        if lam[0] < 0:
            claims.append(Claim.at_most("e1_component_nondecreasing", signed_drop, 0.0,
                                        "largest decrease of e₁ᵀq(t) (the proof: 'always positive')",
                                        kind="proof_step", atol=MONOTONE_TOL))
        return claims + [Claim.measurement("asymptotic_rate", worst_fit, rate,
                                           "smallest fitted decay rate of ‖q(t) − q∞‖")]
    claims = [Claim.at_most("limit", float(dist[-1].max()), 0.0,
                            f"largest ‖q(T) − q∞‖ over {starts} starts, q∞ = sign(e₁ᵀq₀)e₁ or 0, T = {T:.4g}",
                            atol=LIMIT_TOL)]
    if lam[0] < 0:
        claims.append(Claim.at_most("abs_e1_component_nondecreasing", drop, 0.0,
                                    "largest decrease of |e₁ᵀq(t)| between recorded times", kind="proof_step",
                                    atol=MONOTONE_TOL))
    # rate_scale ≠ 1: a deliberately wrong constant in the predicted rate (a control)
    return claims + [Claim.at_least("asymptotic_rate", worst_fit, rate_scale * rate,
                                    "smallest fitted decay rate of ‖q(t) − q∞‖ over the starts vs the predicted",
                                    rtol=RATE_RTOL)]


@one_thread
def evaluate(p: dict, form: str, ctx) -> Outcome:
    lam = np.sort(np.array(p["lams"]), kind="stable")
    t, q, q0, sol = _trajectories(p, lam, ctx)
    limit, rate = predicted(lam, q0)
    dist = np.linalg.norm(q - limit[None], axis=-1)  # (T, R)
    pdist = printed_distance(lam, q)
    drop = _drops(q)[1]
    fitted = _fitted_rates(t, dist)
    worst_fit = float(np.min(np.where(np.isnan(fitted), -np.inf, fitted)))
    T = float(t[-1])
    claims = _claims(form, lam, dist, pdist, _drops(q), worst_fit, rate, T, p["starts"], p["rate_scale"])
    rel = np.abs(fitted - rate) / rate
    details = {"q0": q0[0].tolist(), "q0_norm": float(np.linalg.norm(q0[0])), "q_T": q[-1, 0].tolist(),
               "q_T_all": q[-1].tolist(), "predicted_limit": limit[0].tolist(), "distance_T": float(dist[-1].max()),
               "printed_distance_T": float(pdist[-1].max()), "fitted_rates": fitted.tolist(), "predicted_rate": rate,
               "rate_rel_err": float(np.max(np.where(np.isnan(rel), np.inf, rel))), "T": T, "e1_drop": drop,
               "norm_T": float(np.linalg.norm(q[-1], axis=-1).max()),
               **(sol.certificate() if sol is not None else {"network_eta": NETWORK_ETA})}
    speed = float(np.linalg.norm(rhs_theorem3(lam, q[-1]), axis=-1).max())
    settled = speed <= SETTLED_TOL * 8 * float(np.abs(lam).max())
    horizon = RATE_HORIZON / max(rate, MIN_RATE)
    long_enough = p["T"] == 0 or p["T"] >= horizon
    details.update(final_speed=speed, settled=settled, convergence_horizon=horizon, horizon_long_enough=long_enough,
                   form=form)  # 'limit' names another quantity in each form (theorems.rigorous replays the printed)
    integrated = sol.success if sol is not None else True
    return Outcome(claims=claims, details=details, converged=bool(integrated and settled and long_enough),
                   headline="limit")


def hypotheses(p: dict, form: str) -> list[Violation]:
    lam = np.sort(np.array(p["lams"]))
    d = len(lam)
    out = []
    if p["start"] == "network" and p["h"] < d:
        out.append(Violation("h ≥ d (W₁ ∈ St(h, d))", f"width h = {p['h']} < d = {d}", ("h",), bypassable=False))
    if p["start"] == "ode" and p["q0_norm"] > 1:
        out.append(Violation("‖q₀‖ ≤ 1 (q₀ = (W₂ᵀW₁V)ᵀ of orthonormal factors)",
                             f"q0_norm = {p['q0_norm']} is not realisable by Stiefel factors; outside the unit ball "
                             "|e₁ᵀq| need not grow (negative control)", ("q0_norm",)))
    if np.any(lam == 0):
        out.append(Violation("no zero eigenvalue", "neither case of the theorem covers λ = 0", ("lams",)))
    if form == CORRECTED and lam[0] < 0:
        if p["start"] == "ode" and p["e1_sign"] == 0:
            out.append(Violation("e₁ᵀq₀ ≠ 0", "{e₁ᵀq = 0} is invariant: q cannot reach ±e₁ from it", ("e1_sign",)))
        if not is_simple(lam):
            out.append(Violation("λ₁ simple", f"λ₁ = λ₂ = {lam[0]:.6g}: the limit is a unit vector of the eigenspace",
                                 ("lams",)))
    if form == CORRECTED and lam[0] > 0:
        if (p["start"] == "ode" and p["q0_norm"] >= 1) or (p["start"] == "network" and p["h"] == d):
            out.append(Violation("‖q₀‖ < 1 (h > d for a network start)", "the unit sphere ‖q‖ = 1 is invariant: on it "
                                 "(10) is Oja's flow to ±e₁, not to 0", ("q0_norm", "h")))
    return out


def cost(p: dict) -> Cost:
    """starts × d states over ~T·(8|λ|_max + 10) DOP853 steps, or the network start's T/η steps on h × d."""
    d, lam_max = len(p["lams"]), max(abs(v) for v in p["lams"])
    T = p["T"] if p["T"] > 0 else RATE_HORIZON / MIN_RATE
    if p["start"] == "network":
        size = p["starts"] * p["h"] * (d + 1)
        return Cost(elements=4 * size + SAMPLES * p["starts"] * d, work=T / NETWORK_ETA * size * (d + 1) * 6)
    steps = T * (8 * lam_max + 10)
    return Cost(elements=steps * p["starts"] * d + 14 * p["starts"] * d, work=13 * steps * p["starts"] * d * 20)


CX_ORTHOGONAL = dict(e1_sign=0)  # e₁ᵀq₀ = 0: q → ±e₂ (λ₂ = −0.3 < 0)
CX_SQUARE = dict(lams="0.5,1,2,3", start="network", h=4)  # h = d, Λ ≻ 0: ‖q‖ ≡ 1, q → ±e₁
ERRATUM_SIGN = dict(e1_sign=-1)  # e₁ᵀq₀ < 0: e₁ᵀq decreases (to −1)
# λ₁ nearly repeated: the corrected hypothesis 'λ₁ simple' nearly binds (λ₂ − λ₁ = 0.1|λ₁|); the slow rate is
# 2(λ₂ − λ₁) = 0.2.
BINDING_SIMPLE = dict(lams="-1,-0.9,0.5,2")
# ‖q₀‖ close to 1: the corrected hypothesis ‖q₀‖ < 1 of case (i) nearly binds.
BINDING_NORM = dict(lams="0.5,1,2,3", q0_norm=0.99)


def report_instances(suite):
    yield CORRECTED, dict(), False
    yield CORRECTED, dict(e1_sign=-1), False
    yield CORRECTED, dict(lams="0.5,1,2,3"), False
    yield CORRECTED, dict(start="network", h=10), False
    yield CORRECTED, BINDING_SIMPLE, False
    yield CORRECTED, BINDING_NORM, False
    yield AS_PRINTED, CX_ORTHOGONAL, False
    yield AS_PRINTED, CX_SQUARE, False
    yield AS_PRINTED, ERRATUM_SIGN, False
    yield AS_PRINTED, dict(lams="-1,-1,0.5,2"), False  # holds: the limit is a unit λ₁-eigenvector
    rng = random.Random(5)
    for _ in range(suite.report_examples):
        lams = gapped_spectrum_values(rng, rng.randint(2, 5), gap=0.15)
        yield CORRECTED, sample_params(RESULT, CORRECTED, rng, fixed=dict(lams=lams)), False
    yield CORRECTED, dict(e1_sign=0), True
    yield CORRECTED, dict(lams="0.5,1,2,3", start="network", h=4), True


def _strategy():
    from ..strategies.ssl_dynamics import ssl_theorem3_params

    return ssl_theorem3_params()


RESULT = register(Result(
    id=ID, paper=PAPER, section="Section 'Theoretical Analysis', Theorem 3, eq. (10) (proof: Appendix)",
    title="Theorem 3: for z = 1 the dynamics converge to 0 or to the smallest eigenvector",
    statement="For z = 1, ½q̇ = −(1 − qᵀq)Λq − (I − qqᵀ)Λq; (i) if Λ ≻ 0 then q → 0; (ii) if some eigenvalue is "
              "negative then q → e₁, the smallest eigenvector.",
    correction="(ii) q → sign(e₁ᵀq₀)·e₁, for e₁ᵀq₀ ≠ 0 and λ₁ simple; (i) needs ‖q₀‖ < 1 (fails for h = d). "
               "Asymptotic rate min(8|λ₁|, 2(λ₂ − λ₁)) near ±e₁ and 4λ_min near 0.",
    correction_reason="d(e₁ᵀq)/dt has the sign of e₁ᵀq; {e₁ᵀq = 0} and {‖q‖ = 1} are invariant sets of (10) "
                      "(proof of Theorem 3, Appendix).",
    status=Status.VERIFIED_CORRECTED,
    logic=Logic(for_all="every Λ with non-zero eigenvalues and every start q₀ = (W₂ᵀW₁V)ᵀ of orthonormal factors "
                        "(‖q₀‖ ≤ 1, any width h ≥ d)"),
    counterexamples=(CX_ORTHOGONAL, CX_SQUARE),
    proof_errata=(ProofErratum(
        step="Appendix, proof of Theorem 3, case (ii)",
        printed="the derivative of e₁ᵀq is always positive unless … q = e₁",
        why="d(e₁ᵀq)/dt = 2e₁ᵀq[(1 − ‖q‖²)(−λ₁) + (qᵀΛq − λ₁)] has the sign of e₁ᵀq: from e₁ᵀq₀ < 0 (Λ = "
            "diag(−1, −0.3, 0.5, 2), ‖q₀‖ = 0.5) e₁ᵀq decreases monotonically to −1",
        params=ERRATUM_SIGN, claim="e1_component_nondecreasing"),),
    binding=(Binding("λ₁ simple", BINDING_SIMPLE, "λ₂ − λ₁ = 0.1 (|λ₁| = 1)"),
             Binding("‖q₀‖ < 1 (case i)", BINDING_NORM, "‖q₀‖ = 0.99")),
    controls=(dict(e1_sign=0, allow_violation=True),
              dict(lams="0.5,1,2,3", start="network", h=4, allow_violation=True),
              dict(CX_ORTHOGONAL, form="as_printed"),
              # Pin of LIMIT_TOL: the default spectrum stopped at T = 9.7 (predicted rate 1.4: the automatic horizon
              # is 21.4) is 3.1e-6 from its limit, 3.1 allowances out and not converged (test_theorem_3.py)
              dict(T=9.7)),
    # Pin of RATE_RTOL: the default spectrum's predicted rate ×1.06 lies 2.8 allowances above the fitted rate (which
    # matches the unscaled prediction to 1e-8): a literal, so RATE_RTOL loosened ×10 lets it pass
    # (its Pin below).
    pins=(
        Pin("asymptotic_rate", "rate_scale", fails=1.06, within=10, params=dict(allow_violation=True)),
    ),
    # A test of the corrected proof step, not of the statement: outside the unit ball (‖q₀‖ = 1.5) |e₁ᵀq| drops
    # (abs_e1_component_nondecreasing fails) while the limit claim still holds there.
    identity_controls=(dict(lams="-0.5,-0.4", q0_norm=1.5, allow_violation=True),),
    strategy=_strategy,
    params=(
        Param("lams", list[float], (-1.0, -0.3, 0.5, 2.0), "eigenvalues of C (C = diag(lams))", "non-zero; λ₁ simple",
              low=-1e3, high=1e3, length=(1, 64)),
        Param("start", str, "ode", "q-ODE from a chosen q₀, or the W-space flow from a Haar network", choices=STARTS),
        Param("q0_norm", float, 0.5, "‖q₀‖ (start='ode'; > 1 only as a negative control)", "(0, 1)", low=1e-6,
              high=2.0, sample=(0.05, 0.95)),
        Param("e1_sign", int, 1, "sign of e₁ᵀq₀ (start='ode'; 0 puts q₀ ⊥ e₁)", "±1", choices=(-1, 0, 1)),
        Param("h", int, 8, "width of the network start", "h > d", low=1, high=100_000),
        Param("T", float, 0.0, f"horizon (0: {RATE_HORIZON:g} / predicted rate)", low=0.0, high=1e4),
        Param("starts", int, 8, "starting points q₀ (or Haar networks) run at once", low=1, high=4096),
        Param("rate_scale", float, 1.0,
              "multiplies the predicted asymptotic rate of the corrected claim (≠ 1: a wrong constant, a control)",
              "= 1", low=0.5, high=2.0, breaks="the predicted rate min(8|λ₁|, 2(λ₂ − λ₁)) (4λ_min near 0)"),
        seed_param("seed of q₀ / the network"),
    ),
    cost=cost, evaluate=evaluate, hypotheses=hypotheses, forms=(AS_PRINTED, CORRECTED), report_instances=report_instances,
    module=__name__,
))
