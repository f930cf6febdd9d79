"""Tolerances, floors and worst-instance aggregations of paper 001 pinned on literal inputs (issue 26, item 9; seed-23
sample of the second half of the nonlinear_cl modules). Each test feeds the module's own judging function a small
hand-made input whose decisive entry sits a few allowances (or a factor 3–5) on one side of the constant: the constant
loosened or tightened ×10 (or ×1000), the aggregation flipped (max ↔ min) or a comparison turned, and a row here fails.
Every input is a literal number, never built from the constant it pins. No evaluation runs: the file costs well under
a second."""

from __future__ import annotations

import math

import pytest
import torch

from checks.pinning import excess
from theorems.nonlinear_cl import pi_steps, theorem_3

D = torch.float64


# -- pi_steps (Lemmas 7, 8, 10): which steps are judged, and the worst of the judged ---------------------------------
def _steps(rows):
    """A Steps whose judged-mask inputs are ``rows`` = (c, 1 − c, (λ₁, λ₂, λ₃), ‖δA‖); the other fields are unused."""
    c = torch.tensor([r[0] for r in rows], dtype=D)
    omc = torch.tensor([r[1] for r in rows], dtype=D)
    lam = torch.tensor([r[2] for r in rows], dtype=D)
    dA = torch.tensor([r[3] for r in rows], dtype=D)
    z = torch.zeros_like(c)
    return pi_steps.Steps(omc, z, c, z, lam, z, dA, z, z, z, z, z, z, 1, z)


ROWS = [  # (c, 1 − c, λ descending, ‖δA‖): what each row pins
    (0.5, 3e-10, (2.0, 1.0, 0.5), 6e-5),  # 0 judged: 1 − c = 3·C_FLOOR (1e-10), ‖δA‖ = 3·DA_FLOOR·max|λ| (1e-5·2)
    (0.5, 3e-11, (2.0, 1.0, 0.5), 1.0),  # 1 not judged: 1 − c = C_FLOOR/3 (converged)
    (0.5, 1e-3, (2.0, 1.0, 0.5), 6e-6),  # 2 judged, except for κ: ‖δA‖ = DA_FLOOR·max|λ|·0.3
    (0.0, 1e-3, (2.0, 1.0, 0.5), 1.0),  # 3 not judged: c = 0 (Lemma 7 needs c_t > 0)
    (0.5, 1e-3, (0.0, -0.5, -1.0), 1.0),  # 4 not judged: λ₁ = 0
    (0.5, 1e-3, (2.0, 1.0, 0.0), 1.0),  # 5 judged only where A may be indefinite: λ₃ = 0
    (0.5, 1e-3, (2.0, 0.5, -0.6), 1.0),  # 6 indefinite, |λ₃| > |λ₂|: judged by neither PD nor top_abs
    (0.5, 1e-3, (2.0, 0.5, -0.4), 1.0),  # 7 indefinite, |λ₃| ≤ |λ₂|: judged by top_abs, not by PD
    (0.5, 1e-10, (2.0, 1.0, 0.5), 1.0),  # 8 judged: 1 − c exactly at the floor 1e-10 (a converged step is < it)
    (0.5, 1e-3, (0.5, 0.3, 0.1), 1.0),  # 9 judged: λ₁ = 0.5 (only its sign matters)
]


@pytest.mark.parametrize("kw, expected", [
    (dict(positive_definite=False), [1, 0, 1, 0, 0, 1, 1, 1, 1, 1]),
    (dict(positive_definite=True), [1, 0, 1, 0, 0, 0, 0, 0, 1, 1]),
    (dict(positive_definite=False, top_abs=True), [1, 0, 1, 0, 0, 1, 0, 1, 1, 1]),
    (dict(positive_definite=True, need_dA=True), [1, 0, 0, 0, 0, 0, 0, 0, 1, 1]),
])
def test_pi_steps_judged_mask_at_each_edge(kw, expected):
    """Each row of ROWS sits on one side of one condition of ``judged``: C_FLOOR and DA_FLOOR moved ×10 either way,
    or a comparison turned, flips a row."""
    assert pi_steps.judged(_steps(ROWS), **kw).tolist() == [bool(e) for e in expected]


