"""The trend after Theorem 2 of paper 000: "Deep Fusion is more obvious with smaller noise, larger inter-cluster
distance, and shorter sequence".

Statement as printed (§"Deep Fusion", after Theorem 2)
-----------------------------------------------------
"Theorem 2 states that under the assumption of separable clusters (δ < Δ), the sharpness improvement ratio over
layers decays as the sequence lengthens. This implies that the Deep Fusion effect is more obvious with smaller
noise, larger inter-cluster distance, and shorter sequence." The Introduction repeats it: "the efficacy of this
fusion mechanism is improved by lower noise levels within each cluster, larger spatial separation between
different clusters, and shorter input sequences."

Quantifiers: comparative statics on the separable region δ < Δ: along each of n, ε and the separation (the
subspace angle θ, ρ = sin θ for lines), the fusion effect moves in the stated direction. The paper names no
measure of "the Deep Fusion effect"; the one its sentence derives from is Theorem 2's improvement ratio.

Reading chosen and what one check does
--------------------------------------
* The measured effect is one block's sharpness ratio R = 𝒮(A′)/𝒮(A) (App. B's exp-sharpness α/β; the block of
  App. B: W^V = I, no residual, rows renormalised) with the proof's W: unit columns w_l ⟂ every other cluster's
  subspace, d_k = n (``w_norm='unit_columns'``). ``w_norm='frobenius'`` divides W by √n (‖W‖_F = 1): the proof's W
  makes the logits grow like n, so the n-direction depends on this choice, and the check shows how.
* Three sweeps around one base point (K = 2 equal-angle subspaces, r = 2, m = 20, exact-angle noise), each point a
  batch of ``instances``: n = Kν over ``nus``; ε over ``eps_values``; θ over ``angles``. Every swept instance must be
  separable (δ < Δ from the measured ε and ρ_W; decided by the evaluation).
* Measured (``measurement`` claims, the predicted sign as reference): the least-squares slope of log R against
  log n, log ε and θ, with its z-score, and the same for log γ_B (B9) on the instances' own δ, Δ.
* The commentary's inference from Theorem 2's factor (``proof_step`` claims, on the exact formula: δ, Δ from
  ε and ρ = sin θ along the sweep grids, no sampling): γ_B falls with n (as stated), γ_B rises as ε falls, and
  γ_B rises with θ.

Status: open
------------
Measured on the default sweeps (32 instances a point): log R *rises* with n (−0.62 at n = 4 to +4.2 at n = 32,
+10.2 at n = 64 in the report's wider sweep) and with ε (−0.52 at ε = 0.001 to −0.32 at 0.03) — both opposite to the commentary — and rises with θ (−0.45 at
30° to +0.77 at 90°), as stated. With ‖W‖_F = 1 the n- and ε-directions are the same (R rises with both) and the
θ-direction reverses. The commentary's own factor does not support it either: γ_B falls with n (as stated) but
*rises* with ε and *falls* with θ on the separable region — the opposite of "smaller noise, larger inter-cluster
distance" (proof errata, on the commentary's inference). Why not ``refuted``: the paper defines no measure of the
effect and fixes no W (Theorem 2 only asserts some W exists), and the directions measured depend on both; why
not ``trend``: the commentary names no regime where it predicts the opposite, so no trend control can be built.
A verdict needs the measure and the witness the sentence means. ``Result.strategy`` draws other base points from
the declarations (r, m, ν, ε ≤ 0.01, θ ≥ 45°, separable at every swept point); nothing is asserted for it to
search, and the directions are measured on whole batches rather than pushed by an optimiser.
"""

from __future__ import annotations

import math

import torch

from ..core.evidence import Claim
from ..core.registry import register
from ..core.result import AS_PRINTED, Cost, Logic, Outcome, Param, ProofErratum, Result, Status, Violation, seed_param
from ..optim.threads import one_thread
from ..data.subspaces import add_noise, effective_eps, subspace_instances
from ..metrics.cluster_integrity import construct_w, margin_of_w
from ..metrics.scaling import SCALING_KEY, scaling_series
from .fusion import block_log_ratio, delta_Delta, log_gamma_B
from .paper import PAPER

