"""Remark 2 of paper 002: which SSL losses decouple the output dimensions (and hence collapse).

Statement as printed (Remark 2)
-------------------------------
"One may argue that the above dimension collapse is a consequence of loss definitions in (1)–(2), and may not exist
for other losses. We note that Liu et al. (2023) analyse contrastive learning with linear model under InfoNCE, and the
simplified loss closely resembles (1), which implies decoupling of output dimensions (and hence, dimension collapse)
would also happen for InfoNCE. The same argument also holds for non-constrastive loss in Chen et al. (2020). However,
for the spectral contrastive loss of HaoChen et al. (2021), the output dimensions remain coupled in the SSL dynamics
due to existing interactions u(xᵢ)ᵀu(xᵢ⁻) on the training data."

Quantifiers and reading
-----------------------
For the linear model u = Θx (Θ ∈ R^{z×d}, z ≥ 2) on any SSL data: (a) InfoNCE decouples the output dimensions and
collapses; (b) so does the non-contrastive loss of SimCLR in the paper's simplification, loss (2); (c) the spectral
contrastive loss −2E[u(x)ᵀu(x⁺)] + E[(u(x)ᵀu(x⁻))²] keeps them coupled. "Decoupled" is read as the Hessian of the
loss in Θ having no blocks between different output rows (then each row follows its own dynamics, Lemma 1 and
Proposition 1), measured in Θ's principal basis (UᵀΘ = ΣVᵀ: the losses see Θ only through inner products of outputs,
so a rotation of the rows is the same point, and the principal basis is the one no rotation can choose); "collapse"
as Proposition 1's, σ₂/σ₁ of Θ → 0 along training, decided at the end of training: the minimiser. InfoNCE is taken with
the structure of (1), one negative per anchor, L = E softplus(u(x)ᵀu(x⁻) − u(x)ᵀu(x⁺)) (``negatives='batch'``: the
other anchors' positives as negatives, temperature 1).

A minimiser is certified, not assumed: batched L-BFGS from ``restarts`` starts at scale 0.01 (the dynamics' regime)
and as many at scale 1 to gradient norm ≤ GTOL, then the second-order certificate of ``optim.curvature``: the smallest
eigenvalue of the Hessian off the rotation orbit Θ → QΘ (along which every loss here is flat) is ≥ −CURV_RTOL of its
scale, a saddle being escaped along its negative direction and re-solved; and the ray test f(2Θ) ≥ f(Θ), which a
point where softplus merely saturated fails (with few anchors the data can be separable, InfoNCE's infimum is then
at infinity and no minimiser exists: the run reports ``converged=False``). The best certified start is kept.

Status ``refuted``. (b) is exact (loss (2) is the trace form −Tr(ΘC̃Θᵀ), its Hessian block-diagonal: an identity) and
(c) holds on the default instance (coupling 0.46). (a) fails: on the default instance (Gaussian data, d = 5, z = 3)
InfoNCE's best certified minimiser keeps rank 3 (σ₂/σ₁ = 0.93, σ₃/σ₁ = 0.49, tangent curvature +0.033 of its scale,
all 8 starts certified; a second local minimum, 0.017 higher, has σ₂/σ₁ = 0.69: full rank too) and its Hessian there
couples the rows (0.37 of its norm in the principal basis). What survives of "resembles (1)" is Taylor
algebra: s = u(x)ᵀ(u(x⁻) − u(x⁺)) is quadratic in Θ and softplus(s) = log 2 + s/2 + s²/8 + O(s⁴), so InfoNCE(εΘ) =
log 2 + (ε²/2)·L₍₁₎(Θ) + O(ε⁴) (``infonce_second_order``, an identity: the remainder shrinks 16× when ε halves; with
the batch as negatives the leading term is another trace form, around log n).

No correction is established. The former one, "trained to stationarity InfoNCE does not collapse (σ₂/σ₁ ≥ 0.1)",
was checked on gradient norms only and fails at certified minimisers: ``COLLAPSING_MINIMISER`` (two-dimensional
data, σ² = 1) has a rank-one InfoNCE minimiser, σ₂/σ₁ = 1e-9, the same loss from every start, tangent curvature
positive. Whether InfoNCE's minimiser collapses depends on the data both ways, so σ₂/σ₁ is a measurement.

Negative controls: ``coupling_at`` = 1e-3 (the coupling measured at 10⁻³Θ, where the quadratic term dominates and the
coupling falls as ε²: ``spectral_coupled`` fails); z = 1 (one output: no cross blocks); ``PIN_EXPANSION`` (a wrong
constant in the expansion: the remainder is then O(ε²)).
"""

