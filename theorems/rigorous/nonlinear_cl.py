"""Paper 001 (Tian, nonlinear contrastive learning): the registered counterexamples in exact rationals or Arb balls.

* Theorem 2 (uniform disk of radius C₀, d = 2): ρ = 𝔼[ReLU(wᵀx)]·∫_ℝ r²p(rt)dr = (2C₀/(3π))² exactly (both factors
  are 2C₀/(3π): polynomial integrals over the disk), against the printed C₀³·vol(C₀)·r/π = C₀³/π, in Arb.
* The Remark after Theorem 6: P[E_l] = ½∫₀¹ Π_{l'≠l} F(y + ε_l − ε_l') dy with F the U[−1, 1] CDF is a piecewise
  polynomial integral: evaluated exactly in rationals (pieces split at the kinks y = ±1 − δ), at the recorded ε.
* Lemma 7: one power-iteration step at the recorded (A(w(t)), w(t)). The eigenvalues of the (exactly symmetrised)
  matrix are the roots of its exact characteristic polynomial, enclosed by flint; with φ₁φ₁ᵀ = Π_{j≠1}(A − λ_j)/(λ₁ − λ_j)
  and the sign of φ₁ chosen so that c = φ₁ᵀw > 0 (App. B.4): c² = wᵀφ₁φ₁ᵀw, d = φ₁ᵀAw/‖Aw‖ = λ₁c/‖Aw‖, all in Arb.
  The lemma quantifies over every A(·), so the recorded matrix is an admissible instance as it stands.
"""

from __future__ import annotations

from fractions import Fraction
from functools import reduce
from typing import Any, Mapping

from flint import arb, arb_mat, fmpq_mat

from ..core.errors import SuiteError
from .arith import NotDecided, ball, enclosure, exact, fname, need, q, rigorous

# -- Theorem 2 --------------------------------------------------------------------------------------------------------
def _theorem_2_point(params: Mapping[str, Any], details: Mapping[str, Any]) -> dict:
    need(params.get("profile", "uniform") == "uniform" and params.get("bound_radius_scale", 1.0) == 1.0,
         "the uniform disk, the bound at the support radius")
    return {"C0": params["C0"]}


@rigorous("nonlinear_cl.theorem_2", "roughness_below_printed_bound", _theorem_2_point)
def theorem_2_uniform_disk(point: dict):
    """ρ(w_*) on the uniform disk of radius C₀ against the printed C₀³·vol(C₀)·r/π."""
    C = ball(point["C0"])
    need(bool(C > 0), "C₀ > 0")
    pi = arb.pi()
    g0 = 1 / (pi * C * C)  # the density on the disk; r(w, α) = max over the line wᵀx = 0 = g(0)
    relu_mean = 2 * C**3 / 3 * g0  # ∫_{−π/2}^{π/2}∫₀^C r cos φ · r dr dφ · g
    line = 2 * C**3 / 3 * g0  # ∫_{−C}^{C} r² g dr
    rho = relu_mean * line
    bound = C**3 * (pi * C * C) * g0 / pi
    return enclosure(rho, bound, "<=", "exact 2-D formula ρ = 𝔼[ReLU(wᵀx)]·∫r²p(rt)dr on the uniform disk, = "
                     "(2C₀/(3π))², in Arb; printed bound C₀³·vol(C₀)·r/π = C₀³/π in Arb", fname(theorem_2_uniform_disk),
                     point)


# -- Remark after Theorem 6 -----------------------------------------------------------------------------------------
Poly = list  # coefficients, lowest degree first (Fractions)


def _mul(a: Poly, b: Poly) -> Poly:
    out = [Fraction(0)] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            out[i + j] += x * y
    return out


def _integral(p: Poly, a: Fraction, b: Fraction) -> Fraction:
    return sum((c * (b ** (k + 1) - a ** (k + 1)) / (k + 1) for k, c in enumerate(p)), Fraction(0))


def event_probability(delta: list[Fraction]) -> Fraction:
    """P[Y > 0, Y + δ_j ≥ Y_j ∀j] = ½∫₀¹ Π_j F(y + δ_j) dy for Y, Y_j i.i.d. U[−1, 1], exactly (eq. 154)."""
    cuts = {Fraction(0), Fraction(1)}
    for dj in delta:
        cuts |= {c for c in (-1 - dj, 1 - dj) if 0 < c < 1}
    ends = sorted(cuts)
    total = Fraction(0)
    for a, b in zip(ends, ends[1:], strict=False):
        mid = (a + b) / 2
        poly: Poly = [Fraction(1)]
        for dj in delta:
            x = mid + dj
            if x <= -1:
                poly = [Fraction(0)]
                break
            if x < 1:
                poly = _mul(poly, [(dj + 1) / 2, Fraction(1, 2)])  # F(y + δ) = (y + δ + 1)/2 on the piece
        total += _integral(poly, a, b)
    return total / 2


