"""Paper 000 (Deep Fusion): the survivors of the held-out seed-23 mutation sample killed (issue 26, item 9). Each
test states the number it pins as a literal, or recomputes the quantity independently (numpy / Decimal, not the
module's code), and the claims that aggregate over instances are shown to take the worst one (one instance is
patched to violate by a literal margin)."""

from __future__ import annotations

import math
from decimal import Decimal, localcontext

import numpy as np
import pytest
import torch

from checks.pinning import probe
from theorems.core import recording, registry
from theorems.deep_fusion import fusion
from theorems.deep_fusion import theorem_2 as T2

T2ID = "deep_fusion.theorem_2"


# ------------------------------------------------------------------------------------------------------
# Theorem 2's instance 'Delta_nonpositive' is what its name says
# ------------------------------------------------------------------------------------------------------
def test_theorem_2_delta_nonpositive_instance_has_a_negative_Delta(run):
    """ε = 0.2, ρ = 0.5: Δ = cos(arccos ρ + arccos(1 − ε)) = 0.4 − 0.6·√0.75 = −0.1196 in closed form, and the
    measured Δ (from ε_eff ≤ ε) stays below −0.1 on every instance: eq. (7), which needs Δ ≥ 0, is left out rather
    than failed, and no instance counts as Δ ≥ 0."""
    f = fusion.FIXED["Delta_nonpositive"]
    closed = f["rho"] * (1 - f["eps"]) - math.sqrt(1 - f["rho"] ** 2) * math.sqrt(1 - (1 - f["eps"]) ** 2)
    assert closed < -0.1, closed
    ev = run(T2ID, instance="Delta_nonpositive", instances=2, restarts=2)
    assert ev.details["Delta_nonneg_instances"] == 0 and ev.details["Delta_first"] < -0.1, ev.details
    # the instance the docstring describes (ε = 0.2, ρ = 0.5, n = 64 in R^3): δ ≤ sin φ = 0.6, Δ ≥ −0.1196
    d = ev.details
    assert (d["n"], d["m"], d["sizes"]) == (64, 3, [32, 32]), d
    assert 0.59 < d["delta_first"] <= 0.6 and -0.1196 <= d["Delta_first"] < -0.11, d
    names = {c.name for c in ev.claims}
    assert not names & {"eq7_printed_lower_bound", "eq7_corrected_lower_bound"}, names
    assert ev.holds and ev.details["separable_instances"] == 0
    # where Δ ≥ 0 the eq. (7) claims are there (the default batch)
    assert {"eq7_printed_lower_bound", "eq7_corrected_lower_bound"} <= {c.name for c in run(T2ID).claims}


# ------------------------------------------------------------------------------------------------------
# App. B's next-layer steps: log A′ computed independently (its sign decides −inf)
# ------------------------------------------------------------------------------------------------------
def _log_pos(x: np.ndarray) -> np.ndarray:
    out = np.full(x.shape, -np.inf)
    out[x > 0] = np.log(x[x > 0])
    return out


def _hand_instances():
    """Two 4-sample instances in R^3 (labels 0 0 1 1): W scaled by 0.5 puts every A′ entry in (0.41, 0.43) (the
    first), W scaled by 3 gives a same-cluster A′ of −4.25 (the second: sample 3 points along −sample 2)."""
    X = np.array([[[1.0, 0.0, 0.0], [0.9, 0.1, 0.0], [0.0, 1.0, 0.0], [0.1, 0.9, 0.2]],
                  [[1.0, 0.0, 0.0], [0.8, 0.2, 0.0], [0.0, 1.0, 0.1], [0.0, -1.0, 0.1]]])
    W = np.array([[0.3, 0.05], [0.02, 0.25], [0.0, 0.1]])[:, [0, 0, 1, 1]]  # one column per sample: its cluster's
    return X, np.stack([0.5 * W, 3.0 * W])


