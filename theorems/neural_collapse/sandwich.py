"""The depth sandwich of paper 004, shared by the four depth results (ResNets and transformers, Theorems 4.3
and 4.6): at every depth L,

    lower = L*_GUFM  ≤  L*_L  ≤  U(L) = objective of the proof's explicit network (``construction``),

with trained networks in between (reported, not asserted). The excess U(L) − L*_GUFM bounds the GUFM excess
of every global optimum at depth L (its inner regularisation is ≥ 0), hence, through Lemma 4.1 made
quantitative (``lemma_4_1.nc_bounds``), its NC metrics.

The rate of the excess is judged by the proof's predicted rate r(L) (a function of depth: e.g. log²(L_2)/L_2),
fitted on the same depths by the same least squares (``metrics.scaling.fit_power_law``): the claims are

* ``excess_rate``: fitted exponent of U(L) − L* ≤ fitted exponent of r(L) (+ ``RATE_ATOL``), with the fit's
  standard error recorded;
* ``excess_local_slopes``: every local slope between consecutive depths ≤ r's local slope there (+ RATE_ATOL),
  which is what the proof's bound predicts for an excess of the form Σ_i c_i r_i(L), c_i ≥ 0, whose terms'
  slopes are each ≤ r's (module docstrings of the results derive r).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import torch

from ..core.evidence import Claim
from ..core.result import AS_PRINTED, Violation
from ..metrics.neural_collapse import both_families
from ..metrics.scaling import SCALING_KEY, fit_power_law, scaling_series  # noqa: F401 (re-exported)
from .models import PRE_LN
from .near_optimal import nc_bounds

# The excess is an exact, deterministic function of L (no noise): its local slopes differ from the predicted
# form's only by the corrections the derivation drops (sin x ≈ x in the step sizes, the fit term's O(β⁴)), well
# below 0.01 here; 0.02 is pinned by the wrong-rate control (rate_shift = −0.1, 5× outside).
RATE_ATOL = 0.02
# Objectives of networks at every depth are ≥ L*_GUFM exactly (step 1 of the proof of Theorem 4.3): rounding only.
LOWER_RTOL = 1e-10
# The forward pass lands where the construction predicts (untouched points, exact movers) up to rounding, which
# grows with the movers' scale: a pre-activation is a difference of O(α√d) numbers, and the transformer's tiny
# margins (m ~ 1e-6) make α ~ 1e6. Per block ~1e-16·(1 + α): the claim divides the landing error by
# (1 + α_max)·blocks and asks ≤ 1e-13 (observed ≲ 1e-17 for ResNets, ~1e-15 for transformers).
LANDING_PER_BLOCK = 1e-13
# Trained networks are reported, not asserted: their optimiser runs a fixed budget (a gradient certificate is out
# of reach at ReLU kinks, see depth_sweep), and this gtol only ends runs early.
TRAIN_GTOL = 1e-9
# The plateau certificate of the trained networks (optim.batched_train): a depth's runs stop when the gap to
# L*_GUFM fell by ≤ 2 % over the last window of L-BFGS iterations. The upper bound is exact whatever the status;
# the certificate says the optimiser at hand has resolved it (to ~rtol × remaining windows).
PLATEAU_RTOL = 0.02
BLOCK_PARAMS = ("W1", "b1", "W2", "b2", "Wvo", "Wqk")  # the per-block tensors (leading dimension: the blocks)


@dataclass
class Row:
    depth: int
    lower: float
    construction: float | None = None
    trained: float | None = None
    info: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {"depth": self.depth, "lower": self.lower, "trained": self.trained, "construction": self.construction}


def merge_rows(lower: float, built: dict, trained: dict) -> list[Row]:
    """One row per depth of either sweep: {depth → Built} and {depth → best trained objective}."""
    rows = []
    for L in sorted(set(built) | set(trained)):
        b = built.get(L)
        rows.append(Row(L, lower, None if b is None else b.objective, trained.get(L)))
    return rows


def certified(rows: list[Row], lower: float, loss: str, K: int, n: int, d: int, lam: float) -> list[dict]:
    """Per depth, the best certified upper bound on L*_L and what it says about every global optimum there.

    L*_L is non-increasing in L (a zero block is an exact identity and costs nothing; under (11) the inner λ(L)
    only shrinks), so every network of depth L' ≤ L, constructed or trained, bounds L*_L from above. A global
    optimum at depth L then has GUFM excess ≤ U*(L) − L*_GUFM (its inner regularisation is ≥ 0), hence NC metrics
    within Lemma 4.1's quantitative bound wherever that excess is small enough (``nc_bound``; None otherwise)."""
    out, best = [], math.inf
    for r in rows:
        best = min([best] + [v for v in (r.construction, r.trained) if v is not None])
        eps = best - lower
        out.append({"depth": r.depth, "upper": best, "excess": eps,
                    "nc_bound_of_global_optima": nc_bounds(loss, K, n, d, lam, max(eps, 0.0))})
    return out