from __future__ import annotations

import math

import torch

from ..core.evidence import Claim
from ..core.registry import register
from ..core.result import (AS_PRINTED, Binding, Cost, Logic, Outcome, Param, Result, Status, Violation,
                           seed_param)
from ..data.ssl_pairs import dataset
from ..optim.curvature import rotation_orbit, second_order_solve
from ..optim.lbfgs import autograd_objective, batched_lbfgs
from ..optim.threads import one_thread
from .paper import PAPER

ID = "ssl_dynamics.remark_2"
NEGATIVES = ("one", "batch")
GTOL = 1e-9
# Decoupled: the cross-row Hessian blocks vanish up to rounding of O(n) sums.
DECOUPLED_TOL = 1e-10
# Coupled: the cross-row blocks carry a visible share of the Hessian's norm (0.4–0.6 on the default instances).
COUPLED_MIN = 1e-2
# Collapse as in Proposition 1 (σ₂/σ₁ → 0), at the certified minimiser.
COLLAPSE_TOL = 1e-3
# Second order: InfoNCE(εΘ) − log 2 − (ε²/2)L₍₁₎(Θ) = O(ε⁴); the remainder ratio at ε and ε/2 is 16 up to O(ε⁴s²).
EXPANSION_EPS = 0.1
EXPANSION_RTOL = 0.05
# Second-order certificate: the tangent Hessian (off the rotation orbit Θ → QΘ, along which every loss of inner
# products is flat) has no eigenvalue below −CURV_RTOL·(its largest |eigenvalue|). Full Lanczos on these z·d ≤ 36
# variables is exact to ~1e-12 relative; genuine minimisers found by the search sit at +1e-6 relative and above.
CURV_RTOL = 1e-8
# The ray test's step: at a minimiser f(2Θ) > f(Θ); where the infimum is at infinity, f keeps falling.
RAY_SCALE = 2.0


def _losses(t, z, d, negatives):
    """InfoNCE, the spectral contrastive loss, loss (1) and loss (2) (means over the anchors) of u = Θx, each a
    function of a batch of flattened Θ's (B, z·d) -> (B,)."""

    def outs(v):
        th = v.reshape(-1, z, d).transpose(-1, -2)
        return t.x @ th, t.pos @ th, t.neg @ th

    def infonce(v):
        u, up, un = outs(v)
        if negatives == "batch":
            S = u @ up.transpose(-1, -2)
            return (torch.logsumexp(S, -1) - S.diagonal(dim1=-2, dim2=-1)).mean(-1)
        return torch.nn.functional.softplus((u * (un - up)).sum(-1)).mean(-1)

    def spectral(v):
        u, up, un = outs(v)
        return -2 * (u * up).sum(-1).mean(-1) + ((u * un).sum(-1) ** 2).mean(-1)

    def loss1(v):
        u, up, un = outs(v)
        return (u * (un - up)).sum(-1).mean(-1)

    def leading(v):
        """InfoNCE(εΘ) = InfoNCE(0) + ε²·leading(Θ) + O(ε⁴): ½L₍₁₎ for one negative, and for the batch form
        mean_i[mean_j u(xᵢ)ᵀu(x_j⁺) − u(xᵢ)ᵀu(xᵢ⁺)] (both trace forms in Θ, hence decoupled)."""
        if negatives == "batch":
            u, up, _ = outs(v)
            S = u @ up.transpose(-1, -2)
            return (S.mean(-1) - S.diagonal(dim1=-2, dim2=-1)).mean(-1), math.log(t.n)
        return 0.5 * loss1(v), math.log(2)

    def loss2(v):
        u, up, _ = outs(v)
        return -(u * up).sum(-1).mean(-1)

    return {"infonce": infonce, "spectral": spectral, "loss1": loss1, "loss2": loss2, "leading": leading}


def canonical(v, z, d):
    """Θ rotated to UᵀΘ = ΣVᵀ (its rows the principal output directions): every loss here depends on Θ through the
    inner products of its outputs, so this is the same point of the loss, in the one basis a rotation cannot choose
    to hide coupling in (a rank-one Θ = a·wᵀ with a generic a shows cross blocks ∝ a_k a_l that e₁wᵀ does not)."""
    U, _, _ = torch.linalg.svd(v.reshape(z, d), full_matrices=False)
    return (U.transpose(-1, -2) @ v.reshape(z, d)).reshape(-1) if U.shape[-1] == z else v