def test_appendix_b_log_A_prime_matches_numpy():
    """B6 (both cases) and B8 from A′ = X̃′WWᵀX̃′ᵀ, X̃′ = exp(A)X̃, computed directly in float64 here: log A′
    where A′ > 0 and −inf elsewhere. The first instance's A′ lies in (0, 1) (a threshold of 1 would drop it), the
    second has a same-cluster A′ < 0 (log of it must be −inf, not log of a clamped number)."""
    X, W = _hand_instances()
    lab = np.array([0, 0, 1, 1])
    same = lab[:, None] == lab[None, :]
    n, sizes = 4, (2, 2)
    d, D = np.array([0.3, 0.3]), np.array([0.5, 0.5])
    got = fusion.appendix_b_steps(torch.tensor(X), torch.tensor(W), torch.tensor(lab), torch.tensor(d),
                                  torch.tensor(D), sizes)
    signs = []
    for b in range(2):
        A = X[b] @ W[b] @ W[b].T @ X[b].T
        Xp = np.exp(A) @ X[b]
        Ap = Xp @ W[b] @ W[b].T @ Xp.T
        signs.append((Ap[same].min(), Ap.max()))
        logA = _log_pos(Ap)
        b6s = logA[same].min() - fusion.log_B6_same(n, d[b], D[b])
        b6c = fusion.log_B6_cross(n, d[b], D[b]) - logA[~same].max()
        assert float(got["B6_same_lower"][b]) == pytest.approx(b6s, rel=1e-10, abs=1e-10), b
        assert float(got["B6_cross_upper"][b]) == pytest.approx(b6c, rel=1e-10, abs=1e-10), b
        prev = A[same].min() - A[~same].max()
        nxt = logA[same].min() - logA[~same].max() if Ap[same].min() > 0 else math.nan
        want8 = nxt - fusion.log_B8(n, d[b], D[b])
        if math.isnan(want8):
            assert math.isnan(float(got["B8_next_sharpness_lower"][b])), b
        else:
            assert float(got["B8_next_sharpness_lower"][b]) == pytest.approx(want8, rel=1e-10), b
            gnu = fusion.log_gamma_nu(2, n, d[b], D[b])
            if not math.isnan(gnu):
                assert float(got["gamma_nu_ratio"][b]) == pytest.approx(nxt - prev - gnu, rel=1e-10), b
    (lo0, hi0), (lo1, _) = signs
    assert 0 < lo0 and hi0 < 1 and lo1 < 0, signs  # the hand instances are the edges they are meant to be
    assert float(got["B6_same_lower"][1]) == -math.inf


# ------------------------------------------------------------------------------------------------------
# The unsimplified γ_ν against Decimal (no overflow-avoiding rescaling)
# ------------------------------------------------------------------------------------------------------
def _log_gamma_nu_decimal(nu: int, n: int, d: float, D: float) -> float:
    with localcontext() as ctx:
        ctx.prec = 60
        d_, D_ = Decimal(d), Decimal(D)
        alpha = (nu * D_ * D_).exp()
        beta = (2 * nu * d_ + (n - 2 * nu) * d_ * d_).exp()
        dp = alpha * nu * d_ + beta * (n - nu)
        Dp = alpha * nu * D_ - beta * (n - nu)
        den = 2 * nu * dp + (n - 2 * nu) * dp * dp
        if Dp <= 0 or den <= 0:
            return math.nan
        return float((nu * Dp * Dp / den * beta / alpha).ln())


@pytest.mark.parametrize("nu, n, d, D", [(4, 8, 0.14, 0.59),  # the default regime
                                         (2, 4, 0.05, 0.8),  # Δ′e^{−m} = 0.92: a threshold of 1 would call it nan
                                         (4, 4, 0.0, 0.5),  # one cluster, δ = 0: no denominator (nan, not inf)
                                         (3, 5, 0.01, 1.2),  # n < 2ν: 2νδ′e^{−m} − δ′² > 0 (finite)
                                         (3, 4, 0.01, 1.2),  # n < 2ν: denominator −3.7e-4 ≤ 0 (nan)
                                         (300, 600, 0.01, 2.0),  # ν Δ² = 1200 nats: only e^{la − max} stays finite
                                         (4, 8, 0.6, 0.1)])  # Δ′ < 0: undefined (nan)
