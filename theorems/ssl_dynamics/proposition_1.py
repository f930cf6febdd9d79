"""Proposition 1 of paper 002: dimension collapse of unconstrained SSL dynamics.

Statement as printed (Proposition 1)
------------------------------------
"Under the conditions of Lemma 1, every component of the network output u: R^d → R^z has identical dynamics, and
hence, identical fixed points. As a consequence, the output collapses to one dimension at convergence." (Linear
model u = Θx: u̇_l(x) = −2θ_lᵀCx; extended to wide networks via the NTK.)

Quantifiers and reading
-----------------------
∀ SSL data (hence ∀ symmetric C: with xᵢ = eᵢ, xᵢ⁻ a data point and xᵢ⁺ = xᵢ + εᵢ, C̃ = Σᵢ eᵢ(xᵢ⁻ − xᵢ⁺)ᵀ is any
matrix, since the εᵢ are free), ∀ initialisation Θ₀: the output becomes one-dimensional. Nothing existential.
"At convergence" is read as "in the long-time limit, up to scale": the paper's own Example 1 says that "the
dynamics for unconstrained loss L diverge", and Θ(t) = Θ₀e^{−2Ct} does diverge when λ₁(C) < 0. (The old check read
"at convergence" literally, asserted that GD reaches a fixed point, and refuted that; the paper does not claim it.
The step size of the last GD step relative to Θ₀ is kept as a measurement, ``last_step_over_theta0``.)

Old status → new status: ``verified-corrected`` → ``verified-corrected``, on a new counterexample. With a repeated
smallest eigenvalue the components still have identical dynamics, but the output does not collapse to one
dimension: C = diag(−1, −1, 0.5), z = 3, Θ(t)/‖Θ(t)‖ → Θ₀P/‖Θ₀P‖ with P the projector on the λ₁-eigenspace, of rank
2; the check finds σ₂/σ₁ of Θ at 0.69 after 5000 steps (predicted per-step factor exactly 1). The instance
is non-generic (a measure-zero set of C), but the proposition quantifies over every data set, and its argument
("identical dynamics, hence … one dimension") is exactly what fails there.
Correction: if λ₁(C) < 0 is simple, σ₂(Θ)/σ₁(Θ) decays like e^{−2(λ₂−λ₁)t} (per GD step: (1−2ηλ₂)/(1−2ηλ₁)) and
every row of Θ aligns with v₁; the unconstrained 2-layer linear model P = W₂ᵀW₁ blows up in finite time at rank
≈ 1 along v₁. The hypothesis that nearly binds: λ₂ − λ₁ = 0.1|λ₁| (C = diag(−1, −0.9, 0.5)).

What one check does
-------------------
Data: SSL triplets (Gaussian with a chosen covariance and a non-zero mean, or half moons), mean contrastive or
non-contrastive loss. Or an explicit symmetric ``C`` (then the loss is Tr(ΘCΘᵀ)).
1. GD on Θ for the loss evaluated on the triplets (not on C): its gradient is linear in Θ, Θ ↦ ΘM, with M from
   one autograd call at Θ = I; one batched backward pass over every iterate certifies Θ_{k+1} = Θ_k − η∇L(Θ_k)
   (``gd_is_gradient_descent``, identity); against the closed form Θ₀(I − 2ηC)^k (``gd_matches_closed_form``,
   identity: the trace form (7)); the exact gradient flow Θ₀e^{−MT} against Θ₀e^{−2CT} (``flow_matches_exponential``,
   identity). They test the implementation.
2. The fitted per-step slope of log(σ₂/σ₁) against log((1−2ηλ₂)/(1−2ηλ₁)) (``collapse_rate``, a
   measurement: the rate is asymptotic and the statement does not assert it); at the end
   σ₂/σ₁ (``collapsed_to_rank_one``) and the alignment of every row with v₁ (``rows_align_with_v1``).
3. 2-layer linear, W ~ N(0, 1/h), GD batched over seeds: σ₁(P) exceeds 10⁶ within ``max_steps`` steps
   (``two_layer_blows_up``) and at that moment σ₂/σ₁ (``two_layer_rank_one``); |⟨v_top(P), v₁⟩| is reported
   in details, not asserted (the blow-up time, hence the alignment reached, depends on the spectral gap).
Convergence (of the run, not of Θ, which diverges): the run stopped at σ₂/σ₁ < STOP_RATIO, or its horizon resolves
the limit direction, i.e. every component off the λ₁-eigenspace has decayed relative to it by the predicted
q^K ≤ STOP_RATIO, q = (1 − 2ηλ′)/(1 − 2ηλ₁), λ′ the next distinct eigenvalue. A shorter horizon (η = 1e-9: 5000
steps move Θ by 1e-5) is reported not converged, never as a failed collapse.
The 2-layer part is converged once every seed has blown up (or when λ₁ ≥ 0: nothing to wait for), and it takes
the linear model's step condition at its start as a hypothesis, 2η₂ max|λ(C)| < 1 (W ~ N(0, 1/h): ‖Wᵢ‖₂ ≈ 1);
past it GD diverges by oscillation (η₂ = 10). On the default C the rank claim first fails between η₂ = 0.2 and
0.4, so the condition is sufficient with a margin of ~2-3.
The other claims are ``bound`` claims (the collapse the statement asserts). ``λ₁ simple`` is a hypothesis of
the corrected form only.
Negative controls: a C with a repeated λ₁ (no rank-1 collapse), the printed non-contrastive sign (C ≻ 0: Θ → 0,
no blow-up). Identity control (a test of the code, not of the statement): ``closed_form_factor`` = 2.2 (a wrong
constant in e^{−2Ct}: only the identities gd_matches_closed_form and flow_matches_exponential fail).
"""