def local_slopes(x, y) -> np.ndarray:
    lx, ly = np.log(np.asarray(x, float)), np.log(np.asarray(y, float))
    return np.diff(ly) / np.diff(lx)


def rate_claims(depths, excess, reference, what: str, shift: float = 0.0) -> tuple[list[Claim], dict]:
    """The two rate claims (module docstring) for ``excess`` against the predicted ``reference`` (same depths);
    ``shift`` < 0 asserts a deliberately faster rate (a negative control)."""
    fit = fit_power_law(depths, excess)
    ref = fit_power_law(depths, reference)
    gap = float(np.max(local_slopes(depths, excess) - local_slopes(depths, reference)))
    claims = [
        Claim.at_most("excess_rate", fit.exponent, ref.exponent + shift,
                      f"fitted exponent of U(L) − L*_GUFM (± {fit.stderr:.2g}) vs the fitted exponent "
                      f"{ref.exponent:.4g} of {what} on the same depths", atol=RATE_ATOL),
        Claim.at_most("excess_local_slopes", gap, shift,
                      f"max over consecutive depths of (local slope of U(L) − L*) − (local slope of {what})",
                      atol=RATE_ATOL),
    ]
    details = {"excess_fit": fit.to_dict(), "reference_fit": ref.to_dict(), "reference": what,
               "reference_depths": [float(x) for x in depths], "reference_values": [float(r) for r in reference],
               "local_slopes_excess": local_slopes(depths, excess).tolist(),
               "local_slopes_reference": local_slopes(depths, reference).tolist()}
    return claims, details


def sandwich_claims(rows: list[Row], lower: float, bound_scale: float) -> tuple[list[Claim], dict]:
    """``sandwich_lower`` [bound]: every constructed and trained objective ≥ L*_GUFM (× bound_scale, a control)."""
    values = [v for r in rows for v in (r.construction, r.trained) if v is not None]
    ratio = min(values) / (lower * bound_scale)
    return [Claim.at_least("sandwich_lower", ratio, 1.0,
                           "min over depths of (constructed and trained objectives) / L*_GUFM", rtol=LOWER_RTOL)], {
        "min_ratio_to_lower": ratio}


def landing_claim(built: dict) -> Claim:
    worst = max(b.landing_error / ((1 + b.extra["alpha_max"]) * b.spec.blocks) for b in built.values())
    return Claim.at_most("construction_lands_as_predicted", worst, 0.0,
                         "max over depths of ‖forward-pass features − the construction's predicted end points‖/√d, "
                         "per block and per unit of the movers' largest α", kind="identity", atol=LANDING_PER_BLOCK)


def series(rows: list[Row], reference, fit: dict | None, predicted: float, note: str) -> list[dict]:
    """``details['scaling']``: the constructed excess against depth, with its fit and the predicted exponent."""
    xs = [r.depth for r in rows if r.construction is not None]
    ys = [r.construction - r.lower for r in rows if r.construction is not None]
    return [scaling_series("depth L", xs, "U(L) − L*_GUFM (construction)", ys, fit=fit,
                           predicted=(None, predicted), predicted_note=note)]