def coupling(fn, v, z, d) -> float:
    """‖cross-row blocks of the Hessian‖_F / ‖Hessian‖_F at one flattened Θ (rows = output dimensions)."""
    H = torch.autograd.functional.hessian(lambda w: fn(w[None])[0], v).reshape(z, d, z, d)
    cross = ~torch.eye(z, dtype=torch.bool, device=v.device)[:, None, :, None].expand(z, d, z, d)
    return float(H[cross].norm() / H.norm())


def _train(fn, x0, z, d, ctx):
    """Batched L-BFGS from every start, then the second-order certificate (tangent Hessian off the rotation orbit;
    a saddle is escaped and re-solved) and the ray test; the best certified minimiser (or the best point, with
    ``minimiser`` False). Returns (Θ, minimiser, certificate details)."""
    solve = lambda x: batched_lbfgs(autograd_objective(fn), x, gtol=GTOL, max_iter=2000)  # noqa: E731
    so = second_order_solve(fn, x0, solve, directions=lambda x: rotation_orbit(x, z, d), rtol=CURV_RTOL,
                            generator=ctx.generator)
    # Infimum at infinity: where softplus saturates the gradient vanishes without a minimiser; the loss then still
    # falls along the ray Θ → 2Θ, or stays put once the saturated terms underflow to 0 (at a minimiser it rises by
    # more than rounding: the ray is a direction like any other).
    f1, f2 = fn(so.x), fn(RAY_SCALE * so.x)
    rising = f2 > f1 + 8 * torch.finfo(f1.dtype).eps * (f1.abs() + 1)
    ok = so.minimiser & rising
    f = torch.where(ok, so.solve_result.f, torch.full_like(so.solve_result.f, math.inf))
    i = int(torch.argmin(f)) if bool(ok.any()) else int(torch.argmin(so.solve_result.f))
    cert = {"gradient_norm": float(so.solve_result.stationarity[i]), "first_order": bool(so.first_order[i]),
            "tangent_min_eig": float(so.curvature.lam_min[i]), "tangent_max_eig": float(so.curvature.lam_max[i]),
            "relative_min_eig": float(so.curvature.relative_min()[i]), "escapes": int(so.escapes.sum()),
            "ray_rises": bool(rising[i]), "minimiser": bool(ok[i]), "loss": float(so.solve_result.f[i]),
            "certified_starts": int(ok.sum()),
            "loss_spread": float(so.solve_result.f[ok].max() - so.solve_result.f[ok].min()) if bool(ok.any()) else math.nan}
    return so.x[i], bool(ok[i]), cert


def _expansion_ratio(fns, theta, scale):
    """R(ε)/R(ε/2) with R(ε) = InfoNCE(εΘ) − InfoNCE(0) − scale·ε²·leading(Θ), at ε = EXPANSION_EPS/√|leading(Θ)|."""
    v = theta[None]
    lead, at_zero = fns["leading"](v)
    eps = EXPANSION_EPS / math.sqrt(max(float(lead.abs()), 1e-300))
    rem = lambda e: float(fns["infonce"](e * v) - at_zero - scale * e**2 * lead)  # noqa: E731
    return rem(eps) / rem(eps / 2)


