"""Paper 002 (SSL dynamics): the registered counterexamples in exact rationals or Arb balls.

* Proposition 1 and Remark 3 (linear model, explicit C): gradient descent on Tr(ΘCΘᵀ) is Θ_K = Θ₀(I − 2ηC)^K, and
  with a projector A of orthonormal rows (AAᵀ = I exactly) the output U = AΘ follows U_K = U₀(I − 2ηC)^K. The K-th
  power is taken in Arb by repeated squaring from the recorded Θ₀ (U₀), and σ₂/σ₁ of the result from the certified
  eigenvalues of UUᵀ; the long-run limit (C diagonal: U₀ restricted to the λ₁-eigenspace) is required to be as far
  from rank one, so the failure is not an artefact of the horizon.
* Proposition 3 (h = d): problem (4)'s optimum is exactly the sum of the z smallest eigenvalues (W₁ square orthogonal:
  W₁CW₁ᵀ has spectrum spec(C) for every feasible W₁; Ky Fan), problem (2) has the feasible point W₁ = I, W₂ = the
  min(z, ℓ) most negative eigen-directions, whose value (an upper bound on (2)'s optimum) is exact; (4) > (2).
* Theorem 3: two invariants of (10), no integration. {e₁ᵀq = 0} is invariant and so is the unit ball (d‖q‖²/dt =
  −8(1 − ‖q‖²)qᵀΛq), so from e₁ᵀq₀ = 0, ‖q₀‖ ≤ 1 the distance of q(t) from ±e₁ is √(1 + ‖q(t)‖²) ∈ [1, √2] for
  every t; and the unit sphere is invariant, so a network start with h = d (‖q₀‖ = ‖W₂‖ = 1) keeps ‖q(t)‖ = 1.
* Remark 2: InfoNCE's Hessian at the recorded point and data in Arb; a cross-row block there refutes "InfoNCE
  decouples the output dimensions" by rotation invariance alone (the point need not be a minimiser).
* The text after Theorem 3 (``expected_c``): E[C̃ | X]/n = x̄x̄ᵀ − XᵀX/n exactly (E[x⁻] = x̄, E[x⁺] = x), a second
  implementation of the float −Cov̂(X) (issue 41, item 4). The registered counterexample itself rests on Monte Carlo
  (a z-score over resamplings): statistical, not replayed here.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping

from flint import acb_mat, arb, arb_mat

from ..core.errors import SuiteError
from .arith import ball, enclosure, exact, fname, need, parse_matrix, rigorous

RANK_ONE_TOL = Fraction(1, 10**6)  # proposition_1 / remark_3: the claims' atol (σ₂/σ₁ ≤ 1e-6 counts as rank one)
LIMIT_TOL = Fraction(1, 10**6)  # theorem_3.LIMIT_TOL


def _power(M: arb_mat, K: int) -> arb_mat:
    n = M.nrows()
    out = arb_mat([[arb(1) if i == j else arb(0) for j in range(n)] for i in range(n)])
    base = M
    while K:
        if K & 1:
            out = out * base
        base = base * base
        K >>= 1
    return out


def top_two_singular_ratio(U: arb_mat) -> arb:
    """σ₂/σ₁ of U from the certified eigenvalues of UUᵀ (or UᵀU, the smaller), normalised by its largest entry."""
    G = U * U.transpose() if U.nrows() <= U.ncols() else U.transpose() * U
    n = G.nrows()
    if n < 2:  # one row or one column: rank one, σ₂ = 0 exactly
        return arb(0)
    scale = max((abs(G[i, i]) for i in range(n)), key=lambda x: float(x.mid()))
    need(bool(scale > 0), "U ≠ 0")
    try:
        ev = [z.real for z in acb_mat(G / scale).eig()]
    except ValueError:
        need(False, "the eigenvalues of UUᵀ isolated by Arb")
    ev.sort(key=lambda x: float(x.mid()), reverse=True)
    need(bool(ev[0] > 0) and bool(ev[0] > ev[1]) and (len(ev) < 3 or bool(ev[1] > ev[2])),
         "the two largest eigenvalues of UUᵀ isolated from each other and from the rest")
    return (ev[1].nonnegative_part() / ev[0]).sqrt()


def _linear_gd_ratio(point: dict, fn, what: str):
    C = parse_matrix(point["C"])
    d = len(C)
    need(all(C[i][j] == C[j][i] for i in range(d) for j in range(d)), "C symmetric")
    U0 = [[exact(x) for x in row] for row in point["U0"]]
    eta, K = exact(point["eta"]), int(point["steps"])
    need(eta > 0 and K >= 1, "η > 0, K ≥ 1")
    step = arb_mat([[ball(Fraction(int(i == j)) - 2 * eta * C[i][j]) for j in range(d)] for i in range(d)])
    U = arb_mat([[ball(x) for x in row] for row in U0]) * _power(step, K)
    ratio = top_two_singular_ratio(U)
    diagonal = all(C[i][j] == 0 for i in range(d) for j in range(d) if i != j)
    limit_text = ""
    if diagonal:  # the K → ∞ direction: U₀ restricted to the λ₁-eigenspace (I − 2ηC has its largest factor there)
        lam1 = min(C[i][i] for i in range(d))
        need(all(abs(1 - 2 * eta * C[i][i]) < 1 - 2 * eta * lam1 for i in range(d) if C[i][i] != lam1),
             "the λ₁-eigenspace carries the largest per-step factor")
        keep = [i for i in range(d) if C[i][i] == lam1]
        limit = top_two_singular_ratio(arb_mat([[ball(row[i]) for i in keep] for row in U0]))
        need(bool(limit > ball(RANK_ONE_TOL)), "the K → ∞ limit of σ₂/σ₁ is above the rank-one tolerance too")
        limit_text = f"; the K → ∞ limit σ₂/σ₁(U₀P_λ₁) ∈ {limit.str(10, radius=False)}… is above it as well"
    return enclosure(ratio, 0, "<=", what + f", (I − 2ηC)^{K} by repeated squaring in Arb, σ₂/σ₁ from the certified "
                     "eigenvalues of UUᵀ" + limit_text + "; bound moved by the claim's RANK_ONE_TOL", fname(fn), point,
                     allowance=RANK_ONE_TOL)


def _prop_1_point(params: Mapping[str, Any], details: Mapping[str, Any]) -> dict:
    need(bool(params.get("C")) and params.get("closed_form_factor", 2.0) == 2.0, "an explicit C, the loss Tr(ΘCΘᵀ)")
    return {"C": params["C"], "U0": details["theta0"], "eta": params["eta"], "steps": details["steps_run"]}


@rigorous("ssl_dynamics.proposition_1", "collapsed_to_rank_one", _prop_1_point)
def proposition_1_rank(point: dict):
    """σ₂/σ₁ of Θ_K = Θ₀(I − 2ηC)^K with a repeated smallest eigenvalue of C: the output stays two-dimensional."""
    return _linear_gd_ratio(point, proposition_1_rank, "Θ_K = Θ₀(I − 2ηC)^K from the recorded Θ₀ (exact rationals)")


def _remark_3_point(params: Mapping[str, Any], details: Mapping[str, Any]) -> dict:
    need(bool(params.get("C")) and params.get("projector") == "orthonormal" and params.get("gd_scale", 1.0) == 1.0,
         "an explicit C and a projector with orthonormal rows")
    return {"C": params["C"], "U0": details["U0"], "eta": details["eta"], "steps": details["steps_run"]}


@rigorous("ssl_dynamics.remark_3", "output_collapses", _remark_3_point)
def remark_3_output(point: dict):
    """σ₂/σ₁ of the output U_K = U₀(I − 2ηC)^K for a fixed projector with AAᵀ = I (exactly)."""
    return _linear_gd_ratio(point, remark_3_output, "the exact instance A = [I_r 0] (AAᵀ = I), Θ₀ = [U₀; 0] with "
                            "U₀ the recorded AΘ₀: U_K = U₀(I − 2ηC)^K")


# -- Proposition 3 ------------------------------------------------------------------------------------------------------
def _prop_3_point(params: Mapping[str, Any], details: Mapping[str, Any]) -> dict:
    need(not params.get("C") and params.get("norm", "spectral") == "spectral" and params.get("bound_scale", 1.0) == 1.0,
         "C = Q diag(spectrum) Qᵀ, spectral norms")
    return {"spectrum": list(params["spectrum"]), "z": int(params["z"]), "h": int(params["h"])}


@rigorous("ssl_dynamics.proposition_3", "problem_4_matches_problem_2", _prop_3_point)
def proposition_3_problems(point: dict):
    """(4)'s optimum (exact, Ky Fan at h = d) against a feasible point of (2): not equivalent."""
    lam = sorted(exact(x) for x in point["spectrum"])
    d, z, h = len(lam), point["z"], point["h"]
    need(h == d and z <= h, "h = d (W₁ square orthogonal) and z ≤ h")
    ell = sum(1 for x in lam if x < 0)
    need(ell >= 1, "C has a negative eigenvalue")
    opt4 = sum(lam[:z], Fraction(0))  # min over W₂ ∈ St(d, z) of Tr(W₂ᵀ(W₁CW₁ᵀ)W₂), spec(W₁CW₁ᵀ) = spec(C)
    k = min(z, ell)
    # (2): W₁ = I (‖W₁‖₂ = 1), W₂ = [v₁ … v_k 0 …] (‖W₂‖₂ = 1) in C's eigenbasis: L = Tr(W₂ᵀCW₂) = Σ_{i≤k} λ_i
    feasible2 = sum(lam[:k], Fraction(0))
    need(opt4 > feasible2, "(4)'s optimum above the value of a feasible point of (2)")
    return enclosure(opt4, feasible2, "==", f"exact: (4)'s optimum at h = d is the sum of the {z} smallest eigenvalues "
                     f"(Ky Fan; W₁CW₁ᵀ has spectrum spec(C) for every square orthogonal W₁); bound: the value of the "
                     f"feasible point W₁ = I, W₂ = the {k} most negative eigenvectors of (2), an upper bound on (2)'s "
                     "optimum, so (4) > (2)", fname(proposition_3_problems), point, allowance=Fraction(1, 10**6) * abs(feasible2))


