"""Weyl's eigenvalue inequality, and a misprint of its ordering convention.

Statement (Weyl 1912; Horn & Johnson, Matrix Analysis, Theorem 4.3.1), with the eigenvalues of a real symmetric
(Hermitian) matrix M listed in **decreasing** order λ_1(M) ≥ … ≥ λ_n(M):

    For real symmetric A, B ∈ ℝⁿˣⁿ and indices i, j ≥ 1 with i + j − 1 ≤ n,
        λ_{i+j−1}(A + B) ≤ λ_i(A) + λ_j(B).

As printed here (the deliberate misprint this example refutes): the same inequality with the eigenvalues listed
in **increasing** order λ_1 ≤ … ≤ λ_n. A convention slip of this kind is common (texts differ on the order); it
turns the statement false: at i = j = 1 it would say λ_min(A + B) ≤ λ_min(A) + λ_min(B), while the true
inequality runs the other way (λ_min is concave) and is strict unless the bottom eigenvectors of A and B align.

Instance: A is a symmetric Gaussian matrix (GOE scaling) of size n; B = (1 − c)·G + c·Q diag(μ) Qᵀ, where G is
another symmetric Gaussian matrix, μ its eigenvalues and Q the eigenvectors of A, ordered alike: at c = 1 the
two matrices commute with co-ordered eigenvectors and the inequality is attained (λ_1(A + B) = λ_1(A) + λ_1(B)),
the instance where it binds. The check takes every pair (i, j) with i + j − 1 ≤ n at once and asserts the
tightest one, eigenvalues from one symmetric eigensolver call per matrix (exact up to rounding).

The misprint's counterexample was found by the search :func:`search_counterexample` (the most negative slack
over seeds and couplings) and is registered for replay; the tests run the search again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from theorems.core.registry import register
from theorems.core.result import (AS_PRINTED, CORRECTED, Binding, Cost, Logic, Outcome, Param, Result, Status,
                                  Violation, declared_instances, seed_param)

from .paper import PAPER

if TYPE_CHECKING:  # torch and numpy (via Claim) load where something is computed: `list` and `show` stay instant
    import torch

RESULT_ID = "weyl.eigenvalue_inequality"

# A symmetric eigensolver is backward stable: each computed eigenvalue is exact for a matrix within about
# n·ε·‖M‖₂ of M, so both sides are within ~3n·ε·(‖A‖₂ + ‖B‖₂) of exact. The tolerance below is that scale
# with room (ε = 2.2e-16, n ≤ 512: 3nε ≤ 3.4e-13), as a multiple of ‖A‖₂ + ‖B‖₂ (an absolute tolerance on a
# bound that may be zero). The control SHIFT_PINNED (1e-9) sits just outside it.
SCALE_TOL = 1e-12

PARAMS = (
    Param("n", int, 6, "matrix size", valid="n ≥ 1", low=1, high=512, sample=(1, 24)),
    Param("coupling", float, 0.0, "c: B = (1 − c)·G + c·(G's spectrum on A's eigenvectors, co-ordered); "
          "1 attains the inequality", low=0.0, high=1.0, sample=(0.0, 1.0)),
    Param("bound_shift", float, 0.0, "subtracts bound_shift·(‖A‖₂ + ‖B‖₂) from the right-hand side; ≠ 0 is a "
          "deliberately wrong bound", valid="= 0", low=0.0, high=10.0, role="control"),
    seed_param(),
)


def hypotheses(p: dict, form: str) -> list[Violation]:
    if p["bound_shift"] != 0.0:
        return [Violation("the bound as stated", "bound_shift ≠ 0 lowers the right-hand side (a negative control)",
                          ("bound_shift",))]
    return []


def cost(p: dict) -> Cost:
    n = p["n"]
    return Cost(elements=8.0 * n * n + n ** 3 / 4, work=40.0 * n ** 3)


def matrices(p: dict, ctx) -> tuple[torch.Tensor, torch.Tensor]:
    """A and B of the module docstring, seeded, on ``ctx.device``."""
    import torch

    n, c = p["n"], p["coupling"]

    def goe() -> torch.Tensor:
        X = ctx.randn(n, n)
        return (X + X.T) / (2 * n) ** 0.5

    A, G = goe(), goe()
    _, Q = torch.linalg.eigh(A)  # ascending, like μ below: co-ordered
    mu = torch.linalg.eigvalsh(G)
    return A, (1 - c) * G + c * (Q * mu) @ Q.T


def pair_slacks(A: torch.Tensor, B: torch.Tensor, form: str) -> tuple[torch.Tensor, torch.Tensor]:
    """(lhs, rhs), each (n, n) with NaN outside i + j − 1 ≤ n: λ_{i+j−1}(A + B) and λ_i(A) + λ_j(B), the
    eigenvalues ordered as ``form`` says (decreasing when corrected, increasing as printed)."""
    import torch

    descending = form == CORRECTED
    lam = [torch.linalg.eigvalsh(M) for M in (A + B, A, B)]  # ascending
    if descending:
        lam = [v.flip(0) for v in lam]
    ab, a, b = lam
    n = a.shape[0]
    i = torch.arange(n, device=a.device)
    k = i[:, None] + i[None, :]  # 0-based i + j − 1
    valid = k < n
    lhs = torch.where(valid, ab[k.clamp(max=n - 1)], torch.full_like(ab[k.clamp(max=n - 1)], float("nan")))
    rhs = torch.where(valid, a[:, None] + b[None, :], torch.full_like(lhs, float("nan")))
    return lhs, rhs


def evaluate(p: dict, form: str, ctx) -> Outcome:
    import torch

    from theorems.core.evidence import Claim

    A, B = matrices(p, ctx)
    lhs, rhs = pair_slacks(A, B, form)
    scale = float(torch.linalg.matrix_norm(A, 2) + torch.linalg.matrix_norm(B, 2))
    gap = torch.nan_to_num(lhs - rhs, nan=-float("inf"))
    flat = int(gap.argmax())
    i, j = divmod(flat, gap.shape[1])
    claims = [
        Claim.at_most("weyl", float(lhs[i, j]), float(rhs[i, j]) - p["bound_shift"] * scale,
                      f"λ_{{i+j−1}}(A+B) ≤ λ_i(A) + λ_j(B) at the tightest pair (i, j) = ({i + 1}, {j + 1}) of "
                      f"{int(torch.isfinite(lhs).sum())}, eigenvalues in "
                      f"{'decreasing' if form == CORRECTED else 'increasing'} order", atol=SCALE_TOL * scale),
        # λ_1 + … + λ_n is the trace: tr(A + B) = tr A + tr B, whatever the order (a test of the eigensolver call).
        Claim.close("trace", float(torch.linalg.eigvalsh(A + B).sum()),
                    float(torch.linalg.eigvalsh(A).sum() + torch.linalg.eigvalsh(B).sum()),
                    "the eigenvalues of A + B sum to those of A and B", kind="identity", atol=SCALE_TOL * scale),
    ]
    return Outcome(claims=claims, details={"tightest_pair": [i + 1, j + 1], "norm_scale": scale},
                   headline="weyl")


def search_counterexample(seeds: range = range(8), couplings=(0.0, 0.25, 0.5, 0.75, 1.0), n: int = 6) -> dict:
    """The instance of the printed form that breaks it most over ``seeds`` × ``couplings`` (the excess of the
    left-hand side over the right, in units of ‖A‖₂ + ‖B‖₂: the relative slack is clipped at −1, so it cannot rank
    failures): a search, so that the counterexample is the worst one found rather than the first draw that fails."""
    from theorems import check

    best, most = None, 0.0
    for seed in seeds:
        for c in couplings:
            params = dict(n=n, coupling=c, seed=seed)
            ev = check(RESULT_ID, form=AS_PRINTED, **params)
            claim = ev.claim("weyl")
            excess = (claim.observed - claim.bound) / ev.details["norm_scale"]
            if excess > most:
                best, most = params, excess
    if best is None:
        raise AssertionError("no instance searched breaks the printed form")
    return best


# Found by search_counterexample() (tests/test_weyl.py runs it again and replays this).
COUNTEREXAMPLE = dict(n=6, coupling=1.0, seed=1)
ATTAINED = dict(coupling=1.0)  # commuting, co-ordered: λ_1(A + B) = λ_1(A) + λ_1(B)
SHIFT_PINNED = dict(ATTAINED, bound_shift=1e-9, allow_violation=True)  # just outside SCALE_TOL


def _strategy():
    from theorems.strategies import declared_params  # hypothesis: a test extra

    return declared_params(RESULT_ID)


RESULT = register(Result(
    id=RESULT_ID,
    paper=PAPER,
    section="§1 (Weyl's inequalities for the eigenvalues of a sum)",
    title="Weyl's inequality λ_{i+j−1}(A+B) ≤ λ_i(A) + λ_j(B): true in decreasing order, false as misprinted "
          "in increasing order",
    statement="For real symmetric A, B ∈ ℝⁿˣⁿ, with eigenvalues in increasing order λ_1 ≤ … ≤ λ_n, and i + j − 1 ≤ "
              "n: λ_{i+j−1}(A + B) ≤ λ_i(A) + λ_j(B).",
    correction="The eigenvalues in decreasing order λ_1 ≥ … ≥ λ_n: λ_{i+j−1}(A + B) ≤ λ_i(A) + λ_j(B).",
    correction_reason="In increasing order the case i = j = 1 reads λ_min(A + B) ≤ λ_min(A) + λ_min(B), the reverse "
                      "of the true inequality (λ_min is concave), strict unless the bottom eigenvectors align.",
    status=Status.VERIFIED_CORRECTED,
    logic=Logic(for_all="n ≥ 1, real symmetric A, B ∈ ℝⁿˣⁿ and i, j ≥ 1 with i + j − 1 ≤ n"),
    params=PARAMS,
    evaluate=evaluate,
    hypotheses=hypotheses,
    cost=cost,
    forms=(AS_PRINTED, CORRECTED),
    counterexamples=(COUNTEREXAMPLE,),
    binding=(Binding("λ_{i+j−1}(A+B) ≤ λ_i(A) + λ_j(B) attained", ATTAINED,
                     "c = 1: A and B commute with co-ordered eigenvectors, equality at (i, j) = (1, 1)"),),
    controls=(SHIFT_PINNED, dict(ATTAINED, bound_shift=0.1, allow_violation=True)),
    strategy=_strategy,
    report_instances=lambda suite: declared_instances(RESULT, suite, form=CORRECTED),
    module=__name__,
))