def test_pi_steps_worst_is_the_largest_judged_value():
    """Lemmas 7, 8 and 10 are judged at their worst step: one judged step patched to 5 (the others ≤ 1) decides it;
    an unjudged larger value does not; no judged step is NaN (nothing decided), never a pass."""
    values = torch.tensor([0.2, 5.0, 1.0, 9.0], dtype=D)
    mask = torch.tensor([True, True, True, False])
    assert pi_steps.worst(values, mask) == 5.0
    assert math.isnan(pi_steps.worst(values, torch.zeros(4, dtype=torch.bool)))


# -- theorem_3: Lemma 11's two conclusions on a hand-made c_t, and the 2-cycle certificate --------------------------
def _c(one_minus):
    return 1 - torch.tensor(one_minus, dtype=D)


def test_theorem_3_rate_is_judged_at_its_worst_step_above_the_floor():
    """γ = 1e-5, 1 − c_t = (1e-3, 5e-9, 5e-13, 3e-14): the ratios (1 − c_t)/(γ^t(1 − c₀)) are 0.5, 5 and 3e4.
    The step at 5e-13 (5 × C_FLOOR = 1e-13) is judged and decides the claim; the one at 3e-14 (below the floor:
    rounding) is not. C_FLOOR ×10 drops the decisive step (rate 0.5, the claim holds), ÷10 judges the noise
    (rate 3e4); min in place of max reads 0.5."""
    rate, _ = theorem_3.lemma_11_claims(_c([1e-3, 5e-9, 5e-13, 3e-14]), 1e-5)
    assert rate.observed == pytest.approx(5.0, rel=1e-2) and not rate.passed
    rate, _ = theorem_3.lemma_11_claims(_c([1e-3, 5e-9, 5e-13, 3e-14]), 1e-5, rate_bound_scale=6.0)
    assert rate.passed  # the bound is what the scale says: 5 ≤ 6
    rate, _ = theorem_3.lemma_11_claims(_c([1e-3, 5e-7]), 1e-5)  # t = 1 judged: 5e-7/(1e-5·1e-3) = 50
    assert rate.observed == pytest.approx(50.0, rel=1e-6)
    # t = 0 is never judged (its ratio is 1 by definition): a run of one point judges nothing
    rate, _ = theorem_3.lemma_11_claims(_c([1e-3]), 0.5)
    assert rate.observed == 0.0 and rate.passed


def test_theorem_3_monotone_c_fails_by_three_floors():
    """c_t dropping by 3e-13 (3 × the atol C_FLOOR = 1e-13) on a step that starts at 1 − c = 1e-6 fails
    ``c_increases`` by 1–10 allowances (C_FLOOR ×10 passes it); the same drop on a step starting at 1 − c = 5e-14
    (below the floor) is not judged."""
    _, inc = theorem_3.lemma_11_claims(_c([1e-3, 1e-6, 1e-6 + 3e-13, 1e-7]), 0.5)
    assert not inc.passed and 1.0 < excess(inc) <= 10.0, (inc.observed, inc.allowance)
    _, inc = theorem_3.lemma_11_claims(_c([1e-3, 1e-6, 5e-14, 8e-14]), 0.5)
    assert inc.passed and inc.observed > 0


@pytest.mark.parametrize("closing, step, fixed, cycle", [
    (5e-9, 0.08, False, False),  # 5 × CYCLE_TOL (1e-9) from closing: not yet a cycle
    (2e-10, 0.08, False, True),  # closed to CYCLE_TOL/5, a full step wide: a certified 2-cycle
    (0.0, 3e-5, False, False),  # closed, but its two points only CYCLE_STEP/3 (1e-4) apart: a slow run, not a cycle
    (0.0, 3e-4, False, True),  # closed, 3 × CYCLE_STEP apart: a cycle
    (0.0, 0.08, True, False),  # a fixed point is converged, not a cycle
])
def test_theorem_3_two_cycle_certificate_at_its_edges(closing, step, fixed, cycle):
    a = torch.tensor([1.0, 0.0, 0.0], dtype=D)
    Wt = torch.stack([a, a, a + torch.tensor([0.0, step, 0.0], dtype=D), a + torch.tensor([closing, 0.0, 0.0], dtype=D)])
    gap, certified = theorem_3.two_cycle(Wt, fixed)
    assert gap == pytest.approx(closing, abs=1e-15) and certified is cycle
    # the shortest run that can show a cycle has three points: w(0), w(1), w(2) = w(0)
    assert theorem_3.two_cycle(Wt[1:], fixed) == (gap, cycle)
    assert theorem_3.two_cycle(Wt[2:], False) == (math.inf, False)