ID = "deep_fusion.fusion_trend"
W_NORMS = ("unit_columns", "frobenius")


def hypotheses(p: dict, form: str) -> list[Violation]:
    if p["m"] < 2 * p["r"]:
        return [Violation("m ≥ 2r", "two equal-angle subspaces of dimension r need 2r dimensions", ("m", "r"), False)]
    return []


def cost(p: dict) -> Cost:
    """Each sweep point holds instances × (n × n logits, n × m rows, the m × m form); its work is dominated by
    the construction's min-norm points (≤ 3000 iterations on n × m)."""
    m, B = p["m"], float(p["instances"])
    ns = [2 * v for v in p["nus"]] + [2 * p["nu"]] * (len(p["eps_values"]) + len(p["angles"]))
    elements = max(B * (2 * n * n + n * m + m * m) for n in ns) * len(p["eps_values"])
    return Cost(elements=elements, work=sum(B * (n * m * 3000 + 4 * n * n * m) for n in ns))


def sweep_point(ctx, p: dict, nu: int, angle: float, eps_list: list[float]):
    """(log R, log γ_B, separable) per instance, (E, B) for the noise levels ``eps_list`` on one clean batch."""
    clean = subspace_instances(ctx, p["instances"], p["m"], 2, p["r"], (nu, nu), "angle", math.radians(angle))
    con = construct_w(clean.X, clean.labels, clean.bases)
    W = con.W / (math.sqrt(clean.n) if p["w_norm"] == "frobenius" else 1.0)
    M = W @ W.transpose(-1, -2)
    rho = margin_of_w(clean.X, clean.labels, con.W)
    rows = []
    for eps in eps_list:
        Xt = add_noise(ctx, clean.X, eps, "exact")
        d, D = delta_Delta(effective_eps(clean.X, Xt).clamp_min(0.0), rho)
        lg = torch.tensor([log_gamma_B(clean.n, a, b) for a, b in zip(d.tolist(), D.tolist(), strict=True)], dtype=Xt.dtype,
                          device=Xt.device)
        rows.append((block_log_ratio(Xt, M, clean.labels, "exp"), lg, d < D))
    return [torch.stack(t) for t in zip(*rows, strict=True)]


def fit_slope(x: torch.Tensor, y: torch.Tensor) -> tuple[float, float]:
    """Least-squares slope of y on x over all instances (x, y (P, B)), and its z-score."""
    x, y = x.flatten(), y.flatten()
    xc = x - x.mean()
    b = float((xc * (y - y.mean())).sum() / (xc * xc).sum())
    resid = y - y.mean() - b * xc
    se = math.sqrt(float((resid * resid).sum()) / (x.numel() - 2) / float((xc * xc).sum()))
    return b, b / se if se > 0 else math.copysign(math.inf, b)


def formula_steps(p: dict) -> dict[str, float]:
    """On the exact formula (δ, Δ from ε and ρ = sin θ, no data), the worst step against each stated
    direction along the sweep grids: > 0 means γ_B moves the wrong way somewhere."""
    nus, eps_list, angles = list(p["nus"]), list(p["eps_values"]), list(p["angles"])

    def lg(n, eps, angle):  # δ = sin φ, Δ = cos(ψ + φ) with ρ = sin θ, i.e. ψ = 90° − θ
        phi = math.acos(1 - eps)
        return log_gamma_B(n, math.sin(phi), math.cos(math.pi / 2 - math.radians(angle) + phi))

    by_n = [lg(2 * nu, p["eps"], p["angle_deg"]) for nu in nus]
    by_eps = [lg(2 * p["nu"], e, p["angle_deg"]) for e in eps_list]
    by_angle = [lg(2 * p["nu"], p["eps"], a) for a in angles]
    return {"n": max(b - a for a, b in zip(by_n, by_n[1:], strict=False)),  # must fall with n
            "eps": max(b - a for a, b in zip(by_eps, by_eps[1:], strict=False)),  # must fall as ε grows (rise as ε falls)
            "angle": max(a - b for a, b in zip(by_angle, by_angle[1:], strict=False))}  # must rise with θ


