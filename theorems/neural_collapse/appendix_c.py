"""Appendix C of paper 004: with a constant inner regularisation λ, the global optima of L-RN2 "do not in general
approach NC" (the heuristic that motivates Theorem 4.6's λ(L) = o(1/log L)).

Statement as printed
--------------------
Appendix C: take an optimum ε-close to NC; "zero-out all the last layers that were responsible for moving the
samples by a total amount of Θ(ε)": the fit rises by O(ε²), the regularisation saved is Ω(ε) (moving features by
ΔX costs ‖ΔX‖ ≤ √(N/4)(‖W₁‖² + ‖W₂‖²) per block), so for small ε the optimum is not near NC. Its example: MSE on the
perturbed collapsed data X = I_K ⊗ 1_nᵀ + E, E of size Θ(ε), where "to move X Θ(ε) closer to NC, we need Θ(λ_L ε)
cost in terms of the weight matrices". Quantifiers: for that data (and "in general"), constant λ > 0 and every
depth L, the global optima of (11) with a constant inner λ stay a positive distance from NC.

Counterexample (the printed form)
---------------------------------
Objective (11) regularises θ̄, which excludes the biases and W_0 (Section 4.1, below (7)). A block with zero weights
is then the free map x ↦ LN(x + b_{l,2}), and ``free_blocks.closing_network`` builds from such blocks alone (N − K
folds that merge each class exactly, spreads, 12 optimised shifts) a network of depth L₀ = 1 + 2(N − K) + 12 whose
objective equals L*_GUFM to rounding, at any inner λ. Every global optimum of depth L ≥ L₀ therefore has GUFM excess
≤ ε_c = (U − L*)₊ + rounding, so (Lemma 4.1 made quantitative, ``near_optimal``: NC3 ≤ C₃ε and
(1/N)Σ‖x_ki − √d ŵ_k‖² = 2d·NC3) its within-class spread is ≤ s_max = 2√(2dN·NC3(ε_c)): the optima are collapsed,
on App. C's own data (ε = 0.01: s_max ≈ 3·10⁻⁶ of the data's spread) and on generic data (the Gaussian mixture).
The claim ``optima_keep_spread`` (every optimum keeps ≥ ``KEEP`` = 1 % of the data's within-class spread) fails on
both; it is an upper bound there, so where it is above 1 % the printed form is *not resolved* (never "holds").

Corrected statement (``form='corrected'``)
------------------------------------------
The argument is right for blocks without biases and a fixed input layer (the features enter the blocks as
X_1 = LN(W_0 X), W_0 fixed; App. C's reading: W_0 = √d·U, U the GUFM's frame, so that I_K ⊗ 1ᵀ is the collapsed
optimum): then a block moves every feature by at most √d(‖W_{l,1}‖² + ‖W_{l,2}‖²) (‖W₂σ(W₁x)‖ ≤ ‖W₂‖‖W₁‖√d and
‖LN(x + v) − x‖ ≤ 2‖v‖ on the LN sphere), so a network whose features moved by M at most pays inner cost
≥ λ_in M/(2√d), at every depth. With U₀ = min_W GUFM(W, X_1) (the zero-block network, a ridge regression in closed
form) every global optimum has M ≤ M_max = 2√d(U₀ − L*)/λ_in, hence keeps a within-class spread
≥ δ = D₁ − 2M_max (D₁ the largest within-class distance of X_1). ``optima_keep_spread`` asserts δ/D₁ ≥ 1 %: every
global optimum of every depth keeps it (constant λ_in = λ₀). Hypothesis (App. C's "ε small", made quantitative):
ε ≤ ``EPS_PER_LAMBDA``·λ₀. Controls: λ_in = λ₀/L (Theorem 4.6's regime: the certificate decays with L and fails at
L = 37), and ε = 0.3 (far from NC: the O(ε²) gain wins).

The bias-free sandwich cannot close either (``bias_free_sandwich_floor``, ``sandwich_floor``, a measurement): a
network that moved its features by M keeps a pair at s ≥ D₁ − 2M, so its GUFM excess is ≥ min(ε₀, s²/(8dN·C₃))
(Lemma 4.1 quantitative, read backwards) and its inner cost ≥ λ_in M/(2√d): L*_L − L*_GUFM ≥ 2.06·10⁻⁶·L*_GUFM at
every depth at the default. The floor is set by the fit term (C₃ = 221 is loose), so at L = 37 the vanishing λ₀/L
gives the same number: it contrasts the two schedules only from L ~ 10⁴ on, which is why the control that tells
them apart is the spread certificate above, not the floor.

Status: **verified-corrected** (the counterexample above; the corrected form certified: rigorous inequalities
evaluated in float64).
"""