def certified_sweep(p: dict, ctx, spec, inputs, labels, theta0, sched, lower: float, built: dict,
                    init=None) -> tuple[list[Row], dict]:
    """The certified upper bound on L*_L at every depth of ``p['train_depths']`` (module docstring, 'Certified
    upper bound'): one batched L-BFGS problem per depth (``optim.batched_train.train_to_plateau``) whose rows are
    the ``seeds`` lineages warm-started from the previous depth (padded with identity blocks), ``restarts``
    fresh random starts and, where the construction exists at that depth, the construction itself; the upper
    bound is the best exact objective among them, the construction's own and the previous depth's network with
    zero blocks appended (an exact identity). Returns the rows (depth order) and per-depth details."""
    from ..optim.batched_train import train_to_plateau
    from ..optim.lbfgs import autograd_objective
    from .models import init_params, objective, pad_with_identity_blocks, trainable_mask

    depths = sorted(p["train_depths"])
    init = init or (lambda sp, b: init_params(sp, ctx, b))
    rows, info = [], {}
    lineage, prev = None, None  # (seeds, P) trained networks of the previous depth, and (depth, θ of its best)
    for L in depths:
        sp = spec.with_depth(L)
        lam_last, lam_inner = sched(L)
        starts, sources = [], []
        if lineage is None:
            starts.append(theta0 if theta0.shape[1] == sp.size else init(sp, p["seeds"]))
            sources += ["trained (random start)"] * p["seeds"]
        else:
            starts.append(pad_with_identity_blocks(spec.with_depth(prev[0]), lineage, L, ctx=ctx))
            sources += [f"trained (warm start from depth {prev[0]})"] * lineage.shape[0]
            if p["restarts"]:
                starts.append(init(sp, p["restarts"]))
                sources += ["trained (random start)"] * p["restarts"]
        b = built.get(L)
        if b is not None and b.spec.size == sp.size:
            starts.append(b.theta.to(theta0.dtype))
            sources.append("trained (warm start from the construction)")
        x0 = torch.cat(starts)
        mask = trainable_mask(sp, device=x0.device).to(x0.dtype)
        fn = autograd_objective(lambda z, sp=sp, a=lam_last, c=lam_inner: objective(sp, z, inputs, labels, p["loss"], a, c))

        def masked(z, fn=fn, mask=mask):
            f, g = fn(z)
            return f, g * mask  # the input layer stays at its draw (models.trainable_mask)

        run = train_to_plateau(masked, x0, reference=lower, window=p["window"], rtol=PLATEAU_RTOL,
                               max_iter=p["train_iter"], gtol=TRAIN_GTOL)
        cands = [(float(f), src, i) for i, (f, src) in enumerate(zip(run.f.tolist(), sources))]
        if b is not None:
            cands.append((b.objective, "construction", None))
        if prev is not None:  # the previous depth's best network with zero blocks: the same function, no cost
            zero = pad_zero_blocks(spec.with_depth(prev[0]), prev[1], L)
            cands.append((float(objective(sp, zero, inputs, labels, p["loss"], lam_last, lam_inner)[0]),
                          f"depth {prev[0]} network with zero blocks appended", None))
        upper, source, best = min(cands, key=lambda c: c[0])
        k = int(run.f.argmin())
        rows.append(Row(L, lower, b.objective if b is not None else None, float(run.f[k]),
                        info={"upper": upper, "upper_source": source}))
        info[L] = _trained_info(p, sp, run, k, sources, lower, labels, inputs, lam_last, lam_inner)
        lineage = run.x[run.f.argsort()[:p["seeds"]]]  # the best rows go on, whatever their start
        bx = run.x[best][None] if best is not None else (zero if source.startswith("depth") else b.theta)
        prev = (L, bx.to(theta0.dtype))
    return rows, info