def evaluate(p: dict, form: str, ctx) -> Outcome:
    nus, eps_list, angles = list(p["nus"]), list(p["eps_values"]), list(p["angles"])
    def grid(values):
        return torch.tensor(values, dtype=ctx.dtype, device=ctx.device)

    sweeps = {
        "n": (grid([2.0 * v for v in nus]), [sweep_point(ctx, p, nu, p["angle_deg"], [p["eps"]]) for nu in nus]),
        "eps": (grid(eps_list), [sweep_point(ctx, p, p["nu"], p["angle_deg"], eps_list)]),
        "angle": (grid(angles), [sweep_point(ctx, p, p["nu"], a, [p["eps"]]) for a in angles]),
    }
    claims, details, series, violations = [], {}, [], []
    predicted = {"n": -1, "eps": -1, "angle": +1}
    said = {"n": "< 0", "eps": "< 0", "angle": "> 0"}  # the commentary's directions, as signs of the slope
    for axis, (x, points) in sweeps.items():
        logR, logG, sep = (torch.cat([pt[i] for pt in points]) for i in range(3))  # (P, B)
        xs = (x.log() if axis != "angle" else x).unsqueeze(-1).expand_as(logR)
        bR, zR = fit_slope(xs, logR)
        bG, zG = fit_slope(xs, logG)
        word = {"n": "log n", "eps": "log ε", "angle": "θ (degrees)"}[axis]
        claims += [Claim.measurement(f"logR_slope_vs_{axis}", bR, 0.0, f"slope of log R on {word} (z = {zR:.1f}); "
                                     f"the commentary predicts {said[axis]}"),
                   Claim.measurement(f"log_gamma_B_slope_vs_{axis}", bG, 0.0, f"slope of log γ_B on {word} (z = {zG:.1f})")]
        details[f"logR_mean_by_{axis}"] = logR.mean(-1).tolist()
        details[f"log_gamma_B_mean_by_{axis}"] = logG.mean(-1).tolist()
        details[f"{axis}_values"] = x.tolist()
        details[f"separable_fraction_{axis}"] = float(sep.double().mean())
        details[f"z_{axis}"] = zR
        series.append(scaling_series(word, x.tolist(), "mean log R (one block, proof's W)", logR.mean(-1).tolist(),
                                     predicted=(None, 0.0) if predicted[axis] < 0 else (0.0, None), log=False,
                                     predicted_note="the commentary after Theorem 2"))
        if not bool(sep.all()):
            violations.append(Violation("separable clusters δ < Δ (the commentary's assumption)",
                                        f"{int((~sep).sum())} swept instances of the {axis} sweep have δ ≥ Δ", ()))
    steps = formula_steps(p)
    claims += [
        Claim.at_most("commentary_gamma_B_falls_with_n", steps["n"], 0.0, "largest rise of log γ_B along the n grid "
                      "(exact formula; 'the ratio decays as the sequence lengthens')", kind="proof_step"),
        Claim.at_most("commentary_gamma_B_rises_as_noise_falls", steps["eps"], 0.0, "largest rise of log γ_B as ε "
                      "grows along the ε grid (exact formula; 'more obvious with smaller noise')", kind="proof_step"),
        Claim.at_most("commentary_gamma_B_rises_with_separation", steps["angle"], 0.0, "largest fall of log γ_B as θ "
                      "grows along the θ grid (exact formula; 'larger inter-cluster distance')", kind="proof_step"),
    ]
    details.update({f"formula_worst_step_{k}": v for k, v in steps.items()})
    details[SCALING_KEY] = series
    return Outcome(claims=claims, details=details, violations=violations, headline="logR_slope_vs_n")


ERRATA = (
    ProofErratum(step="§Deep Fusion, the sentence after Theorem 2 (smaller noise)",
                 printed="Theorem 2's improvement ratio implies the Deep Fusion effect is more obvious with smaller "
                         "noise", why="γ_B (B9) rises with ε on the separable region: at n = 8, ρ = sin 45°, log γ_B "
                 "goes from −7.45 at ε = 0.001 to −3.83 at ε = 0.03; the factor is larger for *more* noise",
                 params={}, claim="commentary_gamma_B_rises_as_noise_falls"),
    ProofErratum(step="§Deep Fusion, the sentence after Theorem 2 (inter-cluster distance)",
                 printed="Theorem 2's improvement ratio implies the Deep Fusion effect is more obvious with larger "
                         "inter-cluster distance", why="γ_B falls with the angle between the subspaces (ρ = sin θ): "
                 "e^{−nΔ²} dominates; at n = 8, ε = 0.01 log γ_B goes from −3.18 at θ = 30° to −19.0 at θ = 90°",
                 params={}, claim="commentary_gamma_B_rises_with_separation"),
)