# -- the Remark after Theorem 6: every claim over the ε grid (or over r) is judged at its worst entry ---------------
def test_theorem_6_remark_grid_claims_take_their_worst_entry(monkeypatch):
    """ONE entry of each aggregate is patched off by a literal amount, the others left exact: (155) off by 0.2 at the
    last ε > 0 (both (155) claims, the quadrature's and the Monte Carlo's, see it: 0.2 ≫ QUAD_ATOL, ≈ 13 standard
    errors of 1000 draws), the quadrature halved at ε = 1 (positive modulation at 0.5 of its bound; elsewhere it is ≥ 1), and
    P[E_c(3)] of the general case raised 0.2 above (157)'s bound. Each claim must fail, with the patched value as its
    observation; a claim taking the best entry (min for max) would pass."""
    import theorems
    from theorems.core import recording
    from theorems.nonlinear_cl import theorem_6_remark as R

    exact_155, exact_event = R.prob_155, R.prob_event

    def off_155(eps, d):
        out = exact_155(eps, d)
        if len(eps) > 1:  # the grid, not the single ε = 0 of d·P₀
            out = out.clone()
            out[-1] += 0.2
        return out

    def off_event(delta, dist):
        q = exact_event(delta, dist).clone()
        if len(delta) == R.GRID:  # the special case: the last ε = eps_max = 1 (its quadrature halved)
            q[-1] = q[-1] / 2
        else:  # the general case (d rows): P[E_c(3)] pushed over (157)
            q[2] = 0.5
        return q

    monkeypatch.setattr(R, "prob_155", off_155)
    monkeypatch.setattr(R, "prob_event", off_event)
    ev = recording.expect(theorems.check(R.ID, mc=1000), recording.FAILS)  # patched formulas
    quad = ev.claim("formula_155_quadrature")
    assert not quad.passed and quad.observed > 0.19, quad
    mc = ev.claim("formula_155_monte_carlo")
    assert not mc.passed and mc.observed > 2 * R.MC_Z, mc
    pos = ev.claim("positive_modulation")
    assert not pos.passed and 0.49 < pos.observed < 0.51, pos
    rank = ev.claim("general_rank_157")
    assert not rank.passed and rank.observed > 0.1, rank
    gmc = ev.claim("general_monte_carlo")
    assert not gmc.passed, gmc


# -- Theorem 1: which candidates the theorem covers ------------------------------------------------------------------
def test_theorem_1_covers_an_lme_whose_gap_exceeds_rho_by_more_than_gap_min():
    """λ_gap − ρ = 5e-6 (5 × GAP_MIN = 1e-6) is covered, 2e-7 (GAP_MIN/5) is too close to call, a non-LME never is:
    GAP_MIN ×10 or ÷10 moves one of them."""
    from theorems.nonlinear_cl import theorem_1

    is_lme = torch.tensor([True, True, False, True])
    gap = torch.tensor([1.0 + 5e-6, 1.0 + 2e-7, 2.0, 0.5], dtype=D)
    rho = torch.tensor([1.0, 1.0, 1.0, 1.0], dtype=D)
    assert theorem_1.covered(is_lme, gap, rho).tolist() == [True, False, False, False]


# -- Lemma 7: the registered counterexamples are the ones the correction's reason cites ------------------------------
@pytest.mark.parametrize("cx, lo, hi", [
    (dict(model="batch", N=16, aug=4.0), 1389.0, 1391.0),  # "violate the lemma by a factor up to 1390"
    (dict(model="batch", N=16, aug=3.0, seed=2), 1.0, 10.0),  # just past the bound: 1.46
])
def test_lemma_7_registered_counterexamples_fail_by_the_cited_factor(cx, lo, hi):
    import theorems
    from theorems.core import recording, registry

    result = registry.get("nonlinear_cl.lemma_7")
    assert cx in [dict(c) for c in result.counterexamples]
    ev = recording.expect(theorems.check(result.id, form="as_printed", **cx), recording.FAILS)
    c = ev.claim("one_minus_d_bound")
    assert not c.passed and lo < c.observed < hi, c
    assert "1390" in result.correction_reason


