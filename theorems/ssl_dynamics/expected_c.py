"""The expected contrastive matrix of paper 002 (text after Theorem 3): E[C̃] = −n Cov(x), not −n E[xxᵀ].

Statement as printed (Section "Theoretical Analysis", after Theorem 3)
----------------------------------------------------------------------
"… we can specialise to the situation where x⁻ is given by an independent sample and x⁺ is given by adding a noise
value ε sampled from N(0, σI), i.e. x⁺ = x + ε. Then E[C̃] = Σᵢ E[xᵢ]E[xᵢ⁻ᵀ] − E[xᵢxᵢ⁺ᵀ] = −n E[xxᵀ]. Thus E[C]
is in fact negative definite."  (C̃ = Σᵢ xᵢ(xᵢ⁻ − xᵢ⁺)ᵀ, eq. (7); the proof of Proposition 3 repeats
"E[C] = −E[xxᵀ]".)

Quantifiers and reading
-----------------------
∀ data x₁, …, x_n, ∀ σ ≥ 0: the expectation over the augmentations and the negatives. The negatives are
"independent samples" of the data set (drawn uniformly from it, as in Example 1), so the expectation is taken
conditionally on the data, E[· | X], and E[xxᵀ] is the empirical second moment XᵀX/n.
The middle expression of the display is right; the last equality drops its first term: E[xᵢ]E[xᵢ⁻]ᵀ = x̄x̄ᵀ, so
E[C̃ | X] = n x̄x̄ᵀ − XᵀX = −n Cov̂(X). The two agree only for centred data, which the paper's own half moons are not
(mean (0.5, 0.25)). The conclusion survives in the weaker form: −Cov̂ is negative semidefinite, definite iff the
centred data span R^d; and the eigenvectors Theorem 3 converges to are those of Cov̂ (linear contrastive SSL with
z = 1 is PCA), not of the second moment.

Status ``verified-corrected``: counterexample the paper's half moons (the default instance in the printed form,
n = 200): the Monte-Carlo mean of C/n over 2000 resamplings of (x⁺, x⁻) is 197 standard errors from −XᵀX/n and within
1.1 of −Cov̂(X) (the corrected form, also where n = d + 1 makes Cov̂ barely definite, the binding instance).

What one check does
-------------------
``resamples`` draws of (x⁺, x⁻) for the fixed data, batched into one (R, n, d) tensor; C = sym(C̃)/n per draw.
* ``expectation`` (bound): max over entries of |mean of C − formula| / standard error ≤ Z_TOL, with the formula
  −XᵀX/n (printed) or −Cov̂(X) (corrected). Negative controls: a biased augmentation ε ~ N(m, σ²I) (``noise_mean``,
  a hypothesis violation: E[xεᵀ] = x̄mᵀ ≠ 0) and ``formula_scale`` = 1.01 (a wrong constant, 6.1 SE: just outside Z_TOL).
* measurements: λ_max of the formula (< 0: negative definite) and |cos| between the top eigenvectors of Cov̂ and of
  XᵀX/n (what Theorem 3's q converges to under each formula).
"""

from __future__ import annotations

import math

import torch

from ..core.evidence import Claim
from ..core.registry import register
from ..core.result import (AS_PRINTED, CORRECTED, Binding, Cost, Logic, Outcome, Param, Result, Status, Violation,
                           seed_param)
from ..core.result import Pin
from ..data.ssl_pairs import gaussian_data, make_moons
from ..optim.threads import one_thread
from ..rigorous.ssl_dynamics import check_expected_c
from .paper import PAPER
from .trace_form import sym

ID = "ssl_dynamics.expected_c"
DATA = ("moons", "gaussian")
# Entry-wise z-scores of a Monte-Carlo mean over ≥ 1000 resamplings: 5 standard errors leave a family-wise level
# of ~d²·6e-7 (normal tails).
Z_TOL = 5.0