def report_instances(suite):
    yield AS_PRINTED, dict(), False
    yield AS_PRINTED, dict(w_norm="frobenius"), False
    yield AS_PRINTED, dict(nus=(2, 4, 8, 16, 32)), False
    if suite.name == "thorough":
        yield AS_PRINTED, dict(instances=128, nus=(2, 4, 8, 16, 32, 64)), False
        yield AS_PRINTED, dict(r=1, m=8, seed=1), False
        yield AS_PRINTED, dict(eps=0.003, angle_deg=60.0, seed=2), False


def _strategy():
    from ..strategies.deep_fusion import fusion_trend_params

    return fusion_trend_params()


RESULT = register(Result(
    id=ID,
    paper=PAPER,
    section="§Deep Fusion, the commentary after Theorem 2; Introduction (Theory)",
    title="After Theorem 2: fusion is stronger with smaller noise, larger separation, shorter sequences (measured)",
    statement=("Under separable clusters (δ < Δ) the sharpness improvement ratio decays as the sequence lengthens, "
               "so the Deep Fusion effect is more obvious with smaller noise, larger inter-cluster distance and "
               "shorter sequences (§Deep Fusion after Theorem 2; the Introduction)."),
    status=Status.OPEN,
    logic=Logic(for_all="separable noisy unions of subspaces (δ below Δ), compared along n, ε and the separation"),
    open_reason=("The paper defines no measure of 'the Deep Fusion effect' and fixes no W (Theorem 2 only asserts "
                 "one exists). Read as one block's sharpness ratio R of the proof's W (App. B), R rises with n and "
                 "with ε, opposite to the sentence, and with the subspace angle, as stated; with ‖W‖_F = 1 the "
                 "angle direction reverses. The commentary names no regime where it predicts the opposite, so no "
                 "trend control exists; a verdict needs the measure and the witness it means."),
    proof_errata=ERRATA,
    strategy=_strategy,
    params=(
        Param("m", int, 20, "ambient dimension", "m ≥ 2r", low=2, high=256, sample=(4, 24)),
        Param("r", int, 2, "subspace dimension (two subspaces at equal principal angles)", low=1, high=64,
              sample=(1, 3)),
        Param("nu", int, 4, "samples per cluster at the base point (n = 2ν)", low=1, high=256, sample=(2, 8)),
        Param("eps", float, 0.01, "noise level ε of eq. (6) at the base point", low=1e-9, high=0.999,
              sample=(1e-3, 1e-2), log=True),
        Param("angle_deg", float, 45.0, "principal angle θ at the base point", low=1e-3, high=90.0,
              sample=(45.0, 90.0)),
        Param("nus", list[int], (2, 4, 8, 16), "the n sweep: ν values (n = 2ν)", low=1, high=256, length=(3, 16),
              increasing=True),
        Param("eps_values", list[float], (0.001, 0.003, 0.01, 0.03), "the ε sweep", low=1e-9, high=0.999,
              length=(3, 16), increasing=True),
        Param("angles", list[float], (30.0, 45.0, 60.0, 75.0, 90.0), "the θ sweep (degrees)", low=1e-3, high=90.0,
              length=(3, 16), increasing=True),
        Param("w_norm", str, "unit_columns", "unit_columns: the proof's W (d_k = n); frobenius: W/√n",
              choices=W_NORMS),
        Param("instances", int, 32, "instances per sweep point", low=2, high=4096),
        seed_param(),
    ),
    cost=cost,
    evaluate=one_thread(evaluate),
    hypotheses=hypotheses,
    forms=(AS_PRINTED,),
    report_instances=report_instances,
    module=__name__,
))