from __future__ import annotations

import math
import random

import numpy as np
import torch

from ..core.evidence import Claim
from ..core.registry import register
from ..core.params import sample_params
from ..core.result import (AS_PRINTED, CORRECTED, Binding, Cost, Logic, Outcome, Param, Result, Status, Violation,
                           seed_param)
from ..core.result import Pin
from ..optim.threads import one_thread
from .instances import (SIMPLE_GAP_RTOL, build_C, common_C_violations, d_param, data_param, explicit_C_param, is_simple, loss_param,
                        n_param, nc_sign_param, spectrum_of)
from .paper import PAPER
from .trace_form import ssl_loss

ID = "ssl_dynamics.proposition_1"

# GD vs its closed form: both are k products of d×d matrices, rounding grows ~ k·eps·cond.
CLOSED_FORM_RTOL = 1e-9
# The exact flow e^{−MT} of the autograd operator M (Padé) vs e^{−2CT} from C's eigendecomposition: rounding only.
FLOW_RTOL = 1e-8
RANK_ONE_TOL = 1e-6
ALIGN_TOL = 1e-6
BLOWUP = 1e6
TWO_LAYER_RANK_TOL = 1e-4
# Run the linear model until σ₂/σ₁ is this far below the claim's tolerance (or out of steps), checking every
# CHECK_EVERY steps.
STOP_RATIO = 1e-8
CHECK_EVERY = 50
# The linear run stops once ‖Θ_k‖ exceeds this multiple of ‖Θ₀‖: float64 keeps ~1e308, and the norms and SVDs of
# the iterates square them.
LINEAR_CAP = 1e100


def _loss_of(theta, t, C, explicit, loss):
    """The loss at a batch of Θ's (…, z, d): the SSL loss itself on the triplets, or Tr(ΘCΘᵀ) for an explicit C."""
    if explicit:
        return (theta @ C * theta).sum(dim=(-1, -2))
    return ssl_loss(lambda X: X @ theta.transpose(-1, -2), t, loss)


def _autograd(theta, t, C, explicit, loss):
    """∇L at every Θ of a batch, in one backward pass (the losses of the batch members are independent)."""
    th = theta.detach().clone().requires_grad_(True)
    (g,) = torch.autograd.grad(_loss_of(th, t, C, explicit, loss).sum(), th)
    return g