def test_log_gamma_nu_matches_decimal(nu, n, d, D):
    want = _log_gamma_nu_decimal(nu, n, d, D)
    got = fusion.log_gamma_nu(nu, n, d, D)
    if math.isnan(want):
        assert math.isnan(got)
    else:
        assert got == pytest.approx(want, rel=1e-12, abs=1e-12)


# ------------------------------------------------------------------------------------------------------
# Theorem 2's entry claims take the worst instance (and hold on the default batch)
# ------------------------------------------------------------------------------------------------------
def _entry_inputs():
    from theorems.core.context import Context
    from theorems.data.subspaces import effective_eps
    from theorems.metrics.cluster_integrity import margin_of_w

    ctx = Context.make(seed=0)
    p = {**registry.get(T2ID).defaults, "instances": 3, "w_scale": 1.0}
    clean, Xt, W, _ = fusion.instance(ctx, p)
    d, D = fusion.delta_Delta(effective_eps(clean.X, Xt).clamp_min(0), margin_of_w(clean.X, clean.labels, W))
    XW = Xt @ W
    return XW, XW @ XW.transpose(-1, -2), clean.labels, clean.nu, d, D


NAMES = ("B1_offblock_at_most_delta", "B1_inblock_at_least_Delta", "eq8_cross_upper_bound",
         "eq7_corrected_lower_bound", "eq7_printed_lower_bound")


def test_theorem_2_entry_claims_hold_on_the_default_batch():
    claims, _ = T2.entry_claims(*_entry_inputs())
    by = {c.name: c for c in claims}
    for name in NAMES:
        assert by[name].passed and by[name].kind == "proof_step", by[name]
    # the default batch is slack, not at the edge: each by more than 1e-3 (so the worst-instance test below moves
    # exactly the one number it patches)
    assert by["B1_offblock_at_most_delta"].observed < -1e-3 and by["eq8_cross_upper_bound"].observed < -1e-3
    assert by["B1_inblock_at_least_Delta"].observed > 1e-3


def test_theorem_2_entry_claims_take_the_worst_instance():
    """Instance 1 of 3 patched to violate each entry bound by 0.01: the claim fails by that 0.01 (a mean or the
    best instance would hide it)."""
    XW, A1, labels, nu, d, D = _entry_inputs()
    n = labels.numel()
    i, l = 0, int((labels != labels[0]).nonzero()[0])  # a cross pair (i, l)
    j = int((labels == labels[0]).nonzero()[1])  # a same pair (i, j), i ≠ j
    cases = {}
    XWo = XW.clone()
    XWo[1, i, l] = d[1] + 0.01
    cases["B1_offblock_at_most_delta"] = (XWo, A1)
    XWi = XW.clone()
    XWi[1, i, j] = D[1] - 0.01  # w_j of x_i's own cluster (one column of W per sample)
    cases["B1_inblock_at_least_Delta"] = (XWi, A1)
    A8 = A1.clone()
    nui, nul = float(nu[i]), float(nu[l])
    A8[1, i, l] = (nui + nul) * d[1] + (n - nui - nul) * d[1] ** 2 + 0.01
    cases["eq8_cross_upper_bound"] = (XW, A8)
    A7 = A1.clone()
    A7[1, i, j] = nui * D[1] ** 2 - (n - nui) * d[1] ** 2 - 0.01
    cases["eq7_corrected_lower_bound"] = (XW, A7)
    A7p = A1.clone()
    A7p[1, i, j] = nui * D[1] ** 2 - 0.01
    cases["eq7_printed_lower_bound"] = (XW, A7p)
    for name, (xw, a) in cases.items():
        claims, _ = T2.entry_claims(xw, a, labels, nu, d, D)
        c = next(c for c in claims if c.name == name)
        assert not c.passed and abs(abs(c.observed) - 0.01) < 1e-9, (name, c)