# -- Theorem 3 ------------------------------------------------------------------------------------------------------------
def _theorem_3_point(params: Mapping[str, Any], details: Mapping[str, Any]) -> dict:
    need(params.get("rate_scale", 1.0) == 1.0, "the printed statement")
    lams = params["lams"]
    lams = [float(x) for x in lams.split(",")] if isinstance(lams, str) else list(lams)
    if params.get("start") == "network":
        return {"lams": lams, "start": "network", "h": int(params["h"])}
    return {"lams": lams, "start": "ode", "e1_sign": params["e1_sign"], "q0_norm": params["q0_norm"]}


@rigorous("ssl_dynamics.theorem_3", "limit", _theorem_3_point)
def theorem_3_invariants(point: dict):
    """The limit of (10) by its invariants: e₁ᵀq ≡ 0 keeps q at distance ≥ 1 from ±e₁; ‖q‖ ≡ 1 keeps q off 0."""
    lam = [exact(x) for x in point["lams"]]
    d = len(lam)
    need(sorted(lam) == lam and all(x != 0 for x in lam), "Λ diagonal, sorted, non-zero eigenvalues")
    if point["start"] == "network":
        need(lam[0] > 0, "case (i): every eigenvalue positive")
        need(int(point["h"]) == d, "h = d: W₁ ∈ St(h, d) square orthogonal, so ‖q₀‖ = ‖W₂‖ = 1")
        return enclosure(Fraction(1), 0, "<=", "invariant: the unit sphere (d‖q‖²/dt = −8(1 − ‖q‖²)qᵀΛq) holds q₀ "
                         "with ‖q₀‖ = 1, so ‖q(t) − 0‖ = 1 for every t; bound: case (i)'s limit 0, moved by LIMIT_TOL",
                         fname(theorem_3_invariants), point, allowance=LIMIT_TOL)
    need(lam[0] < 0 and lam[0] < lam[1], "case (ii): a negative eigenvalue, λ₁ simple (its unit eigenvectors ±e₁)")
    need(exact(point["e1_sign"]) == 0 and 0 < exact(point["q0_norm"]) <= 1, "e₁ᵀq₀ = 0 and ‖q₀‖ ≤ 1")
    root2 = arb(2).sqrt()
    return enclosure((Fraction(1), root2), 0, "<=", "invariants: {e₁ᵀq = 0} and the unit ball, so dist(q(t), ±e₁) = "
                     "√(1 + ‖q(t)‖²) ∈ [1, √2] for every t; bound: case (ii)'s limit (distance 0), moved by LIMIT_TOL",
                     fname(theorem_3_invariants), point, allowance=LIMIT_TOL)