def _gd_linear(Theta0, t, C, eta, steps, explicit, loss):
    """GD on Θ until σ₂/σ₁ < STOP_RATIO or ``steps`` steps; returns the iterates (k+1, z, d) and the largest
    relative residual of Θ_{k+1} = Θ_k − η∇L(Θ_k) with ∇L by autograd of the loss itself.

    The loss is a quadratic form in Θ, so its gradient is Θ ↦ ΘM with M = ∇L(I_d) (one autograd call); the
    iterates are then products with I − ηM, and a single batched backward pass over all of them certifies that
    they are gradient descent on the loss (not on C): one autograd call per iterate costs 20× more."""
    d = C.shape[0]
    M = _autograd(torch.eye(d, dtype=C.dtype, device=C.device), t, C, explicit, loss)
    step = torch.eye(d, dtype=C.dtype, device=C.device) - eta * M
    out = [Theta0]
    for k in range(steps):
        if k % CHECK_EVERY == 0 and k >= 2 * CHECK_EVERY:
            sv = torch.linalg.svdvals(out[-1])
            if float(sv[1] / sv[0]) < STOP_RATIO:
                break
        out.append(out[-1] @ step)
        if float(out[-1].norm()) > LINEAR_CAP * float(Theta0.norm()):
            break  # past this the next products overflow (η = 10: ×81 a step reached inf, then NaN identities)
    traj = torch.stack(out)
    g = _autograd(traj[:-1], t, C, explicit, loss)
    res = ((traj[1:] - (traj[:-1] - eta * g)).flatten(1).norm(dim=1) / traj[1:].flatten(1).norm(dim=1)).max()
    return traj, M, float(res)


def _closed_forms(traj, M, Theta0, lam, V, eta, f, T):
    """Relative errors of GD against Θ₀(I − fηC)^k and of the flow e^{−MT} against Θ₀e^{−fCT}."""
    ks = torch.arange(traj.shape[0], dtype=lam.dtype, device=lam.device)
    factors = (1 - f * eta * lam)[None, :] ** ks[:, None]  # (k, d)
    closed = Theta0 @ V @ (factors[:, :, None] * V.T)  # (k, z, d)
    cf_err = float(((traj - closed).flatten(1).norm(dim=1) / traj.flatten(1).norm(dim=1)).max())
    # Both sides carry the common factor e^{−sT}, s the smallest exponent rate of either: e^{−2λ₁T} alone
    # overflows float64 once 2|λ₁|T > 709 (T = 1000 gave inf − inf = NaN), and the relative error is
    # invariant under a common scalar, so each side is computed with its exponents shifted to ≤ 0.
    s = min(float((f * lam).min()), float(torch.linalg.eigvalsh((M + M.T) / 2).min()))
    eye = torch.eye(M.shape[0], dtype=M.dtype, device=M.device)
    flow = Theta0 @ torch.linalg.matrix_exp(-(M - s * eye) * T)
    expo = Theta0 @ V @ (torch.exp(-(f * lam - s) * T)[:, None] * V.T)
    return cf_err, float((flow - expo).norm() / expo.norm())