def test_theorem_2_next_layer_claim_is_the_worst_instance(monkeypatch):
    """next_layer_claims reports, per step, the smallest slack over the instances: one instance patched to −0.25
    (the others +1) fails the claim with exactly that slack; NaN instances are left out, not counted as failing."""
    def steps(*args):
        return {"B4_offblock_upper": torch.tensor([1.0, -0.25, 1.0]),
                "B7_previous_sharpness_upper": torch.tensor([math.nan, 2.0, 3.0])}

    monkeypatch.setattr(T2, "appendix_b_steps", steps)
    claims, details = T2.next_layer_claims(None, None, None, None, None, (2, 2))
    by = {c.name: c for c in claims}
    assert by["B4_offblock_upper"].observed == -0.25 and not by["B4_offblock_upper"].passed
    assert by["B7_previous_sharpness_upper"].observed == 2.0 and by["B7_previous_sharpness_upper"].passed
    assert details["B4_offblock_upper_failing_instances"] == 1
    assert details["B7_previous_sharpness_upper_defined_instances"] == 2


# ------------------------------------------------------------------------------------------------------
# Theorem 2's errata say the numbers their registered instances give
# ------------------------------------------------------------------------------------------------------
def test_theorem_2_b8_erratum_counts_are_its_instances(run):
    """(B8)'s erratum: "on 4 of the 6 instances (of 8) where it is defined" (𝒟(S′) is undefined where a
    same-cluster A′ ≤ 0): the registered instance is that batch of 8, and its evidence gives those counts."""
    (e,) = [e for e in registry.get(T2ID).proof_errata if e.claim == "B8_next_sharpness_lower"]
    assert "4 of the 6 instances (of 8)" in e.why
    ev = recording.expect(run(T2ID, form=e.form, **dict(e.params)), *recording.OUTCOMES)
    assert ev.details["instances"] == 8 and ev.details["B8_next_sharpness_lower_defined_instances"] == 6
    assert ev.details["B8_next_sharpness_lower_failing_instances"] == 4
    assert not ev.claim("B8_next_sharpness_lower").passed


def test_theorem_2_eq7_erratum_numbers_are_its_instance(run):
    """eq. (7)'s erratum prints A₁₂ = 0.7200 < ν₁Δ² = 0.8887 and the corrected 0.3037 for ν = (2, 6): the registered
    instance gives those numbers (to the 4 printed digits), and its clusters are (2, 6)."""
    (e,) = [e for e in registry.get(T2ID).proof_errata if e.claim == "eq7_printed_lower_bound"]
    assert "A₁₂ = 0.7200 < ν₁Δ² = 0.8887" in e.why and "= 0.3037 holds" in e.why
    ev = recording.expect(run(T2ID, form=e.form, **dict(e.params)), *recording.OUTCOMES)
    assert ev.details["sizes"] == [2, 6]
    assert abs(ev.details["A12_first"] - 0.7200) < 5e-5
    assert abs(ev.details["eq7_printed_bound_first"] - 0.8887) < 5e-5
    assert abs(ev.details["eq7_corrected_bound_first"] - 0.3037) < 5e-5
    assert not ev.claim("eq7_printed_lower_bound").passed and ev.claim("eq7_corrected_lower_bound").passed
    # γ_ν is recorded only for balanced clusters (the default batch), not for ν = (2, 6)
    assert "log10_gamma_nu_first" not in ev.details and "log10_gamma_nu_first" in run(T2ID).details


