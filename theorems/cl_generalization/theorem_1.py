"""Theorem 1 of paper 003 (upper bound of R_ε): alignment controls the mass of badly aligned points.

Statement as printed (slide "Theorem 1 (Upper Bound of R_ε)")
-------------------------------------------------------------
"If encoder f is L-Lipschitz continuous, then R_ε² ≤ η(ε)² · E_x E_{x₁,x₂∈A(x)} ‖f(x₁) − f(x₂)‖² = η(ε)² · L_align(f),
where η(ε) = O(1/ε)."

Quantifiers and the reading chosen
----------------------------------
∀ L-Lipschitz f, ∀ ε > 0: R_ε² ≤ η(ε)² L_align(f), for a function η with η(ε) = O(1/ε). The statement asserts
that such an η *exists*: η(ε) = c/ε, the constant c hidden in the O(·). What may c depend on? O(·) hides a
constant independent of ε; the theorem quantifies over f (c may depend on f only through L, otherwise the
statement is empty: c = 1/√L_align(f) would do), while the augmentation A, on which R_ε, L_align, σ and δ all
depend, is fixed throughout the slides. Reading chosen: **c may depend on L and on the augmentation law, not on
f**. (The stronger reading "c depends on L alone" was the suite's earlier one; it is not what the notation
says, and it is refuted, see below, so keeping it would have refuted a statement the slides do not make.)

For finite view sets with weights ≥ w_min the constant exists in closed form [derived]:
diam f(A(x))² ≤ Σ_ab w_a w_b ‖f(x_a) − f(x_b)‖² / (2 w_min²) (the two ordered pairs realising the diameter each
carry weight ≥ w_min²), and Markov's inequality gives R_ε ≤ L_align/(2 w_min² ε²); since R_ε ≤ 1, R_ε² ≤ R_ε and

    R_ε² ≤ η(ε)² L_align   with   η(ε) = c/ε,  c = 1/(√2 w_min)   (L is not needed).

What one check does
-------------------
On the instance (any harness, the identity or a random map), for every ε ≥ ``eps`` on the grid of view
diameters and just below each one (R_ε jumps there, where the bound is tightest): ``printed_bound``
(bound) R_ε² ≤ (c/ε)² L_align with the witness c = 1/(√2 w_min) scaled by ``eta_scale`` (1 as printed);
``unsquared_bound`` (identity: the Markov step, algebra) R_ε ≤ L_align/(2 w_min² ε²) and ``per_point``
(identity) diam² ≤ L_align(x)/(2 w_min(x)²). Measurement ``c_star``: the smallest constant that works on the
instance, max_ε εR_ε/√L_align, with the witness as reference (c* ≤ c always).

Status: open (was verified; before that verified-corrected under the "L alone" reading)
----------------------------------------------------------------------------------------
Under the reading chosen the printed inequality with the witness c = 1/(√2 w_min) is *derived* above (the
diameter bound and Markov's inequality, then R_ε ≤ 1): it can fail only through a bug of the code, so
``printed_bound`` is an ``identity`` (a test of the code, never evidence), like the two steps it rests on. It is
attained: with m = 2 views of weight ½, the second at distance 2 from the point (``BINDING``), R_ε = 1 for ε < 2,
L_align = 2·¼·4 = 2 and c² = 2, so η(ε)² L_align = 4/ε² → 1 as ε → 2⁻: R_ε² = 1 = η(ε)²L_align at
ε = 2(1 − 10⁻¹²); a smaller witness fails there (``eta_scale`` = 1 − 10⁻¹⁰, the control that pins the
tolerance). What would make a verdict: a reading in which the constant is not free to pay for the augmentation
law (then the far-view family below refutes it), or continuous augmentations with a stated regularity (the slides
state none). Hence ``open``, with the reason registered.

What the slide hides, recorded as a finding, not as a counterexample: the constant cannot be chosen from L
alone. On the far-view family (identity encoder, L = 1; every point has one view at distance 2 of weight w)
R_ε = 1 for every ε < 2 while L_align = 8w(1 − w), so c*(w) = 2/√(8w(1 − w)) → ∞ as w → 0 (≈ 707, 7071, 70711
at w = 10⁻⁶, 10⁻⁸, 10⁻¹⁰; ``details["c_star"]``). For finite view sets the constant must pay 1/w_min; for
continuous augmentations the slides' proof would need a regularity of the augmentation family (which is where L
enters), and the slides state none. The reading of the constant is the judgement call here: under "c depends on
L alone" the far-view family refutes the statement.
"""

from __future__ import annotations

import math
import random

import torch

from ..core.evidence import Claim
from ..core.params import sample_params
from ..core.registry import register
from ..core.result import AS_PRINTED, Binding, Cost, Logic, Outcome, Param, Result, Status, Violation
from ..core.result import Pin
from . import population as P
from .encoders import identity_encoder, random_features
from .instances import DC, build_population, instance_cost, instance_hypotheses, instance_params
from .paper import PAPER