def test_theorem_1_closed_form_of_d_floor_and_worst_candidate():
    """Two candidates, ‖A‖ = 1: the first exact, the second with D ≈ 0 off by 3e-9 in norm, i.e. 3e-9/(FD_ATOL/FD_RTOL
    = 1e-5) = 3e-4 = 3 FD_RTOLs relative to the floor: the claim fails by 1–10 allowances (FD_ATOL ×10 passes it; the
    best candidate, min for max, would pass)."""
    from checks.pinning import excess
    from theorems.nonlinear_cl import theorem_1

    A = torch.eye(3, dtype=D).expand(2, 3, 3)
    Dcf = torch.stack([torch.full((3, 2), 0.1, dtype=D), torch.zeros(3, 2, dtype=D)])
    Dfd = Dcf.clone()
    Dfd[1, 0, 0] = 3e-9
    c = theorem_1.closed_form_match(Dfd, Dcf, A)
    assert not c.passed and 1.0 < excess(c) <= 10.0, c
    assert theorem_1.closed_form_match(Dcf, Dcf, A).passed


def test_pi_steps_kappa_aligns_the_next_top_eigenvector():
    """Lemma 9's κ_t = ‖φ₁(t+1) − φ₁(t) − Δφ₁(t)‖/‖δA‖² needs φ₁(t+1) on the side of φ₁(t) (eigh's sign is arbitrary):
    recomputed here step by step with numpy's eigh on the same trajectory, aligning by the sign of φ₁(t+1)ᵀφ₁(t)."""
    import numpy as np

    from theorems.core.context import Context
    from theorems.optim.sphere_flow import power_iteration, random_unit

    p = dict(model="mixture", d=3, clusters=3, radius=2.0, sigma=0.7, starts=6, pi_iters=6, N=64, aug=4.0, shift=0.1)
    st = pi_steps.run(p, Context.make(seed=0))
    ctx = Context.make(seed=0)
    A_fn = pi_steps.build(p, ctx)
    H = power_iteration(A_fn, random_unit(ctx, p["starts"], p["d"]), max_iter=p["pi_iters"], tol=1e-13,
                        record=True).history
    T1, B, d = H.shape
    A = A_fn(H.reshape(-1, d)).reshape(T1, B, d, d).numpy()
    rems, flips = [], 0
    for t in range(T1 - 1):
        for b in range(B):
            lam, V = np.linalg.eigh(A[t, b])
            lam, V = lam[::-1], V[:, ::-1]
            phi = V[:, 0] * (1 if V[:, 0] @ H[t, b].numpy() >= 0 else -1)
            nxt = np.linalg.eigh(A[t + 1, b])[1][:, -1]
            flips += int(nxt @ phi < 0)
            nxt = nxt if nxt @ phi >= 0 else -nxt
            dA = A[t + 1, b] - A[t, b]
            dphi = sum((V[:, j] @ dA @ phi) / (lam[0] - lam[j]) * V[:, j] for j in range(1, d))
            rems.append(np.linalg.norm(nxt - phi - dphi))
    rem = torch.tensor(rems, dtype=D)
    got = st.kappa * st.dA**2
    assert flips > 0  # the alignment is exercised
    assert torch.allclose(got, rem, rtol=1e-6, atol=1e-12), (got - rem).abs().max()