# ------------------------------------------------------------------------------------------------------
# The noise lemma
# ------------------------------------------------------------------------------------------------------
def test_noise_lemma_slack_is_relative_to_the_larger_magnitude():
    """slack() = min of (δ − max c1)/max(|max c1|, δ) and (min c2 − Δ)/max(|min c2|, |Δ|), on literal numbers."""
    from theorems.deep_fusion.noise_lemma import slack

    c1, c2 = torch.tensor([0.2, 0.3], dtype=torch.float64), torch.tensor([0.9, 1.0], dtype=torch.float64)
    assert slack(c1, c2, 0.35, 0.45) == pytest.approx(0.05 / 0.35, rel=1e-12)  # case 1 the tighter
    assert slack(c1, c2, 0.25, 0.45) == pytest.approx(-0.05 / 0.3, rel=1e-12)  # max c1 beyond δ
    assert slack(c1, c2, 0.6, 0.85) == pytest.approx(0.05 / 0.9, rel=1e-12)  # case 2 the tighter


def test_noise_lemma_search_runs_only_when_asked(run):
    """adversarial_steps = 0 (the default) measures the drawn noise: no search, so no search slacks recorded."""
    ev = run("deep_fusion.noise_lemma", instances=4)
    assert ev.params["adversarial_steps"] == 0 and "adversarial_start_slack" not in ev.details
    # (a run with steps records them: checks/test_000_deep_fusion.py's adversarial-search test; not repeated here,
    # it costs the optimiser's first import)


def test_noise_lemma_noisy_norm_control_scales_the_attained_bound(run):
    """The registered control ‖x̃‖ = 1.5 on the extremal construction: |x̃ᵀu| = 1.5δ exactly (case 1 fails by half
    of δ), so the control is the norm, not a rounding."""
    rid = "deep_fusion.noise_lemma"
    control = dict(mode="adversarial", noisy_norm=1.5, allow_violation=True)
    assert control in [dict(c) for c in registry.get(rid).controls]
    from theorems.core.verdict import run_spec

    ev = recording.expect(run_spec(run, registry.get(rid), control), recording.FAILS)
    c = ev.claim("case1_upper_bound")
    assert not c.passed and c.observed == pytest.approx(1.5 * c.bound, rel=1e-12), c


# ------------------------------------------------------------------------------------------------------
# Theorem 1: the proof-margin step's bound 1 from both sides, and the registered pin / binding numbers
# ------------------------------------------------------------------------------------------------------
T1ID = "deep_fusion.theorem_1"


def test_theorem_1_proof_margin_is_one_on_the_paper_example_and_0_1_on_its_erratum(run):
    """The proof's margin over Definition 1's ρ: exactly 1 on the paper's example (the step holds with equality),
    0.0705/0.707 ≈ 0.0998 on the erratum's near-dependent lines (worst line; it fails): the bound is the literal 1."""
    ok = run(T1ID, form="as_printed", instance="paper_example").claim("proof_margin_at_least_rho")
    assert ok.passed and abs(ok.observed - 1.0) < 1e-12 and ok.bound == 1.0, ok
    bad = recording.expect(run(T1ID, form="as_printed", instance="k3_near_dependent"), *recording.OUTCOMES)
    c = bad.claim("proof_margin_at_least_rho")
    assert not c.passed and abs(c.observed - 0.0705 / 0.7071) < 5e-4, c  # its third line's margin ρ̃ = 0.0705


def test_theorem_1_registered_lp_pin_sits_at_four_lp_zeros(run):
    """The registered pin ε_z = 4e-6: the witness LP's dual bound is t* = ε_z²/4 = 4e-12 (four LP_ZEROs), below
    WITNESS_ATOL, so the LP can decide nothing there (not converged)."""
    from theorems.core.verdict import run_spec

    pin = dict(instance="k3_near_dependent", eps_z=4e-6, form="as_printed")
    result = registry.get(T1ID)
    assert pin in [dict(p) for p in result.pins]
    ev = recording.expect(run_spec(run, result, pin), *recording.OUTCOMES)
    assert ev.details["witness_lp_dual_upper_min"] == pytest.approx(4e-6 ** 2 / 4, rel=1e-3)
    assert ev.converged is False


