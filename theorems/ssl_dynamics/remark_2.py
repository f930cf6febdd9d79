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
Proposition 1); "collapse" as Proposition 1's, in direction: σ₂/σ₁ of Θ → 0 along training. InfoNCE is taken with
the structure of (1), one negative per anchor, L = E softplus(u(x)ᵀu(x⁻) − u(x)ᵀu(x⁺)) (``negatives='batch'``: the
other anchors' positives as negatives, temperature 1). The bounded losses are trained to a certified stationary
point (batched L-BFGS from ``restarts`` small random starts, gradient norm ≤ GTOL).

Status ``verified-corrected``. (b) is exact (loss (2) is the trace form −Tr(ΘC̃Θᵀ): its Hessian is block-diagonal,
and its collapse is Proposition 1's) and (c) holds (coupling 0.47 of the Hessian's norm at the trained Θ, which does not
collapse: σ₂/σ₁ = 0.80, σ₃/σ₁ = 0.60). (a) fails: the default instance (Gaussian data, d = 5, z = 3) is a counterexample: InfoNCE's
Hessian at its trained Θ has coupling 0.51, and Θ keeps rank 3 (σ₂/σ₁ = 0.69, σ₃/σ₁ = 0.48, certified stationary).
Liu et al.'s simplification is a second-order expansion: s = u(x)ᵀ(u(x⁻) − u(x⁺)) is quadratic in Θ, and
softplus(s) = log 2 + s/2 + s²/8 + O(s⁴), so InfoNCE(εΘ) = log 2 + (ε²/2)·L₍₁₎(Θ) + O(ε⁴): the decoupled loss (1) is
InfoNCE's leading term near Θ = 0 only, and training leaves that regime (the O(ε⁴) term couples the rows).
Correction (checked): InfoNCE = log 2 + ½L₍₁₎ + O(‖Θ‖⁴) (``infonce_second_order``: the remainder shrinks 16× when ε
halves; with the batch as negatives the leading term is another trace form, mean_i[mean_j u(xᵢ)ᵀu(x_j⁺) −
u(xᵢ)ᵀu(xᵢ⁺)], around log n), its output dimensions are coupled at finite Θ, and trained to stationarity a linear
InfoNCE model does not collapse to one dimension (σ₂/σ₁ ≥ 0.1; it need not keep every dimension: the worst-case
search found σ₆/σ₁ = 0.001 for z = d = 6 without augmentation noise, so the rank kept is a measurement).

Negative controls: ``coupling_at`` = 1e-3 (the coupling measured at 10⁻³Θ, where the quadratic term dominates and
the coupling falls as ε²); ``expansion_scale`` ≠ 1 (a wrong constant in the expansion: the remainder is then O(ε²));
z = 1 (one output: σ₂ = 0, nothing to collapse from).
"""

from __future__ import annotations

import math

import torch

from ..core.evidence import Claim
from ..core.registry import register
from ..core.result import (AS_PRINTED, CORRECTED, Binding, Cost, Logic, Outcome, Param, Result, Status, Violation,
                           seed_param)
from ..data.ssl_pairs import dataset
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
# Collapse as in Proposition 1 (σ₂/σ₁ → 0); no collapse: σ₂/σ₁ ≥ NO_COLLAPSE_MIN at a stationary point.
COLLAPSE_TOL = 1e-3
NO_COLLAPSE_MIN = 0.1
# Second order: InfoNCE(εΘ) − log 2 − (ε²/2)L₍₁₎(Θ) = O(ε⁴); the remainder ratio at ε and ε/2 is 16 up to O(ε⁴s²).
EXPANSION_EPS = 0.1
EXPANSION_RTOL = 0.05


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


def coupling(fn, v, z, d) -> float:
    """‖cross-row blocks of the Hessian‖_F / ‖Hessian‖_F at one flattened Θ (rows = output dimensions)."""
    H = torch.autograd.functional.hessian(lambda w: fn(w[None])[0], v).reshape(z, d, z, d)
    cross = ~torch.eye(z, dtype=torch.bool, device=v.device)[:, None, :, None].expand(z, d, z, d)
    return float(H[cross].norm() / H.norm())


def _train(fn, x0):
    """Batched L-BFGS from every start; the best certified one (or the best, uncertified)."""
    res = batched_lbfgs(autograd_objective(fn), x0, gtol=GTOL, max_iter=2000)
    ok = res.converged
    i = int(torch.argmin(torch.where(ok, res.f, torch.full_like(res.f, math.inf)))) if bool(ok.any()) else 0
    return res.x[i], bool(ok.any()), res


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
    x0 = 0.01 * ctx.randn(p["restarts"], z * d)
    trained, certified = {}, True
    for name in ("infonce", "spectral"):
        trained[name], ok, _ = _train(fns[name], x0)
        certified &= ok
    # σ₁ ≥ … of Θ (z × d), padded with zeros to two values (a single output has σ₂ = 0).
    sv = {k: torch.cat([torch.linalg.svdvals(v.reshape(z, d)), v.new_zeros(max(2 - min(z, d), 0))])
          for k, v in trained.items()}
    coup = {k: coupling(fns[k], p["coupling_at"] * v, z, d) for k, v in trained.items()}
    coup2 = coupling(fns["loss2"], x0[0] * 100, z, d)
    ratio = _expansion_ratio(fns, x0[0] / x0[0].norm(), p["expansion_scale"])
    claims = [Claim.at_most("loss2_decoupled", coup2, 0.0,
                            "cross-row share of loss (2)'s Hessian (the trace form −Tr(ΘC̃Θᵀ))", kind="identity",
                            atol=DECOUPLED_TOL)]
    if form == AS_PRINTED:
        claims += [Claim.at_most("infonce_decoupled", coup["infonce"], 0.0,
                                 "cross-row share of InfoNCE's Hessian at its trained Θ", atol=DECOUPLED_TOL),
                   Claim.at_most("infonce_collapses", float(sv["infonce"][1] / sv["infonce"][0]), 0.0,
                                 "σ₂/σ₁ of InfoNCE's trained Θ (certified stationary)", atol=COLLAPSE_TOL)]
    else:
        claims += [Claim.close("infonce_second_order", ratio, 16.0,
                                 "R(ε)/R(ε/2), R(ε) = InfoNCE(εΘ) − InfoNCE(0) − ε²·(its quadratic term): 16 at fourth "
                                 "order", rtol=EXPANSION_RTOL),
                   Claim.at_least("infonce_coupled", coup["infonce"], COUPLED_MIN,
                                  "cross-row share of InfoNCE's Hessian at its trained Θ"),
                   Claim.at_least("infonce_no_collapse", float(sv["infonce"][1] / sv["infonce"][0]), NO_COLLAPSE_MIN,
                                  "σ₂/σ₁ of InfoNCE's trained Θ (certified stationary)")]
    claims += [Claim.at_least("spectral_coupled", coup["spectral"], COUPLED_MIN,
                              "cross-row share of the spectral loss's Hessian at its trained Θ"),
               Claim.at_least("spectral_no_collapse", float(sv["spectral"][1] / sv["spectral"][0]), NO_COLLAPSE_MIN,
                              "σ₂/σ₁ of the spectral loss's trained Θ"),
               Claim.measurement("infonce_rank_kept", float(sv["infonce"][-1] / sv["infonce"][0]), math.nan,
                                 "σ_z/σ₁ of InfoNCE's trained Θ"),
               Claim.measurement("spectral_rank_kept", float(sv["spectral"][-1] / sv["spectral"][0]), math.nan,
                                 "σ_z/σ₁ of the spectral loss's trained Θ")]
    details = {"singular_values_infonce": (sv["infonce"] / sv["infonce"][0]).tolist(),
               "singular_values_spectral": (sv["spectral"] / sv["spectral"][0]).tolist(),
               "coupling_infonce": coup["infonce"], "coupling_spectral": coup["spectral"], "coupling_loss2": coup2,
               "expansion_ratio": ratio}
    return Outcome(claims=claims, details=details, converged=certified)


def hypotheses(p: dict, form: str) -> list[Violation]:
    spec = list(p["spectrum"])
    out = []
    if p["z"] > len(spec):
        out.append(Violation("z ≤ d", f"z = {p['z']} > d = {len(spec)}", ("z", "spectrum"), bypassable=False))
    if p["z"] < 2:
        out.append(Violation("z ≥ 2 outputs (collapse is of several outputs to one)", f"z = {p['z']}", ("z",)))
    if form == CORRECTED and sum(v > 0 for v in spec) < 2:
        out.append(Violation("anchors spanning at least two directions", f"spectrum = {spec} has rank "
                             f"{sum(v > 0 for v in spec)}", ("spectrum",)))
    if p["coupling_at"] != 1.0:
        out.append(Violation("coupling measured at the trained weights", f"coupling_at = {p['coupling_at']} scales "
                             "them towards 0, where every loss is (1)'s quadratic form", ("coupling_at",)))
    if p["expansion_scale"] != 1.0:
        out.append(Violation("the expansion InfoNCE(0) + ε²·(quadratic term)", "expansion_scale ≠ 1 is a wrong "
                             "constant", ("expansion_scale",)))
    return out


def cost(p: dict) -> Cost:
    """L-BFGS (≤ 2000 iterations) on restarts × z·d over the n anchors (n² similarities for the batch form), and
    Hessians of z·d parameters."""
    z, d, n = p["z"], len(p["spectrum"]), p["n"]
    per_eval = p["restarts"] * n * (z * d + (n * z if p["negatives"] == "batch" else z)) * 6
    return Cost(elements=p["restarts"] * n * (n if p["negatives"] == "batch" else 3) * z,
                work=2 * 2000 * per_eval + 3 * (z * d) * per_eval)


BINDING_SQUARE = dict(z=5)  # z = d = 5: the most outputs the data allow
CONTROLS = (dict(coupling_at=1e-3, allow_violation=True), dict(expansion_scale=1.2, allow_violation=True),
            dict(z=1, allow_violation=True), dict(form="as_printed"))


def report_instances(suite):
    yield CORRECTED, dict(), False
    yield CORRECTED, BINDING_SQUARE, False
    yield CORRECTED, dict(negatives="batch"), False
    yield AS_PRINTED, dict(), False
    yield AS_PRINTED, dict(negatives="batch"), False
    for c in CONTROLS[:3]:
        yield CORRECTED, {k: v for k, v in c.items() if k != "allow_violation"}, True


def _strategy():
    from ..strategies.ssl_dynamics import ssl_remark2_params

    return ssl_remark2_params()


RESULT = register(Result(
    id=ID, paper=PAPER, section="Section 'Dynamics of Naïve SSL has Trivial Solution', Remark 2",
    title="Remark 2: InfoNCE does not decouple the outputs (only its second-order term does); the spectral loss couples them",
    statement="For a linear model, InfoNCE (whose simplification by Liu et al. resembles (1)) and the non-contrastive "
              "SimCLR-type loss (2) decouple the output dimensions and hence collapse; the spectral contrastive loss "
              "keeps them coupled through u(xᵢ)ᵀu(xᵢ⁻).",
    correction="Loss (2) decouples exactly and the spectral loss couples, as printed; InfoNCE = log 2 + ½L₍₁₎ + O(‖Θ‖⁴) "
               "decouples only to second order near Θ = 0: at finite Θ its output dimensions are coupled, and a linear "
               "InfoNCE model trained to stationarity does not collapse to one dimension.",
    correction_reason="s = u(x)ᵀ(u(x⁻) − u(x⁺)) is quadratic in Θ and softplus(s) = log 2 + s/2 + s²/8 + O(s⁴): the "
                      "s² term couples the rows; InfoNCE is bounded below and its minimiser has full rank.",
    status=Status.VERIFIED_CORRECTED,
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
        Param("restarts", int, 4, "L-BFGS starts, batched", low=1, high=256),
        Param("coupling_at", float, 1.0, "scale of Θ where the coupling is measured (≠ 1: control)", "= 1",
              low=1e-6, high=1e3),
        Param("expansion_scale", float, 1.0, "multiplies the expansion's quadratic term (≠ 1: control)", "= 1",
              low=-1e3, high=1e3),
        seed_param(),
    ),
    cost=cost, evaluate=evaluate, hypotheses=hypotheses, forms=(AS_PRINTED, CORRECTED), report_instances=report_instances,
    module=__name__,
))