@one_thread
def evaluate(p: dict, form: str, ctx) -> Outcome:
    spec = list(p["spectrum"])
    d, z = len(spec), p["z"]
    t = dataset(ctx, "gaussian", p["n"], d=d, spectrum=spec, sigma2=p["sigma2"])
    fns = _losses(t, z, d, p["negatives"])
    # Small starts (the regime of the dynamics, Proposition 1) and as many unit-scale ones.
    x0 = torch.cat([0.01 * ctx.randn(p["restarts"], z * d), ctx.randn(p["restarts"], z * d)])
    trained, certified, cert = {}, True, {}
    for name in ("infonce", "spectral"):
        trained[name], ok, cert[name] = _train(fns[name], x0, z, d, ctx)
        certified &= ok
    # σ₁ ≥ … of Θ (z × d), padded with zeros to two values (a single output has σ₂ = 0).
    sv = {k: torch.cat([torch.linalg.svdvals(v.reshape(z, d)), v.new_zeros(max(2 - min(z, d), 0))])
          for k, v in trained.items()}
    coup = {k: coupling(fns[k], p["coupling_at"] * canonical(v, z, d), z, d) for k, v in trained.items()}
    coup2 = coupling(fns["loss2"], x0[0] * 100, z, d)
    ratio = _expansion_ratio(fns, x0[0] / x0[0].norm(), p["expansion_scale"])
    s21 = {k: float(v[1] / v[0]) for k, v in sv.items()}
    claims = [Claim.at_most("loss2_decoupled", coup2, 0.0,
                            "cross-row share of loss (2)'s Hessian (the trace form −Tr(ΘC̃Θᵀ))", kind="identity",
                            atol=DECOUPLED_TOL),
              # What 'resembles (1)' is: the second-order term of InfoNCE is loss (1)'s trace form (Taylor algebra).
              Claim.close("infonce_second_order", ratio, 16.0,
                          "R(ε)/R(ε/2), R(ε) = InfoNCE(εΘ) − InfoNCE(0) − ε²·(its quadratic term): 16 at fourth order",
                          kind="identity", rtol=EXPANSION_RTOL),
              Claim.at_most("infonce_decoupled", coup["infonce"], 0.0,
                            "cross-row share of InfoNCE's Hessian at its trained Θ (certified minimiser, principal "
                            "basis)", atol=DECOUPLED_TOL, certificate="second-order"),
              Claim.at_most("infonce_collapses", s21["infonce"], 0.0,
                            "σ₂/σ₁ of InfoNCE's trained Θ (certified minimiser: gradient, tangent curvature, ray)",
                            atol=COLLAPSE_TOL, certificate="second-order"),
              Claim.at_least("spectral_coupled", coup["spectral"], COUPLED_MIN,
                             "cross-row share of the spectral loss's Hessian at its trained Θ (principal basis)",
                             certificate="second-order"),
              Claim.measurement("spectral_sigma2_ratio", s21["spectral"], math.nan,
                                "σ₂/σ₁ of the spectral loss's trained Θ"),
              Claim.measurement("infonce_rank_kept", float(sv["infonce"][-1] / sv["infonce"][0]), math.nan,
                                "σ_z/σ₁ of InfoNCE's trained Θ"),
              Claim.measurement("spectral_rank_kept", float(sv["spectral"][-1] / sv["spectral"][0]), math.nan,
                                "σ_z/σ₁ of the spectral loss's trained Θ"),
              Claim.measurement("infonce_curvature", cert["infonce"]["relative_min_eig"], -CURV_RTOL,
                                "λ_min/|λ|_max of InfoNCE's Hessian off the rotation orbit at the trained Θ (a "
                                "minimiser needs ≥ −CURV_RTOL; converged is False otherwise)")]
    details = {"singular_values_infonce": (sv["infonce"] / sv["infonce"][0]).tolist(),
               "singular_values_spectral": (sv["spectral"] / sv["spectral"][0]).tolist(),
               "coupling_infonce": coup["infonce"], "coupling_spectral": coup["spectral"], "coupling_loss2": coup2,
               "expansion_ratio": ratio,
               **{f"{k}_{name}": v for name, c in cert.items() for k, v in c.items()}}
    if p["negatives"] == "one":
        # the point the InfoNCE coupling is measured at and the data: theorems.rigorous.ssl_dynamics recomputes the
        # Hessian there in Arb (by rotation invariance a cross block at any point refutes decoupling in every basis)
        details.update(form=form, infonce_coupling_point=(p["coupling_at"] * canonical(trained["infonce"], z, d)).tolist(),
                       anchors=t.x.tolist(), positives=t.pos.tolist(), negatives=t.neg.tolist())
    return Outcome(claims=claims, details=details, converged=certified)


def hypotheses(p: dict, form: str) -> list[Violation]:
    spec = list(p["spectrum"])
    out = []
    if p["z"] > len(spec):
        out.append(Violation("z ≤ d", f"z = {p['z']} > d = {len(spec)}", ("z", "spectrum"), bypassable=False))
    if p["z"] < 2:
        out.append(Violation("z ≥ 2 outputs (collapse is of several outputs to one)", f"z = {p['z']}", ("z",)))
    if sum(v > 0 for v in spec) < 2:
        out.append(Violation("anchors spanning at least two directions", f"spectrum = {spec} has rank "
                             f"{sum(v > 0 for v in spec)}", ("spectrum",)))
    return out