def pad_zero_blocks(spec, theta: torch.Tensor, L_new: int) -> torch.Tensor:
    """θ of depth ``spec.L`` → depth ``L_new`` with all-zero blocks appended (σ(0) = 0: an exact identity of the
    post-LN and pre-LN ResNets and transformers, with no inner cost)."""
    from .models import pack, unpack

    new = spec.with_depth(L_new)
    old = unpack(spec, theta)
    extra = new.blocks - spec.blocks
    parts = {}
    for name, shape, group in new.layout():
        if name in BLOCK_PARAMS:
            pad = torch.zeros(theta.shape[0], extra, *shape[1:], dtype=theta.dtype, device=theta.device)
            parts[name] = torch.cat([old[name], pad], dim=1)
        else:
            parts[name] = old[name]
    return pack(new, parts)


def _trained_info(p, sp, run, k, sources, lower, labels, inputs, lam_last, lam_inner) -> dict:
    from .models import evaluate as forward

    ev = forward(sp, run.x[k:k + 1], inputs, labels, p["loss"], lam_last, lam_inner)
    excess = float(ev.objective[0] - ev.inner_reg[0]) - lower
    nc = nc_of(ev.WL, ev.X, labels)
    return {"status": run.status[k], "certified": run.status[k] in ("gtol", "plateau"),
            "statuses": list(run.status), "sources": list(sources), "objectives": run.f.tolist(),
            "iterations": int(run.iterations[k]), "relative_drop_last_window": float(run.drop[k]),
            "gufm_excess": excess, "inner_reg": float(ev.inner_reg[0]), **nc}


def built_row(b, lower, labels) -> dict:
    """What details show of one constructed network: objective, excess, costs, margins, both NC families."""
    return {"objective": b.objective, "excess": b.objective - lower, "fit_excess": b.fit_excess,
            "inner_reg": b.inner_reg, "costs": b.costs, "L1": b.L1, "L2": b.L2, "margin": b.margin,
            "data_margin": b.data_margin, "ring_cm": b.ring, "landing_error": b.landing_error,
            "alpha_max": b.extra["alpha_max"],
            **nc_of(b.WL, b.features, labels)}


def nc_of(W: torch.Tensor, X: torch.Tensor, labels: torch.Tensor) -> dict:
    """Both NC families (Definition 3.4 and the field's) as floats, of one (W, X) or the first of a batch."""
    out = both_families(W, X, labels)
    return {k: float(v.reshape(-1)[0]) for k, v in out.items()}


def predicted_excess_note(kind: str) -> str:
    return {"rn1": "log²(L₂)/L₂ (Theorem 4.3's construction)",
            "rn2": "log(L₂)/L with λ(L) = λ₀/L (Theorem 4.6's construction)"}.get(kind, kind)


def finite(values) -> bool:
    return all(v is not None and math.isfinite(v) for v in values)


def sweep_violations(p: dict) -> list[Violation]:
    """What the depth sweeps of ResNets and transformers share: pre-LN needs a trained sweep (it has no
    construction), and the two deliberate controls (a wrong rate, a wrong L*)."""
    out = []
    if not p["train_depths"] and p["arch"] in PRE_LN:
        out.append(Violation("train_depths non-empty for pre-LN", "pre-LN variants have no construction: only the "
                             "trained sweep", ("train_depths", "arch"), bypassable=False))
    if p["rate_shift"] != 0.0:
        out.append(Violation("the predicted rate", "rate_shift ≠ 0 asserts a deliberately wrong rate (a control)",
                             ("rate_shift",)))
    if p["bound_scale"] != 1.0:
        out.append(Violation("the exact L*_GUFM", "bound_scale ≠ 1 falsifies the lower bound (a control)",
                             ("bound_scale",)))
    return out


def controls_of(specs):
    """The report's negative-control instances of a depth sweep (``allow_violation`` read off each spec)."""
    for spec in specs:
        yield AS_PRINTED, {k: v for k, v in spec.items() if k != "allow_violation"}, True