from __future__ import annotations

import math

import numpy as np
import torch

from ..core.evidence import Claim
from ..core.registry import register
from ..core.result import AS_PRINTED, CORRECTED, Binding, Cost, Logic, Outcome, Param, Result, Status, Violation, seed_param
from ..data.classification import gaussian_mixture
from ..optim.manifolds import ln
from ..optim.threads import one_thread
from .depth_trend import appendix_c_data
from .free_blocks import RESTARTS, SHIFTS, closing_network
from .models import ModelSpec, evaluate as forward, init_params, pack, unpack
from .near_optimal import nc_bounds
from .paper import PAPER
from .ufm import LOSSES, closed_form, collapsed_pair

ID = "neural_collapse.appendix_c"
INNER_LAMBDAS = ("constant", "vanishing")
DATA = ("appendix_c", "mixture")
# "Not approaching NC": every global optimum keeps at least this fraction of the data's largest within-class spread.
KEEP = 0.01
# The free-block network's objective is exact up to float64 rounding through ≤ 1 + 2(N − K) + 12 blocks (observed
# |U − L*| ≤ 3e-14·L*); ε_c adds this allowance so that the spread bound never rests on a negative excess.
ROUNDING = 1e-13
# App. C's "ε small", quantitative: the certificate δ/D₁ = 1 − 4√d(U₀ − L*)/(λ_in D₁) with U₀ − L* = O(ε²) and
# D₁ = Θ(ε) needs ε ≲ λ₀; measured δ/D₁ ≥ 0.40 at ε = 0.4·λ₀ on seeds 0–9 × the 128 corners (checks/neural_collapse/
# test_appendix_c.py; ≥ 0.70 at 0.2·λ₀, ≥ 0.11 at 0.6·λ₀), and < 0 from ε ≈ λ₀ (the ε = 0.3 control: −0.74).
EPS_PER_LAMBDA = 0.4


def hypotheses(p: dict, form: str) -> list[Violation]:
    out: list[Violation] = []
    K, d, d0 = p["K"], p["d"], p["d0"]
    if p["loss"] == "mse" and d < K + 1:
        out.append(Violation("d ≥ K+1 (MSE)", "the GUFM optimum (Lemma 4.2) needs room in 1^⊥", ("d", "K"),
                             bypassable=False))
    if p["data"] == "appendix_c" and d0 < K:
        out.append(Violation("d0 ≥ K (Appendix C's data)", "X = I_K ⊗ 1_nᵀ + E needs K input coordinates",
                             ("d0", "K"), bypassable=False))
    if p["n"] < 2:
        out.append(Violation("n ≥ 2", "a within-class spread needs two samples per class", ("n",), bypassable=False))
    if form == CORRECTED:
        if p["loss"] != "mse":
            out.append(Violation("MSE (Appendix C's argument)", "the certificate uses the ridge regression's closed "
                                 "form", ("loss",), bypassable=False))
        if p["data"] != "appendix_c":
            out.append(Violation("Appendix C's data", "the corrected statement is about perturbed collapsed data",
                                 ("data",), bypassable=False))
        if p["data_eps"] > EPS_PER_LAMBDA * p["lam_inner"]:
            out.append(Violation(f"ε ≤ {EPS_PER_LAMBDA}·λ₀ (Appendix C's small perturbation)",
                                 f"ε = {p['data_eps']} > {EPS_PER_LAMBDA}·{p['lam_inner']}", ("data_eps", "lam_inner")))
        if p["inner_lambda"] != "constant":
            out.append(Violation("a constant inner λ (Appendix C)", "λ(L) = λ₀/L is Theorem 4.6's regime",
                                 ("inner_lambda",)))
    elif p["inner_lambda"] != "constant":
        out.append(Violation("a constant inner λ (Appendix C)", "λ(L) = λ₀/L is Theorem 4.6's regime",
                             ("inner_lambda",)))
    return out


def cost(p: dict) -> Cost:
    d, N = p["d"], p["K"] * p["n"]
    blocks = 2 * N + SHIFTS
    return Cost(elements=RESTARTS * blocks * d * N * 40, work=RESTARTS * blocks * d * N * 60 * 1500)