def _collapse(traj, lam, V, eta, f):
    """σ₂/σ₁ along the run, its fitted per-step slope over the second half against log((1−fηλ₂)/(1−fηλ₁)),
    and 1 − min_l |cos(θ_l, v₁)| at the end."""
    steps = traj.shape[0] - 1
    sv = torch.linalg.svdvals(traj)  # (k, min(z, d))
    ratio = (sv[:, 1] / sv[:, 0]).cpu().numpy() if sv.shape[1] > 1 else np.zeros(steps + 1)
    kk, rr = np.arange(steps // 2, steps + 1), ratio[steps // 2:]
    ok = rr > 1e-300
    slope = float(np.polyfit(kk[ok], np.log(rr[ok]), 1)[0]) if ok.sum() >= 2 else -math.inf
    lam_np = lam.cpu().numpy()
    pred = -math.inf
    if len(lam_np) > 1:
        # |per-step factor ratio|: past the step condition (a control) a factor is 0 (η = 1/(2λ₂): the log is −inf,
        # not a math domain error) or negative (an oscillating component decays by its absolute value)
        num, den = 1 - f * eta * float(lam_np[1]), 1 - f * eta * float(lam_np[0])
        pred = -math.inf if num == 0 else math.inf if den == 0 else math.log(abs(num / den))
    cos = (traj[-1] @ V[:, 0]).abs() / traj[-1].norm(dim=1)
    return ratio, slope, pred, float(1 - cos.min())


def _horizon_resolves(lam, eta, steps):
    """Whether ``steps`` GD steps are long enough to see the limit direction: every component off the
    λ₁-eigenspace decays relative to it by the per-step factor q = (1 − 2ηλ′)/(1 − 2ηλ₁), λ′ the next distinct
    eigenvalue (is_simple's gap), and q^steps must be below STOP_RATIO. Independent of the claims: with λ₁
    repeated (the counterexample) the horizon is resolved and σ₂/σ₁ stays O(1); at η = 1e-9 (5000 steps move
    Θ by 1e-5) it is not, and the run is reported not converged instead of failing."""
    lam_np = lam.cpu().numpy()
    scale = max(float(np.abs(lam_np).max()), 1e-300)
    distinct = lam_np[lam_np - lam_np[0] > SIMPLE_GAP_RTOL * scale]
    if len(distinct) == 0:
        return True  # C ∝ I: the direction of Θ never changes, nothing to resolve
    q = (1 - 2 * eta * float(distinct[0])) / (1 - 2 * eta * float(lam_np[0]))
    return steps * math.log(abs(q)) <= math.log(STOP_RATIO) if q != 0 else True


def _two_layer(ctx, C, z, h, seeds, eta, max_steps):
    """Unconstrained GD on the 2-layer linear model, W ~ N(0, 1/h), all seeds at once; a seed stops (and is
    frozen) at the first step where σ₁(P) > BLOWUP. σ₁ ≤ ‖P‖_F, so σ₁ is computed only once ‖P‖_F exceeds it."""
    d = C.shape[0]
    W1 = ctx.randn(seeds, h, d) / math.sqrt(h)
    W2 = ctx.randn(seeds, h, z) / math.sqrt(h)
    stop = torch.full((seeds,), -1, dtype=torch.long, device="cpu")  # bookkeeping on the host on purpose
    P_stop = torch.zeros(seeds, z, d, dtype=C.dtype, device=C.device)
    for k in range(max_steps):
        P = W2.transpose(-1, -2) @ W1
        if float(P.flatten(1).norm(dim=1).max()) > BLOWUP:
            newly = (torch.linalg.matrix_norm(P, ord=2) > BLOWUP).cpu() & (stop < 0)
            if bool(newly.any()):
                stop[newly] = k
                P_stop[newly.to(C.device)] = P[newly.to(C.device)]
            if bool((stop >= 0).all()):
                break
        live = (stop < 0).to(C.device)[:, None, None]
        g1, g2 = 2 * W2 @ P @ C, 2 * W1 @ C @ P.transpose(-1, -2)
        W1 = torch.where(live, W1 - eta * g1, W1)
        W2 = torch.where(live, W2 - eta * g2, W2)
    blown = bool((stop >= 0).all())
    if not blown:
        return stop, False, math.inf, 0.0
    _, S, Vh = torch.linalg.svd(P_stop)
    ratio = float((S[:, 1] / S[:, 0]).max()) if S.shape[1] > 1 else 0.0
    return stop, True, ratio, float((Vh[:, 0, :] @ torch.linalg.eigh(C)[1][:, 0]).abs().min())


@one_thread
def evaluate(p: dict, form: str, ctx) -> Outcome:
    explicit = bool(p["C"])
    C, t = build_C(p, ctx)
    d, z, eta, f, T = C.shape[0], p["z"], p["eta"], p["closed_form_factor"], p["flow_time"]
    lam, V = torch.linalg.eigh(C)
    Theta0 = ctx.randn(z, d)
    traj, M, gd_res = _gd_linear(Theta0, t, C, eta, p["steps"], explicit, p["loss"])
    steps = traj.shape[0] - 1
    cf_err, flow_err = _closed_forms(traj, M, Theta0, lam, V, eta, f, T)
    ratio, slope, pred, align_dev = _collapse(traj, lam, V, eta, f)
    rate_err = abs(slope - pred) / abs(pred) if pred != 0 and math.isfinite(pred) else math.inf
    stop, blown, tl_ratio, tl_align = _two_layer(ctx, C, z, p["h"], p["seeds"], p["eta_two_layer"], p["max_steps"])
    last_step = float((traj[-1] - traj[-2]).norm() / traj[0].norm())
    resolved = _horizon_resolves(lam, eta, steps)
    # The finite-time blow-up of the 2-layer model (λ₁ < 0) cannot be refuted by a finite budget: a run that has
    # not blown up within ``max_steps`` (max_steps = 1, eta_two_layer = 1e-12) is not converged. With λ₁ ≥ 0
    # (the printed non-contrastive sign, a control) P decays and there is nothing to wait for.
    converged = (bool(ratio[-1] < STOP_RATIO) or resolved) and (blown or float(lam[0]) >= 0)
    claims = [
        Claim.at_most("gd_is_gradient_descent", gd_res, 0.0,
                      "max_k ‖Θ_{k+1} − (Θ_k − η∇L(Θ_k))‖/‖Θ_{k+1}‖, ∇L by autograd of the loss", kind="identity",
                      atol=CLOSED_FORM_RTOL),
        Claim.at_most("gd_matches_closed_form", cf_err, 0.0, f"max_k ‖Θ_k − Θ₀(I − {f:g}ηC)^k‖/‖Θ_k‖",
                      kind="identity", atol=CLOSED_FORM_RTOL),
        Claim.at_most("flow_matches_exponential", flow_err, 0.0,
                      f"‖Θ₀e^(−MT) − Θ₀e^(−{f:g}CT)‖/‖Θ(T)‖, M the autograd gradient operator, T = {T:g}",
                      kind="identity", atol=FLOW_RTOL),
        # A measurement, not a bound: the proposition asserts the collapse, not its rate, and the rate is only
        # asymptotic. Over the fitted window it is pre-asymptotic when λ₂ ≈ λ₃ (the worst-case search found
        # d = 3, z = 2, seed = 2: fitted −0.0614 vs −0.0455), so asserting it would judge our fit, not the paper.
        Claim.measurement("collapse_rate", rate_err, 0.0,
                          f"relative error of the fitted d log(σ₂/σ₁)/dk = {slope:.6g} against the asymptotic "
                          f"log((1−{f:g}ηλ₂)/(1−{f:g}ηλ₁)) = {pred:.6g}"),
        Claim.at_most("collapsed_to_rank_one", float(ratio[-1]), 0.0, f"σ₂/σ₁ of Θ after {steps} steps",
                      atol=RANK_ONE_TOL),
        Claim.at_most("rows_align_with_v1", align_dev, 0.0, "1 − min_l |cos(θ_l, v₁)|", atol=ALIGN_TOL),
        Claim.at_most("two_layer_blows_up", (int(stop.max()) + 1) / p["max_steps"] if blown else math.inf, 1.0,
                      f"steps until every seed has σ₁(P) > {BLOWUP:g}, over the budget of {p['max_steps']}"),
        Claim.at_most("two_layer_rank_one", tl_ratio, 0.0, "max over seeds of σ₂/σ₁(P) at blow-up",
                      atol=TWO_LAYER_RANK_TOL),
        Claim.measurement("last_step_over_theta0", last_step, math.nan,
                          "‖Θ_K − Θ_{K−1}‖/‖Θ₀‖: no fixed point is reached (Θ diverges)"),
    ]
    details = {
        "eigenvalues": lam.tolist(), "fitted_log_ratio_slope": slope, "predicted_log_ratio_slope": pred,
        "ratio_start": float(ratio[0]), "ratio_end": float(ratio[-1]), "steps_run": steps,
        "norm_growth": float(traj[-1].norm() / traj[0].norm()), "last_step_rel": last_step,
        "two_layer_blowup_steps": stop.tolist(), "two_layer_ratio_at_blowup": tl_ratio,
        "two_layer_alignment": tl_align, "closed_form_rel_err": cf_err, "flow_rel_err": flow_err,
        "gd_residual": gd_res, "horizon_resolves_collapse": resolved,
        "theta0": Theta0.tolist(),  # the start, for theorems.rigorous.ssl_dynamics's replay of Θ₀(I − 2ηC)^K
    }
    return Outcome(claims=claims, details=details, converged=converged, headline="collapsed_to_rank_one")


def hypotheses(p: dict, form: str) -> list[Violation]:
    out = common_C_violations(p)
    if p["h"] < p["z"]:
        out.append(Violation("h ≥ z", f"width h = {p['h']} is smaller than the output dimension z = {p['z']}",
                             ("h", "z"), bypassable=False))
    if any(not v.bypassable for v in out):
        return out
    lam = spectrum_of(p)
    if lam[0] >= 0:
        out.append(Violation("λ_min(C) < 0", f"C has λ_min = {lam[0]:.4g} ≥ 0: Θ → 0, nothing diverges", ("C",)))
    if form == CORRECTED and not is_simple(lam):
        out.append(Violation("λ₁(C) simple", f"λ₁ = {lam[0]:.6g}, λ₂ = {lam[1]:.6g}: no unique collapse direction",
                             ("C",)))
    if 2 * p["eta_two_layer"] * float(np.abs(lam).max()) >= 1:
        # the linear model's step condition at the 2-layer start (W ~ N(0, 1/h): ‖W₁‖₂, ‖W₂‖₂ ≈ 1): past it GD
        # overshoots and diverges by oscillation (eta_two_layer = 10: σ₂/σ₁ = O(1) at blow-up), not by the flow
        out.append(Violation("η₂ < 1/(2 max|λ(C)|)", f"eta_two_layer = {p['eta_two_layer']} overshoots: the 2-layer "
                             "GD diverges by oscillation, not along the gradient flow", ("eta_two_layer",)))
    if 1 - 2 * p["eta"] * lam[-1] <= 0:
        out.append(Violation("η < 1/(2λ_max)", f"η = {p['eta']} makes I − 2ηC singular or sign-flipping", ("eta",)))
    return out


def cost(p: dict) -> Cost:
    """The triplets (3n·d), the linear run (steps·z·d iterates), the batched 2-layer run (seeds·h·(d + z))."""
    d, z = p["d"], p["z"]
    two_layer = p["seeds"] * p["h"] * (d + z)
    return Cost(elements=3 * p["n"] * d + (p["steps"] + 1) * z * d + 4 * two_layer,
                work=p["steps"] * (z * d * d + p["n"] * d * z) + p["max_steps"] * two_layer * max(d, z) * 4)


COUNTEREXAMPLE = dict(C="-1,0,0;0,-1,0;0,0,0.5", d=3)  # repeated λ₁: the output stays two-dimensional
BINDING_GAP = dict(C="-1,0,0;0,-0.9,0;0,0,0.5", d=3, eta=0.05)  # λ₂ − λ₁ = 0.1


def report_instances(suite):
    yield CORRECTED, dict(), False
    yield CORRECTED, dict(data="moons", d=2, z=2, n=200), False
    yield CORRECTED, BINDING_GAP, False
    yield AS_PRINTED, COUNTEREXAMPLE, False
    rng = random.Random(2)
    for _ in range(suite.report_examples):
        yield CORRECTED, sample_params(RESULT, CORRECTED, rng, fixed=dict(data="gaussian")), False
    yield CORRECTED, dict(closed_form_factor=2.2), True
    yield CORRECTED, dict(COUNTEREXAMPLE), True
    yield CORRECTED, dict(loss="noncontrastive", nc_sign=1.0, max_steps=1000), True


def _strategy():
    from ..strategies import declared_params

    return declared_params(ID, CORRECTED, data="gaussian")  # moons need d = 2: the Gaussian data take any d


RESULT = register(Result(
    id=ID, paper=PAPER, section="Section 'Dynamics of Naïve SSL has Trivial Solution', Proposition 1",
    title="Proposition 1: unconstrained SSL dynamics collapse to one dimension",
    statement="Under Lemma 1's conditions every output component has identical dynamics and identical fixed points; "
              "the output collapses to one dimension at convergence (linear: u̇_l(x) = −2θ_lᵀCx).",
    correction="Θ(t) = Θ(0)e^{−2Ct} diverges when λ₁(C) < 0, so there is no convergence; the collapse is in direction: "
               "σ₂/σ₁ ∝ e^{−2(λ₂−λ₁)t} and every row aligns with v₁ (λ₁ simple). The 2-layer linear model blows up in "
               "finite time at rank ≈ 1.",
    correction_reason="Identical dynamics u̇_l = −2θ_lᵀCx give Θ(t) = Θ₀e^{−2Ct}, whose dominant part has the rank of "
                      "the λ₁-eigenspace: one dimension only when λ₁ is simple (C = diag(−1, −1, 0.5) keeps two).",
    status=Status.VERIFIED_CORRECTED,
    logic=Logic(for_all="every SSL data set (hence every symmetric C) and every initialisation Θ₀ of the linear model"),
    counterexamples=(COUNTEREXAMPLE,),
    binding=(Binding("λ₁(C) simple", BINDING_GAP, "λ₂ − λ₁ = 0.1 = 0.1|λ₁|"),),
    controls=(dict(COUNTEREXAMPLE, allow_violation=True),
              dict(loss="noncontrastive", nc_sign=1.0, max_steps=1000, allow_violation=True),
              dict(COUNTEREXAMPLE, form="as_printed"),
              # Pins of RANK_ONE_TOL and ALIGN_TOL: the binding instance stopped while it still collapses (not
              # converged) ends 1–10 allowances outside each: σ₂/σ₁ = 2.65e-6 after 1380 steps, 1 − |cos| ≈ 3e-6
              # after 740 (their Pins below); the other controls miss these claims by ≥ 5 orders
              dict(BINDING_GAP, steps=1380), dict(BINDING_GAP, steps=740)),
    # Pin of TWO_LAYER_RANK_TOL: η₂ = 0.5 (past the step condition 2η₂ max|λ(C)| < 1 on the default C, λ = −4.07)
    # blows up in 3 steps, before the rank has collapsed: σ₂/σ₁ = 4.3e-4 at blow-up, 4.3 allowances out (a literal;
    # loosened ×10 the control passes; its Pin below).
    # Pins of CLOSED_FORM_RTOL and FLOW_RTOL: the closed forms' 2 off by 1e-10 and 3e-9 relative (literals) miss
    # gd_matches_closed_form by 3.8 allowances (500 steps) and flow_matches_exponential by 2.4 (T = 1).
    identity_controls=(dict(closed_form_factor=2.2, allow_violation=True),),
    pins=(
        Pin("two_layer_rank_one", "eta_two_layer", fails=0.5, within=10, params=dict(allow_violation=True)),
        Pin("gd_matches_closed_form", "closed_form_factor", fails=2.0000000002, within=10,
            params=dict(allow_violation=True)),
        Pin("flow_matches_exponential", "closed_form_factor", fails=2.000000006, within=10,
            params=dict(allow_violation=True)),
        Pin("collapsed_to_rank_one", "steps", fails=1380, within=10,
            params=dict(C="-1,0,0;0,-0.9,0;0,0,0.5", d=3, eta=0.05), converged=False, reported=True),
        Pin("rows_align_with_v1", "steps", fails=740, within=10,
            params=dict(C="-1,0,0;0,-0.9,0;0,0,0.5", d=3, eta=0.05), converged=False, reported=True),
    ),
    strategy=_strategy,
    params=(
        data_param(), loss_param(), nc_sign_param(), explicit_C_param("symmetric, λ_min < 0 simple"),
        d_param(5, low=2, sample=(2, 5)),
        Param("z", int, 3, "output dimension", "≥ 2", low=2, high=64, sample=(2, 4)),
        n_param(400, sample=None),
        Param("eta", float, 0.01, "GD step size of the linear model", "η < 1/(2λ_max)", low=1e-9, high=10.0),
        Param("steps", int, 5000, "GD step budget of the linear model (stops once σ₂/σ₁ < 1e-8)", low=4, high=1_000_000),
        Param("flow_time", float, 1.0, "horizon of the exact gradient flow", low=1e-9, high=1e3),
        Param("h", int, 100, "width of the 2-layer linear model", "≥ z", low=1, high=100_000),
        Param("seeds", int, 4, "2-layer initialisations run at once", low=1, high=256),
        Param("eta_two_layer", float, 1e-3, "GD step size of the 2-layer model", low=1e-12, high=10.0),
        Param("max_steps", int, 5000, "step budget for the 2-layer blow-up", low=1, high=1_000_000),
        Param("closed_form_factor", float, 2.0,
              "the 2 in Θ(t) = Θ(0)e^{−2Ct}; ≠ 2 deliberately falsifies the closed form (negative control)", "= 2",
              low=-10.0, high=10.0, breaks="exact closed form Θ(t) = Θ(0)e^{−2Ct}"),
        seed_param(),
    ),
    cost=cost, evaluate=evaluate, hypotheses=hypotheses, forms=(AS_PRINTED, CORRECTED), report_instances=report_instances,
    module=__name__,
))