# The exact integrals cost O(d³) polynomial products of growing rationals per probability: beyond this many
# components the replay declines (the registered counterexamples have d ≤ 6).
MAX_EXACT_D = 12
# Screens on the float numbers of the evidence before any exact work: the replay only certifies failures.
SCREEN_RTOL = 1e-9


def _special_point(params: Mapping[str, Any], details: Mapping[str, Any]) -> dict:
    need(params.get("dist", "uniform") == "uniform" and params.get("bound_scale", 1.0) == 1.0,
         "Y_l ~ U[−1, 1] i.i.d., the bound as printed")
    need(int(params["d"]) <= MAX_EXACT_D, f"d ≤ {MAX_EXACT_D} (the exact integral's cost)")
    eps = float(details["worst_positive_eps"])
    P = details["P_quadrature"][details["eps_grid"].index(details["worst_positive_eps"])]
    need(P / (eps / 2) < 1 - SCREEN_RTOL, "the float evidence fails the claim (screen)")
    return {"eps": details["worst_positive_eps"], "d": int(params["d"])}


@rigorous("nonlinear_cl.theorem_6_remark", "positive_modulation", _special_point)
def theorem_6_remark_positive_modulation(point: dict):
    """"ε_l > 0 gives P[E_l] ≥ ε_l/2": P[E_l]/(ε/2) at the recorded worst ε, exactly."""
    eps, d = exact(point["eps"]), int(point["d"])
    need(eps > 0 and d >= 2, "ε > 0, d ≥ 2")
    P = event_probability([eps] * (d - 1))
    return enclosure(P / (eps / 2), 1, ">=", "exact piecewise-polynomial integral of eq. (154) at the recorded ε "
                     "(the claim's min over the ε grid is at most this); bound moved by the claim's BOUND_RTOL",
                     fname(theorem_6_remark_positive_modulation), point, allowance=Fraction(1, 10**12))


def _general_point_of(claim: str):
    def point_of(params: Mapping[str, Any], details: Mapping[str, Any]) -> dict:
        need(params.get("dist", "uniform") == "uniform", "Y_l ~ U[−1, 1] i.i.d.")
        need(len(details["eps_general"]) <= MAX_EXACT_D, f"d ≤ {MAX_EXACT_D} (the exact integrals' cost)")
        P, e = details["P_general"], details["eps_general"]
        if claim == "general_top_156":
            need(P[0] < (e[0] - e[1]) / 2 * (1 - SCREEN_RTOL), "the float evidence fails the claim (screen)")
        else:
            need(max(p - b for p, b in zip(P[1:], details["bound_157"], strict=True)) > 0, "the float evidence fails the claim")
        return {"eps": e}
    return point_of


def _general(eps_sorted: list[Fraction]) -> tuple[list[Fraction], list[Fraction]]:
    """(P[E_c(r)] for r = 1..d, the printed (157) bound for r = 2..d), exactly."""
    d = len(eps_sorted)
    P = [event_probability([eps_sorted[r] - eps_sorted[j] for j in range(d) if j != r]) for r in range(d)]
    bound = []
    for r in range(1, d):
        terms = [(1 - (eps_sorted[rp] - eps_sorted[r]) / 2) ** (rp + 2) / (rp + 2) for rp in range(r)]
        bound.append(min(terms))
    return P, bound


def _sorted_eps(point: dict) -> list[Fraction]:
    return sorted((exact(x) for x in point["eps"]), reverse=True)


@rigorous("nonlinear_cl.theorem_6_remark", "general_top_156", _general_point_of("general_top_156"))
def theorem_6_remark_top(point: dict):
    """(156): P[E_c(1)] ≥ ½(ε_c(1) − ε_c(2)), exactly at the recorded ε."""
    e = _sorted_eps(point)
    P, _ = _general(e)
    return enclosure(P[0], (e[0] - e[1]) / 2, ">=", "exact piecewise-polynomial integral of P[E_c(1)] at the "
                     "recorded ε (exact rationals of the binary64 values)", fname(theorem_6_remark_top), point)


@rigorous("nonlinear_cl.theorem_6_remark", "general_rank_157", _general_point_of("general_rank_157"))
def theorem_6_remark_rank(point: dict):
    """(157): max over r ≥ 2 of P[E_c(r)] − min_{r'<r}(1/(r'+1))(1 − (ε_c(r') − ε_c(r))/2)^{r'+1} ≤ 0, exactly."""
    e = _sorted_eps(point)
    P, bound = _general(e)
    worst = max(P[r] - bound[r - 1] for r in range(1, len(e)))
    return enclosure(worst, 0, "<=", "exact rationals: P[E_c(r)] by the piecewise-polynomial integral, the printed "
                     "(157) bound, their largest difference; bound moved by the claim's QUAD_ATOL",
                     fname(theorem_6_remark_rank), point, allowance=Fraction(1, 10**12))