def _data(p, ctx):
    if p["data"] == "moons":
        X = make_moons(ctx, p["n"], 0.05)
    else:
        d = p["d"]
        X = gaussian_data(ctx, p["n"], [4.0 * 0.5**k for k in range(d)])  # 4, 2, 1, ½, … (the Gaussian data's)
    return X + p["shift"]


def resampled_C(ctx, X, R, sigma2, noise_mean):
    """C = sym(Xᵀ(X⁻ − X⁺))/n for R independent draws of x⁺ = x + ε and of negatives drawn uniformly from X."""
    n, d = X.shape
    pos = X + noise_mean + math.sqrt(sigma2) * ctx.randn(R, n, d)
    idx = torch.randint(0, n, (R, n), generator=ctx.generator, device="cpu").to(X.device)
    return sym(X.T @ (X[idx] - pos) / n)


@one_thread
def evaluate(p: dict, form: str, ctx) -> Outcome:
    X = _data(p, ctx)
    n = X.shape[0]
    Cs = resampled_C(ctx, X, p["resamples"], p["sigma2"], p["noise_mean"])
    mean, se = Cs.mean(0), Cs.std(0) / math.sqrt(p["resamples"])
    Xc = X - X.mean(0)
    cov, second = Xc.T @ Xc / n, X.T @ X / n
    formula = -p["formula_scale"] * (second if form == AS_PRINTED else cov)
    # −Cov̂(X) a second time, exactly: E[C̃ | X]/n = x̄x̄ᵀ − XᵀX/n in rationals (a disagreement is a SuiteError)
    exact_gap = check_expected_c(X.tolist(), (-cov).tolist()) if p["noise_mean"] == 0 else math.nan
    z = float(((mean - formula).abs() / se.clamp_min(1e-300)).max())
    top_cov, top_second = torch.linalg.eigh(cov)[1][:, -1], torch.linalg.eigh(second)[1][:, -1]
    claims = [
        Claim.at_most("expectation", z, 0.0,
                      f"max entry |mean of C/n − ({'−XᵀX/n' if form == AS_PRINTED else '−Cov̂(X)'})| in standard errors "
                      f"({p['resamples']} resamplings)", atol=Z_TOL,
                      n_draws=p["resamples"], stderr=1.0),  # a z-score: in units of its standard error
        Claim.measurement("lambda_max_of_formula", float(torch.linalg.eigvalsh(formula)[-1]), 0.0,
                          "largest eigenvalue of the formula (< 0: negative definite)"),
        Claim.measurement("top_eigenvectors_cos", float((top_cov @ top_second).abs()), 1.0,
                          "|cos| between the top eigenvectors of Cov̂ and XᵀX/n (what Theorem 3 converges to)"),
    ]
    details = {"mean_C": mean.tolist(), "standard_error": se.tolist(), "minus_covariance": (-cov).tolist(),
               "minus_second_moment": (-second).tolist(), "data_mean": X.mean(0).tolist(),
               "minus_covariance_vs_exact_rel": exact_gap,
               "z_against_covariance": float(((mean + cov).abs() / se.clamp_min(1e-300)).max()),
               "z_against_second_moment": float(((mean + second).abs() / se.clamp_min(1e-300)).max())}
    return Outcome(claims=claims, details=details)


def hypotheses(p: dict, form: str) -> list[Violation]:
    out = []
    if p["data"] == "moons" and p["d"] != 2:
        out.append(Violation("d = 2 for half moons", f"d = {p['d']}", ("d", "data"), bypassable=False))
    return out


def cost(p: dict) -> Cost:
    """``resamples`` draws of (x⁺, x⁻), each n × d, and their d × d products, in one batch."""
    size = p["resamples"] * p["n"] * p["d"]
    return Cost(elements=4 * size, work=4 * size * p["d"])