ID = "cl_generalization.theorem_1"
# R_ε is a multiple of 1/N and the bound a ratio of O(1) sums: float64 rounding only; pinned by the control
# eta_scale = 1 − 1.5e-12 on the attained instance (a relative gap of 3e-12, 3× this tolerance; 1 − 1e-10 missed by 200×).
RTOL = 1e-12
# R_ε jumps at every view diameter; the grid also tests just below each one, where the bound is tightest. The
# step is far below any gap a control produces, so that it does not hide a tolerance of its own.
BELOW_JUMP = 1e-12
FAR_DISTANCE = 2.0
FIXED_ENCODERS = ("identity", "random")


def hypotheses(p: dict, form: str) -> list[Violation]:
    out = instance_hypotheses(p)
    if p["encoder"] not in FIXED_ENCODERS:
        out.append(Violation("fixed encoder", "Theorem 1 is checked with the identity or a random map",
                             ("encoder",), bypassable=False))
    if p["far_view_weight"] > 0 and p["m"] < 2:
        out.append(Violation("m ≥ 2 with a far view", "the far view replaces one of at least two views", ("m",),
                             bypassable=False))
    return out


def with_far_view(pop, w_far: float, ctx):
    """Replace the last view of every point by a far one of weight w_far (the rest share 1 − w_far)."""
    views, w = pop.views.clone(), pop.view_w.clone()
    direction = torch.nn.functional.normalize(ctx.randn(pop.N, views.shape[-1]), dim=-1)
    views[:, -1] = views[:, 0] + FAR_DISTANCE * direction
    w[:, :-1] = w[:, :-1] / w[:, :-1].sum(1, keepdim=True) * (1 - w_far)
    w[:, -1] = w_far
    pop.views, pop.view_w = views, w
    return pop


def embedded_views(p: dict, ctx):
    """(population, f(views)) of the instance, with the far view where asked."""
    pop = build_population(p, ctx)
    if p["far_view_weight"] > 0:
        pop = with_far_view(pop, p["far_view_weight"], ctx)
    if p["encoder"] == "identity":
        F, _ = identity_encoder(pop, p["r"], normalize=False)  # the identity itself: far views stay far
    else:
        F, _ = random_features(pop, ctx, d=p["d"], r=p["r"], Dc=DC if p["harness"] == "style_content" else None)
    return pop, F


def eps_grid(diam: torch.Tensor, eps_min: float) -> torch.Tensor:
    """ε ≥ eps_min on the diameters, at ``eps_min`` and just below every jump of R_ε."""
    eps = P.candidate_eps(diam, 64)
    eps = torch.unique(torch.cat([eps[eps >= eps_min], eps.new_tensor([eps_min])]))
    below = eps * (1 - BELOW_JUMP)
    return torch.unique(torch.cat([eps, below[below >= eps_min]]))


def evaluate(p: dict, form: str, ctx) -> Outcome:
    pop, F = embedded_views(p, ctx)
    diam = P.diameters(F)
    eps = eps_grid(diam, p["eps"])
    R = (diam[None, :] > eps[:, None]).to(F.dtype).mean(1)
    per_point = P.alignment_per_point(F, pop.view_w)
    L_align = float(per_point.mean())
    w_min = float(pop.view_w.min())
    c = p["eta_scale"] / (math.sqrt(2) * w_min)  # the witness of the O(1/ε) constant
    printed = c ** 2 * L_align / eps ** 2  # η(ε)² L_align
    worst = int(torch.argmax(R ** 2 - printed))
    markov = L_align / (2 * w_min ** 2 * eps ** 2)
    wmin_x = pop.view_w.min(1).values
    pp = float(((diam ** 2 - per_point / (2 * wmin_x ** 2)) / (diam ** 2).clamp_min(1e-300)).max())
    # L_align = 0 means every view set is a single point (the weights are positive): R_ε = 0 and any c works
    c_star = float((eps * R).max()) / math.sqrt(L_align) if L_align > 0 else 0.0
    claims = [
        Claim.at_most("printed_bound", float(R[worst] ** 2), float(printed[worst]),
                      f"R_ε² against η(ε)² L_align, η(ε) = c/ε with c = {c:.6g}, at the tightest ε "
                      f"({float(eps[worst]):.6g}); holds by the derivation (Markov and R_ε ≤ 1)", kind="identity",
                      rtol=RTOL),
        Claim.at_most("unsquared_bound", float((R - markov * (1 + RTOL)).max()), 0.0,
                      "max over ε of R_ε − L_align/(2 w_min² ε²) (Markov)", kind="identity"),
        Claim.at_most("per_point", pp, RTOL, "max over x of (diam² − L_align(x)/(2 w_min(x)²)) / diam²",
                      kind="identity"),
    ]
    if math.isfinite(c_star):
        claims.append(Claim.measurement("c_star", c_star, c, "smallest constant that works on this instance, "
                                        "max_ε εR_ε/√L_align (reference: the witness 1/(√2 w_min))"))
    details = {"L_align": L_align, "w_min": w_min, "witness_c": c, "c_star": c_star, "eps_at_worst": float(eps[worst]),
               "eps_grid": eps.tolist(), "R_grid": R.tolist(), "max_diameter": float(diam.max()),
               "max_R_over_unsquared_bound": float((R / markov.clamp_min(1e-300)).max())}
    return Outcome(claims=claims, details=details, headline="printed_bound")