def inputs_and_first_layer(p: dict, ctx) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(X0, labels, θ₀ of a depth-2 RN2 whose W_0 is App. C's frame map √d·U on the first K coordinates, or the
    draw for the mixture); b_0 = 0."""
    K, n, d, d0 = p["K"], p["n"], p["d"], p["d0"]
    spec = ModelSpec("rn2", 2, d, K, d0=d0)
    if p["data"] == "appendix_c":
        X0, labels = appendix_c_data(ctx, K, n, d0, p["data_eps"])
    else:
        X0, labels = gaussian_mixture(ctx, K, n, d0)
    parts = unpack(spec, init_params(spec, ctx, 1))
    if p["data"] == "appendix_c":
        _, X_star = collapsed_pair(p["loss"], K, 1, d, 1.0, dtype=ctx.dtype, device=ctx.device)  # √d·U, (d, K)
        W0 = torch.zeros(1, d, d0, dtype=ctx.dtype, device=ctx.device)
        W0[0, :, :K] = X_star
        parts["W0"] = W0
    parts["b0"] = torch.zeros_like(parts["b0"])
    return X0, labels, pack(spec, parts)


def _spread(X: torch.Tensor, labels: torch.Tensor) -> float:
    """The largest distance between two features of one class."""
    gaps = (X[:, :, None] - X[:, None, :]).norm(dim=0)
    same = labels[:, None] == labels[None, :]
    return float(gaps[same].max())


def inner_lambda(p: dict, L: int) -> float:
    return p["lam_inner"] if p["inner_lambda"] == "constant" else p["lam_inner"] / L


def sandwich_floor(K: int, n: int, d: int, lam: float, lam_in: float, D1: float, grid: int = 4001) -> float:
    """A lower bound on L*_L − L*_GUFM over bias-free networks with the fixed input layer (MSE): a network whose
    features moved by M at most pays ≥ λ_in M/(2√d) and keeps a within-class pair at distance s ≥ D₁ − 2M, and a
    feature matrix with GUFM excess ε ≤ ε₀ (Lemma 4.1's validity, ``near_optimal``) has s ≤ 2√(2dN·C₃ε), so its
    excess is ≥ min(ε₀, s²/(8dN·C₃)); minimised over M ∈ [0, D₁/2] on a grid, each cell bounded by its worst end
    (the first term falls and the second rises in M)."""
    from .near_optimal import validity_limit

    N = K * n
    t = d / (d + K * lam)
    C3 = 4 / (t * (1 - t))  # near_optimal's MSE constant: NC3 ≤ C3·ε
    eps0 = validity_limit("mse", K, n, d, lam)
    M = np.linspace(0.0, D1 / 2, grid)  # plain floats: nothing here belongs on the context's device
    fit = np.minimum(np.clip(D1 - 2 * M, 0.0, None) ** 2 / (8 * d * N * C3), eps0)
    move = lam_in * M / (2 * math.sqrt(d))
    # on a cell [M_i, M_{i+1}]: fit ≥ fit(M_{i+1}), move ≥ move(M_i)
    cells = fit[1:] + move[:-1]
    beyond = lam_in * (D1 / 2) / (2 * math.sqrt(d))  # M > D₁/2: the movement alone
    return float(min(float(cells.min()), beyond))


def evaluate(p: dict, form: str, ctx) -> Outcome:
    K, n, d, loss, lam = p["K"], p["n"], p["d"], p["loss"], p["lam"]
    N = K * n
    lower = closed_form(loss, K, d, lam).value
    X0, labels, theta0 = inputs_and_first_layer(p, ctx)
    spec = ModelSpec("rn2", 2, d, K, d0=p["d0"])
    first = unpack(spec, theta0)
    X1 = ln(first["W0"][0] @ X0 + first["b0"][0])
    D1 = _spread(X1, labels)
    details: dict = {"gufm_optimum": lower, "data_spread": D1, "keep": KEEP}
    if form == AS_PRINTED:
        L0 = 1 + 2 * (N - K) + SHIFTS
        free = closing_network(spec, theta0, X0, labels, loss, lam, inner_lambda(p, L0), ctx, lower=lower,
                               restarts=p["polish_restarts"])
        eps_c = max(free.objective - lower, 0.0) + ROUNDING * lower
        b = nc_bounds(loss, K, n, d, lam, eps_c)
        s_max = 2 * math.sqrt(2 * d * N * b["nc3"]) if b is not None else math.inf
        rel = s_max / D1
        claims = [
            Claim.at_least("optima_keep_spread", rel, KEEP,
                           f"an upper bound on the within-class spread of every global optimum of depth ≥ {L0}, over "
                           "the data's (free biases: the free-block network's GUFM excess, Lemma 4.1 quantitative)"),
            Claim.at_most("free_blocks_cost_nothing", free.inner_reg, 0.0, "the free-block network's inner "
                          "regularisation (its block weights are zero)", kind="identity"),
        ]
        details.update(free_network=free.as_dict(lower), certified_excess=eps_c, spread_upper_bound=s_max,
                       nc_bound=b, depth=L0)
        # an upper bound above the floor decides nothing (only a lower bound could confirm the printed claim)
        return Outcome(claims=claims, details=details, converged=False if claims[0].passed else None,
                       headline="optima_keep_spread")
    # corrected: bias-free blocks, fixed input layer; the zero-block network's objective in closed form (ridge)
    L = p["L"]
    lam_in = inner_lambda(p, L)
    Y = torch.nn.functional.one_hot(labels, K).T.to(X1.dtype)
    W = Y @ X1.T @ torch.linalg.inv(X1 @ X1.T + N * lam * torch.eye(d, dtype=X1.dtype, device=X1.device))
    U0 = float(((W @ X1 - Y) ** 2).sum() / (2 * N) + 0.5 * lam * (W ** 2).sum())
    net = spec.with_depth(L)
    parts = {name: torch.zeros(1, *shape, dtype=ctx.dtype, device=ctx.device) for name, shape, _ in net.layout()}
    parts["W0"], parts["b0"], parts["WL"] = first["W0"], first["b0"], W[None]
    ev = forward(net, pack(net, parts), X0, labels, loss, lam, lam_in)
    M_max = 2 * math.sqrt(d) * (U0 - lower) / lam_in
    delta = D1 - 2 * M_max
    claims = [
        Claim.at_least("optima_keep_spread", delta / D1, KEEP,
                       f"a lower bound δ/D₁ on the within-class spread every global optimum keeps (bias-free blocks, "
                       f"inner λ = {lam_in:.4g} at depth {L}), over the data's D₁"),
        Claim.at_most("zero_block_network_is_the_ridge_optimum", abs(float(ev.objective[0]) - U0), 0.0,
                      "|forward-pass objective of the zero-block network − the ridge regression's closed form|",
                      kind="identity", atol=1e-12 * max(U0, 1.0)),
    ]
    floor = sandwich_floor(K, n, d, lam, lam_in, D1)
    claims.append(Claim.measurement("bias_free_sandwich_floor", floor / lower, math.nan, "a certified lower bound on "
                                    "(L*_L − L*_GUFM)/L*_GUFM for bias-free networks with this input layer, at every "
                                    "depth for a constant inner λ (λ(L) = λ₀/L: at depth L): the sandwich cannot close"))
    details.update(upper_zero_blocks=U0, gufm_excess_zero_blocks=U0 - lower, movement_max=M_max, spread_floor=delta,
                   inner_lambda=lam_in, depth=L, sandwich_floor=floor)
    return Outcome(claims=claims, details=details, converged=None, headline="optima_keep_spread")


PARAMS = (
    Param("K", int, 3, "number of classes", low=2, high=8, sample=(2, 4)),
    Param("n", int, 2, "samples per class", "n ≥ 2", low=2, high=8, sample=(2, 3)),
    Param("d0", int, 3, "input dimension (Appendix C: X ∈ R^{K×N}, zero rows beyond K)", low=1, high=64,
          sample=(4, 8)),
    Param("d", int, 8, "inner width", "d ≥ K+1 (MSE)", low=3, high=64, sample=(5, 12)),
    Param("lam", float, 0.05, "λ_L: weight decay on W_L (the GUFM's λ)", "λ_L > 0", low=1e-6, high=10.0,
          sample=(0.005, 0.5), log=True),
    Param("lam_inner", float, 0.05, "λ₀: the inner weight decay (λ₀, or λ₀/L for 'vanishing')", "λ₀ > 0",
          low=1e-6, high=10.0, sample=(0.02, 0.5), log=True),
    Param("inner_lambda", str, "constant", "'constant' (Appendix C) or 'vanishing' (λ₀/L, Theorem 4.6; a control)",
          "constant", choices=INNER_LAMBDAS),
    Param("L", int, 37, "depth (the vanishing inner λ is λ₀/L; with a constant one the certificate is the same at "
          "every depth)", low=2, high=100_000),
    Param("data", str, "appendix_c", "'appendix_c' (X = I_K ⊗ 1_nᵀ + E) or 'mixture' (generic Gaussian data)",
          choices=DATA),
    Param("data_eps", float, 0.01, "Appendix C's perturbation ε (‖E‖_F = ε√N)", "ε ≤ 0.4·λ₀ (corrected form)",
          low=1e-6, high=10.0, sample=(0.002, 0.008), log=True),
    Param("loss", str, "mse", "'mse' (Appendix C) or 'ce'", choices=LOSSES),
    seed_param("seed of the perturbation E, the input layer's draw (mixture) and the polish's starts"),
    Param("polish_restarts", int, RESTARTS, "starts of the free-block network's polish (printed form)", low=1,
          high=64),
)

COUNTEREXAMPLES = (dict(), dict(data="mixture", d0=8))  # App. C's own data, and generic data
EPS_EDGE = dict(data_eps=0.02)  # ε = 0.4·λ₀ at the hypothesis' edge for λ₀ = 0.05
BINDING = (Binding(f"ε ≤ {EPS_PER_LAMBDA}·λ₀ (Appendix C's small perturbation)", EPS_EDGE, "ε = 0.4·λ₀ = 0.02",
                   form=CORRECTED),)
CONTROLS = (
    # Theorem 4.6's regime: λ₀/L at L = 37; the certificate decays like 1/λ_in and fails
    dict(form=CORRECTED, inner_lambda="vanishing", allow_violation=True),
    # far from NC (ε = 0.3 > 0.4·λ₀): the O(ε²) gain beats the Θ(λε) cost and the certificate fails
    dict(form=CORRECTED, data_eps=0.3, allow_violation=True),
)


def _strategy():
    from ..strategies._common import declared_params

    return declared_params(ID, CORRECTED)


RESULT = register(Result(
    id=ID, paper=PAPER, section="Appendix C (why Theorem 4.6 needs a vanishing inner λ)",
    title="Appendix C (constant inner λ: the optima of L-RN2 do not approach NC): false under (11)'s θ̄ (free biases "
          "collapse at no cost); true for bias-free blocks, certified",
    statement=("With a constant regularisation λ on the inner weights of L-RN2 (objective (11) with λ(L) = λ), the "
               "global optima do not in general approach NC; e.g. for MSE on X = I_K ⊗ 1_nᵀ + E, E of size Θ(ε), "
               "moving X Θ(ε) towards NC costs Θ(λε) and gains only O(ε²)."),
    correction=("For blocks without biases and a fixed input layer (features entering the blocks at X_1 = LN(W_0X), "
                "W_0 App. C's frame map), MSE, ε ≤ 0.4·λ₀ and a constant inner λ₀: every global optimum of every "
                "depth keeps a within-class spread ≥ δ = D₁ − 4√d(U₀ − L*)/λ₀ > 0.01·D₁ (U₀ the zero-block "
                "network's objective, D₁ the largest within-class distance of X_1)."),
    correction_reason=("Objective (11) regularises θ̄, which excludes the biases: zero-weight blocks are the free maps "
                       "x ↦ LN(x + b), and 2(N − K) + 12 of them fold each class to one point and move the K points "
                       "onto the GUFM optimum at no cost, at any λ: on App. C's own data (ε = 0.01) the certified "
                       "sandwich closes to rounding at depth 19 and every global optimum there is collapsed. App. C's "
                       "bound on the movement per unit of weight norm holds only for blocks without biases."),
    status=Status.VERIFIED_CORRECTED, params=PARAMS, evaluate=one_thread(evaluate), hypotheses=hypotheses, cost=cost,
    forms=(AS_PRINTED, CORRECTED), module=__name__,
    logic=Logic(for_all="MSE, data X = I_K ⊗ 1_nᵀ + E with E of size Θ(ε) small (and 'in general'), a constant inner "
                        "λ > 0, every depth L and every global optimum of (11): its features keep a positive distance "
                        "from NC"),
    counterexamples=COUNTEREXAMPLES, binding=BINDING, controls=CONTROLS, strategy=_strategy,
))