# -- E[C̃] a second time (issue 41, item 4) -----------------------------------------------------------------------------
EXPECTED_C_RTOL = 1e-12  # the float −Cov̂(X) against its exact value: O(n) sums of binary64 products


def exact_expected_c(X: list[list[float]]) -> list[list[Fraction]]:
    """E[C̃ | X]/n = x̄x̄ᵀ − XᵀX/n (x⁻ uniform over the data, x⁺ = x + ε with E[ε] = 0), in exact rationals."""
    rows = [[exact(v) for v in row] for row in X]
    n, d = len(rows), len(rows[0])
    mean = [sum((r[j] for r in rows), Fraction(0)) / n for j in range(d)]
    return [[mean[i] * mean[j] - sum((r[i] * r[j] for r in rows), Fraction(0)) / n for j in range(d)]
            for i in range(d)]


def check_expected_c(X: list[list[float]], formula: list[list[float]]) -> float:
    """The float corrected formula −Cov̂(X) against the exact E[C̃ | X]/n: SuiteError beyond EXPECTED_C_RTOL (relative
    to the largest entry). Returns the largest relative difference."""
    ref = exact_expected_c(X)
    scale = max(abs(v) for row in ref for v in row) or Fraction(1)
    worst = max(abs(exact(f) - r) / scale for frow, rrow in zip(formula, ref, strict=True) for f, r in zip(frow, rrow, strict=True))
    if worst > Fraction(EXPECTED_C_RTOL):
        raise SuiteError(f"expected_c: the float −Cov̂(X) differs from the exact E[C̃ | X]/n = x̄x̄ᵀ − XᵀX/n by "
                         f"{float(worst):.3g} of its largest entry (> {EXPECTED_C_RTOL:g})")
    return float(worst)