def cost(p: dict) -> Cost:
    """L-BFGS (≤ 2000 iterations) on restarts × z·d over the n anchors (n² similarities for the batch form), and
    Hessians of z·d parameters."""
    z, d, n = p["z"], len(p["spectrum"]), p["n"]
    per_eval = 2 * p["restarts"] * n * (z * d + (n * z if p["negatives"] == "batch" else z)) * 6
    return Cost(elements=p["restarts"] * n * (n if p["negatives"] == "batch" else 3) * z,
                work=2 * 2000 * per_eval + 3 * (z * d) * per_eval * 4)  # ≤ 3 escapes, each a Lanczos run


BINDING_SQUARE = dict(z=5)  # z = d = 5: the most outputs the data allow
# The search's collapsing minimiser (what withdrew the former correction "InfoNCE does not collapse, σ₂/σ₁ ≥ 0.1"):
# anchors spanning two directions (data singular values 138 and 20), and InfoNCE's certified minimiser has rank one,
# σ₂/σ₁ = 1e-9, the same loss from 48 starts at scales 0.01, 1 and 10, tangent curvature +3e-4 of its scale.
COLLAPSING_MINIMISER = dict(spectrum=(43.886, 0.00057), z=2, n=400, sigma2=1.0, seed=75)
CONTROLS = (dict(coupling_at=1e-3, allow_violation=True), dict(z=1, allow_violation=True))
# The expansion's constant off by 3e-4: the ratio moves to 14.87, 1.4 allowances outside EXPANSION_RTOL (a literal,
# found by bisection; 1.0002 gives 15.22, inside).
PIN_EXPANSION = dict(expansion_scale=1.0003, allow_violation=True)


def report_instances(suite):
    yield AS_PRINTED, dict(), False
    yield AS_PRINTED, BINDING_SQUARE, False
    yield AS_PRINTED, dict(negatives="batch"), False
    yield AS_PRINTED, COLLAPSING_MINIMISER, False
    for c in (*CONTROLS, PIN_EXPANSION):
        yield AS_PRINTED, {k: v for k, v in c.items() if k != "allow_violation"}, True


def _strategy():
    from ..strategies.ssl_dynamics import ssl_remark2_params

    return ssl_remark2_params()


RESULT = register(Result(
    id=ID, paper=PAPER, section="Section 'Dynamics of Naïve SSL has Trivial Solution', Remark 2",
    title="Remark 2: InfoNCE neither decouples the outputs nor collapses in general (refuted); the spectral loss "
          "couples them",
    statement="For a linear model, InfoNCE (whose simplification by Liu et al. resembles (1)) and the non-contrastive "
              "SimCLR-type loss (2) decouple the output dimensions and hence collapse; the spectral contrastive loss "
              "keeps them coupled through u(xᵢ)ᵀu(xᵢ⁻).",
    status=Status.REFUTED,
    logic=Logic(for_all="every SSL data set and linear model u = Θx with z ≥ 2 outputs"),
    counterexamples=(dict(),),
    binding=(Binding("z ≤ d", BINDING_SQUARE, "z = d = 5"),),
    controls=CONTROLS,
    strategy=_strategy,
    params=(
        Param("spectrum", list[float], (4.0, 2.0, 1.0, 0.5, 0.25), "covariance eigenvalues of the Gaussian anchors "
              "(d = their number)", "rank ≥ 2", low=0.0, high=1e3, length=(1, 32)),
        Param("z", int, 3, "output dimension", "2 ≤ z ≤ d", low=1, high=32, sample=(2, 5)),
        Param("n", int, 400, "anchors", low=2, high=5_000, sample=(100, 400)),
        Param("sigma2", float, 0.1, "variance of the augmentation noise", low=0.0, high=1e3, sample=(0.0, 1.0)),
        Param("negatives", str, "one", "InfoNCE negatives: one per anchor (the structure of (1)) or the batch",
              choices=NEGATIVES),
        Param("restarts", int, 4, "L-BFGS starts at scale 0.01, and as many at scale 1, batched", low=1, high=128),
        Param("coupling_at", float, 1.0,
              "scale of Θ where the coupling is measured (≠ 1 scales the trained weights towards 0, where every loss "
              "is (1)'s quadratic form: a control)",
              "= 1", low=1e-6, high=1e3, breaks="coupling measured at the trained weights"),
        Param("expansion_scale", float, 1.0,
              "multiplies the expansion's quadratic term (≠ 1: a wrong constant, a control)", "= 1", low=-1e3, high=1e3,
              breaks="the expansion InfoNCE(0) + ε²·(quadratic term)"),
        seed_param(),
    ),
    cost=cost, evaluate=evaluate, hypotheses=hypotheses, forms=(AS_PRINTED,), report_instances=report_instances,
    module=__name__,
))
