"""Fig. 8 of paper 001 (Tian, App. E.1): many ReLU local maxima of ℰ vs two linear ones.

Statement as printed (App. E.1, text under Fig. 8)
--------------------------------------------------
d = 2, w = (cos θ, sin θ), 9 points on the unit circle at angles {−4/5, −1/2, −2/5, −1/6, 0, 1/5, 2/5, 3/5, 4/5}·π,
uniform α, no augmentation, ℰ(θ) = ½C_α[h(wᵀx)]. "From the figure, we can see many local maxima (≥ 8) caused by
nonlinearity (solid line), much more than 2 × 2 = 4 [...]. Moreover, unlike PCA directions, these local optima are not
orthogonal to each other. [...] in the linear case (dotted line) [...] there are only two local maxima corresponding to
±φ₁." The figure's caption calls them "local optima of ℰ_α(w)".

Quantifiers: a single fixed instance (the 9 points): the ReLU ℰ has ≥ 8 local maxima, the linear one exactly 2 at ±φ₁.

Reading chosen: the paper's sentences, nothing more. It does not say that these maxima are LMEs (Def. 3), so
that is not judged. The observation that every ReLU maximum sits at a kink (a data point on wᵀx = 0, where A(w)
jumps and ρ = ∞) and that no arc between kinks holds an LME is recorded as measurements: it says that Theorems 1
and 3 do not describe the optima of this figure, which is a remark about the theory's reach, not about Fig. 8.

How: ℰ on a fine θ grid, local maxima by neighbour comparison (circular), each snapped to the nearest kink angle
(x_i angle ± π/2) when within two grid steps and confirmed as a local maximum of the exact ℰ there. LMEs are enumerated
exactly: between consecutive kink angles A is constant, so an LME on an arc is ±φ₁ of that arc's A lying strictly inside
the arc with λ₁ > λ₂.

Claims: ``relu_at_least_8_maxima`` (bound). ``linear_two_maxima`` and ``linear_maxima_at_pm_phi1`` (identity: ½wᵀC w on
the circle has exactly two maxima ±φ₁ whenever C has a distinct top eigenvalue; a test of the grid search).
``relu_maxima_at_kinks``, ``interior_lmes`` (measurements). Negative controls: ``points='clusters'`` (three tight
clusters: 3 ReLU maxima) and ``leak=1`` (the 'ReLU' is linear: 2 maxima); ``points='uniform'`` (reported) breaks the
linear identities (C ∝ I, flat).
Hypothesis: the caption says the solid line "is using ReLU activation h(x) = max(x, 0)", so the count is a claim
about ReLU only and any leak ≠ 0 is outside it (a HypothesisViolation, never a silent 'fails' of a verified
statement). Recorded as controls: a leaky ReLU keeps ≥ 8 maxima at leak = 0.05 (8) but not at 0.2 (4) or 0.5 (2).

Status: verified-corrected → verified. The old printed form asserted "the maxima are LMEs", a sentence the paper does
not contain; what the paper says holds: 9 ReLU maxima (≥ 8), 2 linear maxima at ±φ₁. All 9 ReLU maxima are at kinks
and there is no interior LME (recorded).
"""

from __future__ import annotations

import math

import torch

from ..core.evidence import Claim
from ..core.registry import register
from ..core.result import AS_PRINTED, Binding, Cost, Logic, Outcome, Param, Result, Status, Violation
from .covariance import gate, h
from .paper import PAPER

ID = "nonlinear_cl.figure_8"
PAPER_ANGLES = (-0.8, -0.5, -0.4, -1 / 6, 0.0, 0.2, 0.4, 0.6, 0.8)
POINTS = ("paper", "uniform", "clusters")
N_GRID = 36000  # 0.01° steps: far finer than the smallest gap between kink angles (≈ 0.1π)
FLAT_RTOL = 1e-9  # relative variation of ℰ below which a curve is flat (no strict maxima)


def point_angles(which: str) -> list[float]:
    if which == "paper":
        return [a * math.pi for a in PAPER_ANGLES]
    if which == "uniform":
        return [2 * math.pi * i / 9 for i in range(9)]
    return [c + e for c in (0.3, 0.3 + 2 * math.pi / 3, 0.3 + 4 * math.pi / 3) for e in (-0.02, 0.0, 0.02)]


