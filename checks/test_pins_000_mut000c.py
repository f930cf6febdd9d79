"""Paper 000 (Deep Fusion): the held-out seed-37 mutation sample of fusion_trend, tables, algorithm_1,
trained_attention, head, fusion, _common and _witness (issue 26, item 9). Each test states the number it pins as
a literal or recomputes it independently, and each claim that aggregates over instances/runs is shown to take the
worst one (one entry patched to violate by a literal margin)."""

from __future__ import annotations

import torch

from checks.pinning import assert_identity_fails, probe
from theorems.core import recording
from theorems.deep_fusion import algorithm_1 as A1

A1ID = "deep_fusion.algorithm_1"
SMALL = dict(K=2, r=1, nu=2, m=3, instances=3, restarts=4, T=20)  # 4 samples per instance: a cheap exact ρ


def _patched_runs(monkeypatch, margin: float, instance: int, k: int, run: int) -> None:
    """Algorithm 1's runs replaced by literal values 0.1 below the (certified upper end of the) exact ρ_k, except
    one run of one class of one instance set ``margin`` above it."""
    exact = {}
    integrity = A1.cluster_integrity

    def keep(*args):
        exact["up"] = integrity(*args).rho_k_upper
        return integrity(*args)

    def runs(ctx, X, labels, K, T, alpha, tau, restarts, sign_fix):
        ref = exact["up"]  # (B, K)
        out = (ref - 0.1).unsqueeze(-1).expand(-1, -1, restarts).clone()
        out[instance, k, run] = ref[instance, k] + margin
        return out

    monkeypatch.setattr(A1, "cluster_integrity", keep)
    monkeypatch.setattr(A1, "greedy_rho", runs)


def test_algorithm_1_lower_bound_claim_takes_the_worst_run(monkeypatch):
    """lower_bound_on_exact_rho is the largest excess over every (instance, class, run): one run of class 1 of
    instance 2 (of 3) set 1e-6 above the exact ρ_1 (10⁴ LOWER_ATOLs) fails the identity; every run 0.1 below holds
    (the literal −0.1 is the observed value), so neither a mean nor the best run could stand for the claim."""
    _patched_runs(monkeypatch, 1e-6, instance=2, k=1, run=3)
    assert_identity_fails(A1ID, "lower_bound_on_exact_rho", **SMALL)
    monkeypatch.undo()
    _patched_runs(monkeypatch, -0.1, instance=2, k=1, run=3)
    c = probe(A1ID, **SMALL).claim("lower_bound_on_exact_rho")
    assert c.passed and abs(c.observed + 0.1) < 1e-12, c


def test_algorithm_1_lower_bound_claim_reads_min_over_classes(monkeypatch):
    """The same on the first entry (instance 0, class 0, run 0): no position of the patched run escapes the
    maximum."""
    _patched_runs(monkeypatch, 1e-6, instance=0, k=0, run=0)
    assert_identity_fails(A1ID, "lower_bound_on_exact_rho", **SMALL)


# ------------------------------------------------------------------------------------------------------
# fusion_trend: each sweep's plotted prediction is the commentary's direction
# ------------------------------------------------------------------------------------------------------
def _small_trend(run):
    """A cheap sweep inside the commentary's assumption δ < Δ (its ε and θ claims fail: the two errata)."""
    ev = run("deep_fusion.fusion_trend", instances=2, nus=(2, 3, 4), eps_values=(0.001, 0.003, 0.01),
             angles=(45.0, 60.0, 75.0))
    return recording.expect(ev, recording.FAILS)


def test_fusion_trend_series_predict_the_commentarys_directions(run):
    """The commentary after Theorem 2: the ratio decays as the sequence lengthens (log n: slope ≤ 0), fusion is
    more obvious with smaller noise (log ε: ≤ 0) and with a larger inter-cluster distance (θ: ≥ 0). Literal
    ranges per axis: a flipped sign test would draw the opposite prediction beside the data."""
    ev = _small_trend(run)
    got = {s["x_name"]: s["predicted"] for s in ev.details["scaling"]}
    assert got == {"log n": [None, 0.0], "log ε": [None, 0.0], "θ (degrees)": [0.0, None]}, got


def test_fusion_trend_commentary_claims_read_the_stated_directions(run):
    """Each commentary claim is 'largest step against the stated direction ≤ 0' (literal bound 0): the n sweep
    holds (γ_B falls with n everywhere on the grid: the largest step is < 0), the ε and θ sweeps fail (the two
    errata), each with the worst step of its axis as the observed number."""
    ev = _small_trend(run)
    want = {"commentary_gamma_B_falls_with_n": ("n", True), "commentary_gamma_B_rises_as_noise_falls": ("eps", False),
            "commentary_gamma_B_rises_with_separation": ("angle", False)}
    for name, (axis, passes) in want.items():
        c = ev.claim(name)
        assert (c.relation, c.bound, c.passed) == ("<=", 0.0, passes), c
        assert c.observed == ev.details[f"formula_worst_step_{axis}"] and (c.observed < 0) is passes, c