# -- Remark 2: InfoNCE's Hessian couples the output rows ---------------------------------------------------------------
DECOUPLED_TOL = Fraction(1, 10**10)  # remark_2.DECOUPLED_TOL


def _remark_2_point(params: Mapping[str, Any], details: Mapping[str, Any]) -> dict:
    need(params.get("negatives") == "one" and params.get("coupling_at", 1.0) == 1.0,
         "InfoNCE with one negative per anchor, the coupling at the trained point")
    return {"z": int(params["z"]), "theta": details["infonce_coupling_point"], "x": details["anchors"],
            "pos": details["positives"], "neg": details["negatives"]}


@rigorous("ssl_dynamics.remark_2", "infonce_decoupled", _remark_2_point)
def remark_2_coupling(point: dict):
    """‖cross-row blocks‖_F/‖H‖_F of InfoNCE's Hessian at the recorded point, in Arb.

    L(Θ) = mean_i softplus(s_i), s_i = Σ_l θ_lᵀM_iθ_l, M_i = sym(x_i(x_i⁻ − x_i⁺)ᵀ); with a_il = M_iθ_l and
    w_i = σ(s_i)(1 − σ(s_i)), the block (l, k) of the Hessian is mean_i[4w_i a_il a_ikᵀ + 2σ(s_i)M_i δ_lk]. InfoNCE
    depends on Θ only through inner products of outputs, so it is invariant under Θ → QΘ; a loss decoupled in some
    output basis would then be decoupled in the standard one, with zero cross blocks at every point: a non-zero
    cross block at one point (minimiser or not) refutes "InfoNCE decouples the output dimensions"."""
    z = point["z"]
    flat = [ball(v) for v in point["theta"]]
    d = len(flat) // z
    need(z >= 2 and len(flat) == z * d, "z ≥ 2 outputs")
    n = len(point["x"])
    X = arb_mat([[ball(v) for v in row] for row in point["x"]])  # (n, d)
    D = arb_mat([[ball(a) - ball(b) for a, b in zip(nr, pr, strict=True)] for nr, pr in zip(point["neg"], point["pos"], strict=True)])
    T = arb_mat([flat[l * d:(l + 1) * d] for l in range(z)]).transpose()  # (d, z): columns θ_l
    q_, p_ = X * T, D * T  # q_il = x_iᵀθ_l, p_il = δ_iᵀθ_l
    rows, sig = [], []
    for i in range(n):
        s_i = sum((q_[i, l] * p_[i, l] for l in range(z)), arb(0))  # s_i = Σ_l θ_lᵀM_iθ_l
        sg = 1 / (1 + (-s_i).exp())
        root_w = (sg * (1 - sg)).sqrt()
        # a_il = M_iθ_l = (x_i p_il + δ_i q_il)/2, scaled by √w_i: the rank-one terms become V'ᵀV'
        rows.append([root_w * (X[i, j] * p_[i, l] + D[i, j] * q_[i, l]) / 2 for l in range(z) for j in range(d)])
        sig.append(sg)
    V = arb_mat(rows)
    H = 4 * (V.transpose() * V)  # Σ_i 4w_i vec(a_i)vec(a_i)ᵀ, vec over (l, j)
    Xs = arb_mat([[sig[i] * X[i, j] for j in range(d)] for i in range(n)])
    S = Xs.transpose() * D  # Σ_i σ_i x_iδ_iᵀ; 2σ_iM_i summed is S + Sᵀ
    cross = arb(0)
    total = arb(0)
    for a in range(z * d):
        for b in range(z * d):
            la, ja, lb, jb = a // d, a % d, b // d, b % d
            h = H[a, b] + ((S[ja, jb] + S[jb, ja]) if la == lb else 0)
            total += h * h
            if la != lb:
                cross += h * h
    need(bool(total > 0), "a non-zero Hessian")
    ratio = (cross / total).sqrt()  # the 1/n of the mean cancels in the ratio
    return enclosure(ratio, 0, "<=", f"InfoNCE's Hessian at the recorded point (z = {z}, d = {d}, n = {n} anchors, exact "
                     "rationals of the recorded data) in Arb, blocks mean_i[4w_i a_il a_ikᵀ + 2σ(s_i)M_iδ_lk]; bound "
                     "moved by the claim's DECOUPLED_TOL", fname(remark_2_coupling), point, allowance=DECOUPLED_TOL)