def test_theorem_1_binding_margin_is_its_printed_distance(run):
    """The registered binding ('u₃ ∝ (1, 1, 0.02): … ρ̃ = 0.014'): ρ̃ = 0.02/√2 on that instance, and it holds."""
    from theorems.core.verdict import run_spec

    (b,) = registry.get(T1ID).binding
    assert "ρ̃ = 0.014" in b.margin
    ev = run_spec(run, registry.get(T1ID), b.params, b.form)
    assert ev.holds and abs(ev.details["rho_tilde_min"] - 0.02 / 2 ** 0.5) < 1e-4


# ------------------------------------------------------------------------------------------------------
# Tables: the one-printed-unit thresholds from both sides, and the controls' claims
# ------------------------------------------------------------------------------------------------------
TBID = "deep_fusion.tables"
UNIT_PINS = [  # (the cell move, the claim group, the claim): the smallest difference becomes 0.005 / 0.02
    ("t2:ImageNet-200/TF/1.9M:unsup", "gains", "tf_outperforms_everywhere", -2.25),
    ("t2:CIFAR100/FFN/7.4M:unsup", "larger_heads", "larger_heads_more_accurate", -0.68),
    ("t2:CIFAR10/TF/7.6M:hours", "larger_heads", "larger_heads_slower", -0.86),
]


@pytest.mark.parametrize("cell, group, name, zero", UNIT_PINS, ids=[u[2] for u in UNIT_PINS])
def test_tables_one_unit_thresholds_are_pinned_from_both_sides(run, cell, group, name, zero):
    """Moving the cell by ``zero`` makes the difference 0 (the registered control); by zero + 0.005 it is half a
    printed unit (a registered pin: fails the 0.01 threshold, passes 0.001), by zero + 0.02 two units (holds;
    fails 0.1)."""
    from decimal import Decimal as Dec

    from theorems.core.verdict import run_spec

    result = registry.get(TBID)
    half = dict(claim=group, perturb=f"{cell}:{Dec(str(zero)) + Dec('0.005')}", allow_violation=True)
    assert half in [dict(p) for p in result.pins]
    c = recording.expect(run_spec(run, result, half), recording.FAILS).claim(name)
    assert not c.passed and c.observed == pytest.approx(0.005, abs=1e-12), c
    two = recording.expect(run(TBID, claim=group, perturb=f"{cell}:{Dec(str(zero)) + Dec('0.02')}",
                               allow_violation=True), *recording.OUTCOMES).claim(name)
    assert two.passed and two.observed == pytest.approx(0.02, abs=1e-12), two


def test_tables_controls_fail_the_claim_they_name(run):
    """The registered TF = FFN control fails 'consistently outperforms' itself with a gain of 0 (it fails the
    bracketed-gain claim too, which alone would hide a claim taking the best column)."""
    from theorems.core.verdict import run_spec

    control = dict(claim="gains", perturb="t2:ImageNet-200/TF/1.9M:unsup:-2.25", allow_violation=True)
    result = registry.get(TBID)
    assert control in [dict(c) for c in result.controls]
    c = recording.expect(run_spec(run, result, control), recording.FAILS).claim("tf_outperforms_everywhere")
    assert not c.passed and c.observed == 0.0, c


# ------------------------------------------------------------------------------------------------------
# fusion_trend: the slope's z-score and the worst step along every axis
# ------------------------------------------------------------------------------------------------------
def test_fusion_trend_fit_slope_matches_numpy():
    """Least squares with its standard error, in numpy: a small se (< 1) must give a finite z."""
    from theorems.deep_fusion.fusion_trend import fit_slope

    x = np.array([0.0, 1.0, 2.0, 3.0, 4.0])
    y = np.array([0.1, 1.0, 2.2, 2.9, 4.05])
    b, a = np.polyfit(x, y, 1)
    resid = y - (a + b * x)
    se = math.sqrt((resid @ resid) / (len(x) - 2) / ((x - x.mean()) @ (x - x.mean())))
    got_b, got_z = fit_slope(torch.tensor(x), torch.tensor(y))
    assert se < 1 and got_b == pytest.approx(b, rel=1e-12) and got_z == pytest.approx(b / se, rel=1e-10)
    assert fit_slope(torch.tensor(x), torch.tensor(2 * x))[1] == math.inf  # an exact line: se = 0