# -- Lemma 7 ------------------------------------------------------------------------------------------------------------
def _lemma_7_point(params: Mapping[str, Any], details: Mapping[str, Any]) -> dict:
    need(params.get("bound_scale", 1.0) == 1.0, "the bound as printed")
    return {"A": details["worst_step_A"], "w": details["worst_step_w"]}


def eigenvalues_desc(M: list[list[Fraction]]) -> list[arb]:
    """The eigenvalues of a symmetric rational matrix, descending, as disjoint Arb balls (NotDecided otherwise)."""
    n = len(M)
    poly = fmpq_mat(n, n, [q(x) for row in M for x in row]).charpoly()
    roots = []
    for z, mult in poly.complex_roots():
        need(mult == 1, "simple eigenvalues")
        need(z.imag.contains(0), "real eigenvalues")
        roots.append(z.real)
    roots.sort(key=lambda r: float(r.mid()), reverse=True)
    need(all(bool(a > b) for a, b in zip(roots, roots[1:], strict=False)), "eigenvalue enclosures that do not overlap")
    return roots


@rigorous("nonlinear_cl.lemma_7", "one_minus_d_bound", _lemma_7_point)
def lemma_7_step(point: dict):
    """1 − d_t ≤ μ_t(1 − c_t) at the recorded step, with λ₁ > 0 and c_t > 0 (the printed hypotheses)."""
    raw = [[exact(x) for x in row] for row in point["A"]]
    n = len(raw)
    S = [[(raw[i][j] + raw[j][i]) / 2 for j in range(n)] for i in range(n)]  # symmetric (φ_i orthonormal)
    lam = eigenvalues_desc(S)
    A = arb_mat([[ball(x) for x in row] for row in S])
    w = [ball(x) for x in point["w"]]
    norm = sum((x * x for x in w), arb(0)).sqrt()
    need(bool(norm > 0), "w ≠ 0")
    W = arb_mat([[x / norm] for x in w])
    eye = arb_mat([[arb(1) if i == j else arb(0) for j in range(n)] for i in range(n)])
    proj = reduce(lambda P, j: P * (A - lam[j] * eye) / (lam[0] - lam[j]), range(1, n), eye)
    c2 = (W.transpose() * proj * W)[0, 0]
    need(bool(lam[0] > 0), "λ₁(t) > 0")
    need(bool(c2 > 0), "c_t > 0 (φ₁'s sign chosen by App. B.4)")
    c = c2.sqrt()
    Aw = A * W
    d = lam[0] * c / sum((Aw[i, 0] ** 2 for i in range(n)), arb(0)).sqrt()
    mu = (1 + c) / (2 * c2) * (lam[1] / lam[0]) ** 2
    ratio = (1 - d) / (mu * (1 - c))
    return enclosure(ratio, 1, "<=", "eigenvalues as the roots of the exact characteristic polynomial of the recorded "
                     "A(w(t)) (exactly symmetrised), φ₁φ₁ᵀ = Π_{j≠1}(A − λ_j)/(λ₁ − λ_j), c = √(wᵀφ₁φ₁ᵀw), "
                     "d = λ₁c/‖Aw‖, μ = (1+c)/(2c²)(λ₂/λ₁)², all in Arb; bound moved by the claim's RTOL",
                     fname(lemma_7_step), point, allowance=Fraction(1, 10**8))


# -- Example (9): the threshold (3 − √5)/2, a second time (issue 41, item 4) --------------------------------------------
def lme_exact(q_value: float) -> bool:
    """u_m is an LME iff λ_gap = 1 − 3q + q² > 0 with q < 1, i.e. q < (3 − √5)/2: decided exactly for the
    binary64 q (its rational value), without √5."""
    qq = exact(q_value)
    return 1 - 3 * qq + qq * qq > 0 and qq < 1


def check_lme_threshold(q_value: float, float_decision: bool) -> None:
    """The float decision q < (3 − √5)/2 against the exact sign of 1 − 3q + q²: SuiteError on disagreement."""
    if bool(float_decision) != lme_exact(q_value):
        raise SuiteError(f"example (9): the float test q < (3 − √5)/2 says {bool(float_decision)} at q = {q_value!r}, "
                         f"the exact sign of 1 − 3q + q² says {lme_exact(q_value)}")


__all__ = ["NotDecided", "check_lme_threshold", "event_probability", "lme_exact"]