# ------------------------------------------------------------------------------------------------------
# head: the trained heads use Adam as PyTorch defines it (betas 0.9, 0.999, eps 1e-8), with the cosine rate
# ------------------------------------------------------------------------------------------------------
def test_head_training_is_torch_adam_with_its_default_constants():
    """fit_heads against torch.optim.Adam with the literal (0.9, 0.999) and 1e-8 and the rate set by hand before
    every step, on one head for 4 steps: equal to 1e-12 (an eps ×10 moves the parameters by ~1e-6 here)."""
    import math

    from theorems.core.context import Context
    from theorems.deep_fusion import head as H

    ctx = Context.make(seed=3)
    shape = H.HeadShape(S=1, L=1, d=4, H=2)
    theta0 = H.init_params(ctx, shape)
    data = ctx.randn(1, 2, 6, 4)
    data = data / data.norm(dim=-1, keepdim=True)
    steps, lr, tau = 4, 0.01, 0.2
    mine, _ = H.fit_heads(theta0.clone(), shape, lambda t: data, steps, lr, tau, "views")
    ref = theta0.clone().requires_grad_(True)
    opt = torch.optim.Adam([ref], lr=lr, betas=(0.9, 0.999), eps=1e-8)
    for t in range(steps):
        for group in opt.param_groups:
            group["lr"] = lr * 0.5 * (1 + math.cos(math.pi * t / steps))
        opt.zero_grad()
        H.step_loss(ref, shape, data, tau, "views").sum().backward()
        opt.step()
    assert torch.allclose(mine, ref.detach(), rtol=1e-12, atol=1e-14)
    assert not torch.allclose(mine, theta0, atol=1e-3)  # it moved


# ------------------------------------------------------------------------------------------------------
# _common: the cost model of the exact ρ (what the ResourceLimit check sees before any computation)
# ------------------------------------------------------------------------------------------------------
def test_enumeration_elements_counts_every_sign_pattern():
    """instances · K · 2^(N−1) · N · (m + N), N = n − ν the out-of-cluster samples, written out by hand:
    K = 2, ν = 3 (n = 6, N = 3, m = 4): 2 · 4 · 3 · 7 = 168; K = 3, ν = 2, imbalance 1 (sizes 2, 3, 4: n = 9,
    N = 7, m = 5), 2 instances: 2 · 3 · 64 · 7 · 12 = 32256 (an underestimate would let a blow-up through)."""
    from theorems.deep_fusion._common import enumeration_elements

    assert enumeration_elements(dict(K=2, nu=3, imbalance=0, m=4, instances=1)) == 168.0
    assert enumeration_elements(dict(K=3, nu=2, imbalance=1, m=5, instances=2)) == 32256.0


# ------------------------------------------------------------------------------------------------------
# fusion.block_log_ratio: each sharpness kind on its own matrix (numpy, by hand)
# ------------------------------------------------------------------------------------------------------
def test_block_log_ratio_takes_the_sharpness_of_the_kind_asked():
    """log 𝒮(A′)/𝒮(A) of one block (normalised softmax aggregation) on two hand instances, in numpy: 'exp' reads
    min_same A − max_diff A, 'softmax' the same on A − logsumexp_row A (they differ here by more than 0.02, so a
    block that took one kind's path for the other would be caught)."""
    import numpy as np

    from theorems.deep_fusion.fusion import block_log_ratio

    X = np.array([[[1.0, 0.0, 0.0], [0.9, 0.3, 0.1], [0.0, 1.0, 0.2], [0.2, 0.8, -0.3]],
                  [[0.6, 0.8, 0.0], [0.7, 0.5, 0.5], [0.0, 0.1, 1.0], [-0.2, 0.3, 0.9]]])
    X = X / np.linalg.norm(X, axis=-1, keepdims=True)
    M = np.array([[2.0, 0.3, 0.0], [0.3, 1.5, -0.2], [0.0, -0.2, 1.0]])
    lab = np.array([0, 0, 1, 1])
    same = lab[:, None] == lab[None, :]

    def log_s(A, kind):
        L = A if kind == "exp" else A - np.log(np.exp(A).sum(-1, keepdims=True))
        return L[same].min() - L[~same].max()

    want = {}
    for kind in ("exp", "softmax"):
        rows = []
        for x in X:
            A = x @ M @ x.T
            P = np.exp(A) / np.exp(A).sum(-1, keepdims=True)
            xn = P @ x
            xn = xn / np.linalg.norm(xn, axis=-1, keepdims=True)
            rows.append(log_s(xn @ M @ xn.T, kind) - log_s(A, kind))
        want[kind] = np.array(rows)
        got = block_log_ratio(torch.tensor(X), torch.tensor(M), torch.tensor(lab), kind).numpy()
        assert np.allclose(got, want[kind], rtol=1e-12, atol=1e-12), (kind, got, want[kind])
    assert np.abs(want["exp"] - want["softmax"]).max() > 0.02, want


# ------------------------------------------------------------------------------------------------------
# _witness: a one-dimensional admissible space is solved, not taken for {0}
# ------------------------------------------------------------------------------------------------------
def test_witness_lp_solves_a_one_dimensional_admissible_space():
    """Two equal samples of one cluster (rank 1, no cross pairs): the admissible Z is the 1×1 coefficient c with
    every same-cluster entry c·‖x‖² = c, so t* = BOX = 1 by hand (only an empty space would give 0)."""
    from theorems.deep_fusion._witness import block_diagonal_lp_bounds

    X = torch.tensor([[[1.0, 0.0], [1.0, 0.0]]], dtype=torch.float64)
    lower, upper = block_diagonal_lp_bounds(X, torch.tensor([0, 0]))
    assert abs(float(lower[0]) - 1.0) < 1e-7 and abs(float(upper[0]) - 1.0) < 1e-7, (lower, upper)