def test_fusion_trend_formula_steps_are_the_worst_steps_on_every_axis():
    """formula_steps' n and θ entries are the largest step against the stated direction (recomputed here from
    log γ_B; the ε entry: checks/test_pins_000_mut000.py), on grids where the steps differ."""
    from theorems.deep_fusion import fusion_trend as FT
    from theorems.deep_fusion.fusion import log_gamma_B

    p = dict(nus=(2, 4, 8), eps_values=(0.001, 0.01, 0.03), angles=(30.0, 45.0, 80.0), nu=4, eps=0.01, angle_deg=45.0)

    def lg(n, eps, angle):
        phi = math.acos(1 - eps)
        return log_gamma_B(n, math.sin(phi), math.cos(math.pi / 2 - math.radians(angle) + phi))

    by_n = [lg(2 * nu, 0.01, 45.0) for nu in p["nus"]]
    by_angle = [lg(8, 0.01, a) for a in p["angles"]]
    n_steps = [b - a for a, b in zip(by_n, by_n[1:])]
    angle_steps = [a - b for a, b in zip(by_angle, by_angle[1:])]
    assert len(set(n_steps)) == 2 and len(set(angle_steps)) == 2
    steps = FT.formula_steps(p)
    assert steps["n"] == max(n_steps) and steps["angle"] == max(angle_steps)