# Every point has two views of weight ½ at distance 2: R_ε = 1 for ε < 2, L_align = 2, and η(ε)²L_align → 1 as
# ε → 2⁻: the witness is attained.
BINDING = dict(far_view_weight=0.5, m=2)
# One far view per point, weight w → 0 at L = 1: the smallest working constant grows like 1/√(8w).
FAR_VIEWS = tuple(dict(far_view_weight=w, view_noise=0.0, mode="clustered") for w in (1e-6, 1e-8, 1e-10))
CONTROL_PINNED = dict(BINDING, eta_scale=1 - 1.5e-12, allow_violation=True)


def cost(p: dict) -> Cost:
    return instance_cost(p)


def report_instances(suite):
    yield AS_PRINTED, dict(), False
    yield AS_PRINTED, dict(BINDING), False
    yield AS_PRINTED, dict(weights="dirichlet", mode="bad_aligned", bad_frac=0.3), False
    yield AS_PRINTED, dict(harness="style_content", encoder="random", d=8), False
    for far in FAR_VIEWS:  # the constant grows without bound along the family (c* in details)
        yield AS_PRINTED, dict(far), False
    rng = random.Random(300)
    for _ in range(suite.report_examples):
        drawn = sample_params(RESULT, AS_PRINTED, rng)
        if drawn is not None:
            yield AS_PRINTED, drawn, False
    yield AS_PRINTED, {k: v for k, v in CONTROL_PINNED.items() if k != "allow_violation"}, True


def _strategy():
    from ..strategies.cl_generalization import cl_theorem_1_params

    return cl_theorem_1_params()


RESULT = register(Result(
    id=ID, paper=PAPER, section="Main Part Samples With Good Alignment, Theorem 1 (Upper Bound of R_ε)",
    title="Theorem 1: R_ε² ≤ η(ε)² L_align with η(ε) = O(1/ε) (witness 1/(√2 w_min ε) for finite view sets)",
    statement="If f is L-Lipschitz, then R_ε² ≤ η(ε)² · E_x E_{x₁,x₂∈A(x)} ‖f(x₁) − f(x₂)‖², η(ε) = O(1/ε).",
    status=Status.OPEN,
    open_reason=("Under the reading that lets the O(1/ε) constant depend on the augmentation law (the slides fix "
                 "the law throughout), the inequality with c = 1/(√2 w_min) follows from Markov's inequality and "
                 "R_ε ≤ 1 for every finite view set: it holds by derivation, so checking it tests only the code "
                 "(an identity, attained on the binding instance). Under the stronger reading, c depending on L "
                 "alone, the far-view family refutes it (c* ≈ 707, 7071, 70711 at w = 1e-6, 1e-8, 1e-10 with L = 1). "
                 "The slides say neither; a stated dependence of the constant, or a regularity of continuous "
                 "augmentations, is what a verdict needs."),
    logic=Logic(for_all="every L-Lipschitz encoder f and every ε > 0, for a fixed augmentation law (here finite "
                        "weighted view sets)",
                exists="a function η(ε) = c/ε (the slide's O(1/ε)), c depending on L and the augmentation law but "
                       "not on f: c = 1/(√2 w_min) for finite view sets"),
    binding=(Binding(hypothesis="view weights ≥ w_min (the pair realising the diameter carries exactly w_min²)",
                     params=BINDING, margin="R_ε² = η(ε)² L_align as ε → 2⁻ (ratio 1 − 2·10⁻¹²)"),),
    # The one control pins RTOL of the identity printed_bound (no bound claim to break: the status is open): its Pin.
    strategy=_strategy,
    params=instance_params(mode="bad_aligned") + (
        Param("eps", float, 0.05, "smallest ε checked (every grid ε ≥ it is checked)", "ε > 0", low=1e-6,
              high=10.0, sample=(0.01, 0.5)),
        Param("far_view_weight", float, 0.0, "weight of one far view per point (0 = none): the family on which no "
              "constant depending on L alone works", low=0.0, high=0.5, sample=(1e-6, 0.1), log=True),
        Param("eta_scale", float, 1.0,
              "multiplies the witness constant 1/(√2 w_min) (≠ 1 shrinks or grows it: negative control)", "1", low=1e-6,
              high=1e6, breaks="η(ε) = 1/(√2 w_min ε)"),
    ),
    cost=cost, evaluate=evaluate, hypotheses=hypotheses, forms=(AS_PRINTED,), report_instances=report_instances,
    module=__name__,
    pins=(
        Pin("printed_bound", "eta_scale", fails=1 - 1.5e-12, within=10,
            params=dict(far_view_weight=0.5, m=2, allow_violation=True)),
    ),
))