BINDING_FEW = dict(n=3)  # n = d + 1: the smallest sample whose centred data can span R², Cov̂ barely definite
PIN_SCALE = 1.01  # 1% of Cov̂ is 6.1 standard errors at the default size: just outside Z_TOL


def report_instances(suite):
    yield CORRECTED, dict(), False
    yield CORRECTED, BINDING_FEW, False
    yield CORRECTED, dict(data="gaussian", d=4, n=300), False
    yield AS_PRINTED, dict(), False
    yield AS_PRINTED, dict(shift=-0.5, data="gaussian", d=3), False
    yield CORRECTED, dict(noise_mean=0.2), True
    yield CORRECTED, dict(formula_scale=PIN_SCALE), True


def _strategy():
    from ..strategies import declared_params

    return declared_params(ID, CORRECTED)


RESULT = register(Result(
    id=ID, paper=PAPER, section="Section 'Theoretical Analysis', the expectation of C̃ after Theorem 3",
    title="E[C̃] = −n Cov(x), not −n E[xxᵀ] (text after Theorem 3)",
    statement="With x⁻ an independent sample and x⁺ = x + ε, ε ~ N(0, σI): E[C̃] = Σᵢ E[xᵢ]E[xᵢ⁻ᵀ] − E[xᵢxᵢ⁺ᵀ] = "
              "−n E[xxᵀ]; thus E[C] is negative definite.",
    correction="E[C̃ | X] = n x̄x̄ᵀ − XᵀX = −n Cov̂(X): negative semidefinite, definite iff the centred data span R^d; "
               "it equals −n E[xxᵀ] only for centred data.",
    correction_reason="The display's middle term E[xᵢ]E[xᵢ⁻]ᵀ = x̄x̄ᵀ is dropped in the last equality; the half moons of "
                      "Example 1 have mean (0.5, 0.25).",
    status=Status.VERIFIED_CORRECTED,
    logic=Logic(for_all="every data set x₁, …, x_n and σ ≥ 0 (expectation over augmentations and negatives drawn "
                        "from the data)"),
    counterexamples=(dict(),),
    binding=(Binding("n > d (Cov̂ definite)", BINDING_FEW, "n = 3 = d + 1"),),
    controls=(dict(noise_mean=0.2, allow_violation=True), dict(formula_scale=PIN_SCALE, allow_violation=True),
              dict(form="as_printed")),
    strategy=_strategy,
    params=(
        Param("data", str, "moons", "half moons (Example 1) or Gaussian with covariance 4·2^{-k}", choices=DATA,
              sample=DATA),
        Param("d", int, 2, "dimension (Gaussian data; 2 for moons)", low=1, high=64, sample=(1, 5)),
        Param("n", int, 200, "anchors", low=2, high=20_000, sample=(3, 400)),
        Param("shift", float, 0.0, "translation added to every data point", low=-1e3, high=1e3, sample=(-3.0, 3.0)),
        Param("sigma2", float, 0.1, "variance σ of the augmentation noise", low=0.0, high=1e3, sample=(0.0, 1.0)),
        Param("resamples", int, 2000, "resamplings of (x⁺, x⁻), batched", low=100, high=1_000_000,
              sample=(500, 2000)),
        Param("noise_mean", float, 0.0, "mean of the augmentation noise ε (≠ 0: not ε ~ N(0, σI), a control)", "= 0",
              low=-1e3, high=1e3, breaks="ε ~ N(0, σI): zero-mean augmentation noise"),
        Param("formula_scale", float, 1.0, "multiplies the formula (≠ 1: a deliberately wrong constant, control)",
              "= 1", low=-1e3, high=1e3, breaks="the formula itself"),
        seed_param(),
    ),
    cost=cost, evaluate=evaluate, hypotheses=hypotheses, forms=(AS_PRINTED, CORRECTED), report_instances=report_instances,
    module=__name__,
    pins=(
        Pin("expectation", "formula_scale", fails=1.01, within=10, params=dict(allow_violation=True), reported=True),
    ),
))