def test_witness_lp_bounds_meet_at_the_optimum():
    """Theorem 1's witness LP on hand cases: M = I on two orthogonal lines gives t* = 1, lines at cos 0.6 beside
    an orthogonal one give t* = 0.8 (min of 1, 0.6·…); the dual bound equals the primal there (strong duality: a
    finite certificate, not inf), and x₂ = −x₁ is certified to have no witness (upper ≤ LP_ZERO)."""
    from theorems.deep_fusion._witness import block_diagonal_lp_bounds

    X = torch.tensor([[[1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
                      [[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
                      [[1.0, 0.0, 0.0], [0.6, 0.8, 0.0], [0.0, 0.0, 1.0]]], dtype=torch.float64)
    lower, upper = block_diagonal_lp_bounds(X, torch.tensor([0, 0, 1]))
    for b, t in ((0, 1.0), (2, 0.8)):
        assert float(lower[b]) == pytest.approx(t, abs=1e-7) and float(upper[b]) == pytest.approx(t, abs=1e-7), b
    assert abs(float(lower[1])) <= 1e-12 and 0.0 <= float(upper[1]) <= 1e-12


def test_definition_1_binding_is_its_printed_distance(run):
    """The registered binding 'a cluster-2 sample at distance 8e-4 from 𝒰_1': ρ_1 = 8e-4 there (it holds)."""
    from theorems.core.verdict import run_spec

    rid = "deep_fusion.definition_1"
    (b,) = [b for b in registry.get(rid).binding if "distance 8e-4" in b.margin]
    ev = run_spec(run, registry.get(rid), b.params, b.form)
    c = ev.claim("rho_positive")
    assert ev.holds and c.observed == pytest.approx(8e-4, rel=1e-3), c


# ------------------------------------------------------------------------------------------------------
# trained_attention: the final loss and the convergence certificate on literal histories
# ------------------------------------------------------------------------------------------------------
def _training(history):
    from types import SimpleNamespace

    return SimpleNamespace(history=history)


def test_trained_attention_final_loss_is_the_last_tenth():
    """TAIL = 0.1: the final loss of 100 steps (2 seeds) is the mean of the last 10 rows, not of the run."""
    from theorems.deep_fusion.trained_attention import final_loss

    h = torch.arange(100, dtype=torch.float64)[:, None].expand(100, 2)
    assert final_loss(_training(h)) == pytest.approx(94.5, rel=1e-12)  # mean of 90..99
    assert math.isnan(final_loss(_training(h[:0])))


@pytest.mark.parametrize("share, converged", [(0.56, True), (0.54, False)])
def test_trained_attention_gain_min_is_pinned(share, converged):
    """GAIN_MIN = 0.55: a run that removed 56 % of the chance loss log(2N − 1) is converged, 54 % is not (literal
    shares on either side)."""
    from theorems.deep_fusion.trained_attention import budget_gain

    sizes = (4, 4)
    chance = math.log(2 * 8 - 1)
    h = torch.full((50, 2), (1 - share) * chance, dtype=torch.float64)
    out = budget_gain(sizes, _training(h))
    assert out["loss_chance_share_removed"] == pytest.approx(share, rel=1e-12)
    assert out["converged"] is converged


@pytest.mark.parametrize("lift, passes", [(3e-9, True), (0.3e-9, False)])
def test_theorem_1_strict_rtol_is_pinned(monkeypatch, lift, passes):
    """STRICT_RTOL (1e-9): on the paper's example the proof's W attains A_ij = ν_iρ² (ratio 1 to ~1e-15); the
    ratios scaled by 1 + lift put the printed '>' literally 3 tolerances above (holds; ×10 fails it) or 0.3 of
    one (fails; ÷10 passes it)."""
    from theorems.deep_fusion import theorem_1 as T1

    ratio = T1._ratio_per_cluster

    def lifted(*args):
        t, a, b = ratio(*args)
        return t * (1 + lift), a, b

    monkeypatch.setattr(T1, "_ratio_per_cluster", lifted)
    ev = probe(T1ID, form="as_printed", instance="paper_example")
    c = ev.claim("proof_strict_inequality")
    assert c.passed is passes and abs(c.observed - lift) < 1e-12, c


def test_theorem_2_witness_claim_is_the_worst_instance(monkeypatch):
    """witness_reaches_gamma_B is the smallest margin over the instances: the search's best ratio on instance 1 of 3
    lowered to log γ_B − 0.5 fails it with margin −0.5 (the other instances exceed γ_B by e^80)."""

    search = T2.witness_search

    def lowered(ctx, p, Xt, W, labels, logB):
        best, found, winner = search(ctx, p, Xt, W, labels, logB)
        best = best.clone()
        best[1] = logB[1] - 0.5
        return best, found, winner

    monkeypatch.setattr(T2, "witness_search", lowered)
    ev = probe(T2ID, instances=3, restarts=2)
    c = ev.claim("witness_reaches_gamma_B")
    assert not c.passed and c.observed == pytest.approx(-0.5, abs=1e-9), c


def test_definition_2_random_batch_straddles_sharpness_one():
    """The default batch's cluster strengths g_b ∈ GAIN = (−2, 4) are drawn so that the premise 𝒮 > 1 of the
    stringency sentence holds on some drawn matrices and fails on others (here 3 of 16 are sharp, the largest
    𝒮 = 3.4): the claim bites on the instances themselves, not only along the block-diagonal path."""
    from theorems.core.context import Context
    from theorems.data.subspaces import labels_from_sizes
    from theorems.deep_fusion import definition_2 as D2

    p = dict(registry.get(D2.ID).defaults)
    labels = labels_from_sizes(D2.cluster_sizes(p["K"], p["nu"]))
    A = D2.attention(D2.logits_batch(Context.make(seed=p["seed"]), p, labels), "positive")
    same = labels[:, None] == labels[None, :]
    ratio = A[:, same].amin(-1) / A[:, ~same].amax(-1)  # 𝒮 = min same / max cross, per matrix
    assert 0 < int((ratio > 1).sum()) < ratio.numel() and 2.0 < float(ratio.max()) < 10.0, ratio