def test_theorem_5_lemma_5_is_judged_at_its_worst_entry():
    """K = 2 blocks of d = 2: 𝕍[x̃] built exactly as diag_k L_k + p₀p₁ΔΔᵀ, then ONE entry off by 5e-12 (5 × ATOL =
    1e-12): Lemma 5's claim fails by 1–10 allowances (ATOL ×10 passes it; min for max reads 0)."""
    from checks.pinning import excess
    from theorems.nonlinear_cl import theorem_5

    L = torch.tensor([[2.0, 0.3, 0.7, 0.1], [0.3, 1.0, 0.2, 0.4], [0.7, 0.2, 3.0, 0.5], [0.1, 0.4, 0.5, 1.5]], dtype=D)
    Delta = torch.tensor([0.5, -1.0, 0.25, 2.0], dtype=D)
    q0, q1 = 0.25, 0.75
    blocks = torch.block_diag(L[:2, :2], L[2:, 2:])
    V = blocks + q0 * q1 * torch.outer(Delta, Delta)
    assert theorem_5.lemma_5_claim(V, L, q0, q1, Delta, 2, 2).passed
    V[1, 2] += 5e-12
    c = theorem_5.lemma_5_claim(V, L, q0, q1, Delta, 2, 2)
    assert not c.passed and 1.0 < excess(c) <= 10.0, c


# -- Theorem 6: the basin claims take the worst c of the grid --------------------------------------------------------
def test_theorem_6_basin_claims_take_the_worst_c(monkeypatch):
    """The flow's end points at ONE modulation of the grid (c = 0.3·c_max) patched: the starts the basin gained there
    and one start of basin(c = 0) are sent to −u₁ instead, the other c left as computed. The basin then shrinks from
    c = 0.1·c_max to 0.3·c_max by one start and loses a start of basin(c = 0): both basin_grows (a min over the grid) and basin_inclusion (a max over
    c) must fail; the best c (max for min, min for max) would pass them."""
    import theorems
    from theorems.core import recording
    from theorems.nonlinear_cl import theorem_6 as T

    real = T.certified_flow

    def one_c_off(*args, **kw):
        Y, res, curv, escapes = real(*args, **kw)
        Y = Y.clone()
        in0, in1, in2 = (Y[k, :, 0] > 0.999 for k in range(3))
        off = in2 & ~in1  # the starts the basin gained from 0.1·c_max to 0.3·c_max ...
        off[int((in0 & in1 & in2).nonzero()[0])] = True  # ... and one start of basin(c = 0)
        Y[2, off] = -Y[2, off]
        return Y, res, curv, escapes

    monkeypatch.setattr(T, "certified_flow", one_c_off)
    ev = recording.expect(theorems.check(T.ID), recording.FAILS)  # a patched flow
    grows, incl = ev.claim("basin_grows"), ev.claim("basin_inclusion")
    assert not grows.passed and grows.observed < 0, grows
    assert not incl.passed and incl.observed == 1, incl


def test_theorem_6_winner_rule_counts_only_starts_that_reached_a_u_l():
    """LABEL_COS = 0.999 labels an end point by its largest coordinate: start 0 ends at 0.9995 on its predicted u₁
    (reached, agrees), start 1 at 0.99 on u₁ although u₂ blows up first (not reached: not judged). The share is 1 of
    1; LABEL_COS ÷10 would count start 1 (share 1/2), ×10 nothing (share 0)."""
    from theorems.nonlinear_cl import theorem_6

    Y0 = torch.tensor([[0.8, 0.6, 0.0], [0.6, 0.8, 0.0]], dtype=D)  # larger y_l(0) blows up first (equal b)
    Y = torch.tensor([[[0.9995, 0.0316, 0.0], [0.99, 0.141, 0.0]]], dtype=D)
    b = torch.full((1, 1, 3), 0.1, dtype=D)
    claim, details = theorem_6.winner_step(Y0, Y, b)
    assert claim.passed and claim.observed == 1.0 and details["starts_reaching_some_u_l"] == 1, (claim, details)


def test_theorem_6_ode_pairs_keep_y0_from_0_05():
    """The 1-D proof steps judge the pairs with |y_l(0)| ≥ ODE_Y_MIN = 0.05: of y(0) = 0.06, −0.3 and 0.04 the first
    two (ODE_Y_MIN ×10 drops them, ÷10 adds 0.04), and the proof steps hold on them."""
    from theorems.core.context import Context
    from theorems.nonlinear_cl import theorem_6

    Y0 = torch.tensor([[0.06, -0.3, 0.04]], dtype=D)
    b = torch.full((1, 1, 3), 0.5, dtype=D)
    claims, details = theorem_6.one_d_proof_steps(Y0, b, Context.make(seed=0))
    assert details["ode_pairs"] == 2 and all(c.passed for c in claims), (details, claims)