def energy(X: torch.Tensor, W: torch.Tensor, a: float) -> torch.Tensor:
    """½𝕍[h(wᵀx)] under the uniform distribution on the rows of X, for each row of W."""
    f = h(W @ X.T, a)
    return 0.5 * f.var(dim=1, unbiased=False)


def local_maxima(E: torch.Tensor) -> torch.Tensor:
    flat = float(E.max() - E.min()) <= FLAT_RTOL * float(E.abs().max())
    if flat:
        return torch.zeros(0, dtype=torch.long, device=E.device)
    return torch.nonzero((E > E.roll(1)) & (E >= E.roll(-1))).flatten()


def kink_is_local_max(X: torch.Tensor, tk: float, a: float) -> bool:
    """Whether ℰ at the kink angle ``tk`` is at least ℰ on both sides (at tk ± 1e-7): a grid maximum snapped to
    the kink is the kink's own maximum."""
    ws = torch.tensor([[math.cos(t), math.sin(t)] for t in (tk - 1e-7, tk, tk + 1e-7)], dtype=X.dtype,
                      device=X.device)
    e = energy(X, ws, a)
    return bool(e[1] >= e[0] and e[1] >= e[2])


def exact_lmes(X: torch.Tensor, kinks: torch.Tensor, a: float) -> list[float]:
    """LMEs by exact enumeration over the arcs between consecutive kink angles (A is constant on each)."""
    ks = torch.sort(torch.remainder(kinks, 2 * math.pi)).values
    out = []
    for i in range(len(ks)):
        lo, hi = float(ks[i]), float(ks[(i + 1) % len(ks)]) + (2 * math.pi if i == len(ks) - 1 else 0.0)
        mid = 0.5 * (lo + hi)
        w = torch.tensor([[math.cos(mid), math.sin(mid)]], dtype=X.dtype, device=X.device)
        g = gate(w @ X.T, a)[0]
        Xt = g[:, None] * X
        A = torch.cov(Xt.T, correction=0)
        ev, V = torch.linalg.eigh(A)
        if float(ev[1] - ev[0]) <= 1e-12 * float(ev[1].abs()):
            continue
        for sgn in (1.0, -1.0):
            phi = sgn * V[:, 1]
            th = math.atan2(float(phi[1]), float(phi[0]))
            th = lo + ((th - lo) % (2 * math.pi))
            if lo + 1e-9 < th < hi - 1e-9:
                out.append(th)
    return out


def hypotheses(p: dict, form: str) -> list[Violation]:
    out = []
    if p["points"] != "paper":
        out.append(Violation("the paper's 9 points", f"points='{p['points']}' is another data set (negative control)",
                             ("points",)))
    return out


def cost(p: dict) -> Cost:
    """ℰ on N_GRID angles for 9 points, twice."""
    return Cost(elements=4 * N_GRID * 9, work=40 * N_GRID * 9)