def test_theorem_4_identical_weights_path_is_judged_at_its_worst_point(monkeypatch):
    """Part (2) walks W(c) = (1 − c)W* + cW^id at c = 0, 0.2, …, 1 and claims every gradient vanishes: the gradient at
    ONE point (c = 0.4) patched by +1 in every entry must fail the claim (the best point, min for max, would pass)."""
    import theorems
    from theorems.core import recording
    from theorems.nonlinear_cl import theorem_4 as T

    real, calls = T.grad, []

    def one_point_off(*args, **kw):
        g = real(*args, **kw)
        calls.append(1)
        return g + 1.0 if len(calls) == 4 else g  # the 4th gradient of the run: part (1)'s, then c = 0, 0.2, 0.4

    monkeypatch.setattr(T, "grad", one_point_off)
    ev = recording.expect(theorems.check(T.ID), recording.FAILS)  # a patched gradient
    c = ev.claim("identical_weights_path_critical")
    assert not c.passed and c.observed > 1e-6, c


def test_theorem_1_perturbation_claims_take_the_worst_start(monkeypatch):
    """Theorem 1's perturbed starts (PERTURBATIONS per LME): ONE start's end point after the flow patched to move
    away from w_* (reflected through its start), the others left as computed. perturbations_return is the max
    distance ratio and the contraction claim the worst fitted rate: both must fail there; the best start would pass
    both by far."""
    import dataclasses

    import theorems
    from theorems.core import recording
    from theorems.nonlinear_cl import theorem_1 as T

    real = T.projected_flow

    def one_start_stuck(A_fn, W0, **kw):
        run = real(A_fn, W0, **kw)
        W = run.W.clone()
        W[3] = 2 * W0[3] - run.W[3]  # reflected through its start: about twice as far from w_* as it began
        W[3] = W[3] / W[3].norm()
        return dataclasses.replace(run, W=W)

    monkeypatch.setattr(T, "projected_flow", one_start_stuck)
    ev = recording.expect(theorems.check(T.ID), recording.FAILS)  # a patched flow
    ret, rate = ev.claim("perturbations_return"), ev.claim("contraction_at_proof_rate")
    assert not ret.passed and 1.5 < ret.observed < 2.5, ret
    assert not rate.passed and rate.observed < 0, rate


def test_theorem_5_delta_is_judged_at_the_smallest_k():
    """δ = (0.5, −1e-3, 2.0): one negative δ_k fails δ_k ≥ 0 (the largest, max for min, would pass)."""
    from theorems.nonlinear_cl import theorem_5

    c = theorem_5.delta_claim(torch.tensor([0.5, -1e-3, 2.0], dtype=D), 0.1)
    assert not c.passed and c.observed == -1e-3, c
    assert theorem_5.delta_claim(torch.tensor([0.5, 0.0, 2.0], dtype=D), 0.1).passed  # δ_k = 0 is allowed


def test_theorem_1_weyl_ratio_is_judged_at_the_worst_lme(monkeypatch):
    """The default mixture has four LMEs, each with −λ_max(J) ≥ λ_gap − ρ: the linearisation of ONE of them halved
    (its rate falls to about half of the guarantee) must fail the Weyl claim, a min over the LMEs (the best LME, max
    for min, stays ≥ 1). The claim is an identity: failing inside the hypotheses, it raises (a suite bug)."""
    import theorems
    from theorems.core.errors import IdentityFailure
    from theorems.nonlinear_cl import theorem_1 as T

    real = T.linearisation

    def one_lme_off(A_fn, W, lam_star):
        J, Dm, Q = real(A_fn, W, lam_star)
        J = J.clone()
        J[1] = 0.5 * J[1]
        return J, Dm, Q

    monkeypatch.setattr(T, "linearisation", one_lme_off)
    with pytest.raises(IdentityFailure, match="linearised_rate_at_least_guaranteed"):
        theorems.check(T.ID)