def evaluate(p: dict, form: str, ctx) -> Outcome:
    ang = torch.tensor(point_angles(p["points"]), dtype=ctx.dtype, device=ctx.device)
    X = torch.stack([torch.cos(ang), torch.sin(ang)], 1)
    th = torch.arange(N_GRID, dtype=ctx.dtype, device=ctx.device) * (2 * math.pi / N_GRID)
    W = torch.stack([torch.cos(th), torch.sin(th)], 1)
    Er, El = energy(X, W, p["leak"]), energy(X, W, 1.0)
    mr, ml = local_maxima(Er), local_maxima(El)
    kinks = torch.cat([ang + math.pi / 2, ang - math.pi / 2])
    step = 2 * math.pi / N_GRID
    at_kink = []
    for i in mr.tolist():
        dist = torch.remainder(th[i] - kinks + math.pi, 2 * math.pi) - math.pi
        j = int(dist.abs().argmin())
        if float(dist[j].abs()) > 2 * step:
            at_kink.append(False)
            continue
        at_kink.append(kink_is_local_max(X, float(kinks[j]), p["leak"]))
    lmes = exact_lmes(X, kinks, p["leak"])
    n_r, n_l, n_k = len(mr), len(ml), sum(at_kink)
    # ±φ₁ of the linear energy's matrix C[x] (uniform weights): its maxima on the circle
    C = torch.cov(X.T, correction=0)
    phi1 = torch.linalg.eigh(C)[1][:, -1]
    t1 = math.atan2(float(phi1[1]), float(phi1[0]))
    lin_dist = [min(abs(math.remainder(float(th[i]) - t1 - s_, 2 * math.pi)) for s_ in (0.0, math.pi))
                for i in ml.tolist()]
    claims = [
        Claim.at_least("relu_at_least_8_maxima", n_r, 8, "local maxima of the ReLU energy (App. E.1: '≥ 8')"),
        Claim.at_most("linear_two_maxima", abs(n_l - 2), 0, f"|#linear maxima − 2| ({n_l} found)", kind="identity"),
        Claim.at_most("linear_maxima_at_pm_phi1", max(lin_dist, default=math.pi) / step, 2.0,
                      "max angular distance of a linear maximum from ±φ₁ of C[x], in grid steps", kind="identity"),
        Claim.measurement("relu_maxima_at_kinks", n_k, reference=n_r,
                          message="ReLU maxima at a kink (a data point on wᵀx = 0: A jumps, ρ = ∞)"),
        Claim.measurement("interior_lmes", len(lmes), message="LMEs by exact enumeration over the arcs between kinks"),
    ]
    details = {"relu_maxima_theta/pi": (th[mr] / math.pi).tolist(), "linear_maxima_theta/pi": (th[ml] / math.pi).tolist(),
               "maxima_at_kinks": at_kink, "exact_lmes_theta/pi": [t / math.pi for t in lmes],
               "phi1_theta/pi": t1 / math.pi}
    return Outcome(claims=claims, details=details, headline="relu_at_least_8_maxima")


def report_instances(suite):
    yield AS_PRINTED, {}, False
    yield AS_PRINTED, dict(points="uniform"), True
    yield AS_PRINTED, dict(points="clusters"), True
    yield AS_PRINTED, dict(leak=1.0), True
    yield AS_PRINTED, dict(leak=0.2), True


def _strategy():
    from hypothesis import strategies as st

    return st.just({})  # the statement is about one fixed data set


RESULT = register(Result(
    id=ID,
    paper=PAPER,
    section="Appendix E.1, Figure 8",
    title="Fig. 8: ≥ 8 ReLU local maxima of ℰ vs 2 linear ones (±φ₁) on the paper's 9 points",
    statement="On the 9 points of Fig. 8 (App. E.1) the ReLU energy ½𝕍[ReLU(wᵀx)] has many local maxima (≥ 8), more than "
              "the 4 PCA directions and not orthogonal to each other; the linear one has only two, at ±φ₁.",
    status=Status.VERIFIED,
    params=(
        Param("points", str, "paper", "the data: the paper's 9 points, 9 uniform points, or 3 tight clusters",
              "paper", choices=POINTS),
        Param("leak", float, 0.0,
              "negative slope of the 'ReLU' activation (≠ 0: a leaky ReLU, not Fig. 8's ReLU; 1 is linear; a control)",
              "leak = 0 (ReLU)", low=0.0, high=1.0, breaks="ReLU activation h(x) = max(x, 0) (Fig. 8's caption)"),
    ),
    evaluate=evaluate,
    hypotheses=hypotheses,
    cost=cost,
    forms=(AS_PRINTED,),
    report_instances=report_instances,
    module=__name__,
    logic=Logic(for_all="the single data set of Fig. 8 (9 points, uniform α, no augmentation)"),
    binding=(Binding("≥ 8 ReLU maxima (the statement's only bound)", {}, "9 maxima found, one above the asserted 8; "
                     "the statement concerns one fixed data set, so there is no hypothesis to move"),),
    controls=(dict(points="clusters", allow_violation=True), dict(leak=1.0, allow_violation=True),
              dict(leak=0.2, allow_violation=True)),
    strategy=_strategy,
))
