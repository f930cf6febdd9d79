"""Tables 1–2: every method's accuracy rises with nested augmentation and with strength (finite analogue, measured)
(paper 003, `cl_generalization.tables_1_2`): the checks particular to this result, its hand cases against
independent references, pins and hypothesis edges. What every result passes runs in checks/test_conformance.py."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from scipy.stats import spearmanr

import theorems
from checks.pinning import assert_hypothesis_edge, row_ids
from theorems import HypothesisViolation
from theorems.cl_generalization import population as P
from theorems.cl_generalization import tables_1_2 as T
from theorems.core.context import Context

ID = T.ID


def _ctx(seed=0):
    return Context("cpu", seed, torch.float64)


def _params(**kw):
    import theorems

    p = theorems.get(ID).defaults
    p.update(kw)
    return p


# -- the nested view sets -------------------------------------------------------------------------------------
@pytest.mark.parametrize("table", T.TABLES)
def test_cells_are_nested_view_sets(table):
    cells = T.build_cells(_params(), _ctx())[table]
    for (poor, _, _), (rich, _, _) in zip(cells, cells[1:], strict=False):
        assert torch.equal(poor.clean, rich.clean)  # the same points in every cell
        real_poor = int((poor.view_w[0] > 0).sum())
        real_rich = int((rich.view_w[0] > 0).sum())
        assert real_rich == real_poor + 1  # one new view per level (per_level = 1)
        # A(x) ⊆ A'(x): every real view of the poorer cell is a view of the richer one
        assert torch.equal(poor.views[:, :real_poor], rich.views[:, :real_poor])
        # the padding is the identity view with weight 0, so d_A sees only the real views
        assert torch.equal(rich.views[:, real_rich:], rich.clean[:, None].expand_as(rich.views[:, real_rich:]))
        assert float(rich.view_w[:, real_rich:].abs().sum()) == 0.0
        # hence d_{A'} ≤ d_A entrywise (the Remark after Definition 1), computed here on the real views only
        da_poor = P.augmented_distance(poor.views[:, :real_poor])
        da_rich = P.augmented_distance(rich.views[:, :real_rich])
        assert bool((da_rich <= da_poor).all())
        assert float((da_rich - da_poor).min()) < 0  # and strictly smaller somewhere: the level adds something


def test_table_2_strength_scales_only_the_colour_block():
    p = _params()
    cells = T.build_cells(p, _ctx())["strength"]
    pop = cells[-1][0]
    x, lo = pop.clean, T.CONTENT_DIM + T.COLOUR * T.NUISANCE_DIM
    # view ℓ (ℓ = 1…4) keeps (1 − s_ℓ) of the point's colour block: its distance to the template view at s = 1
    # scales like 1 − s_ℓ (the same template bank for every level is not assumed, so compare to the point)
    for ell, s in enumerate(p["strengths"], start=1):
        block = pop.views[:, ell, lo:lo + T.NUISANCE_DIM]
        resid = block - (1 - s) * x[:, lo:lo + T.NUISANCE_DIM]
        # what remains is the same template for every point: (s · T_ℓ)
        assert torch.allclose(resid, resid[:1].expand_as(resid), atol=1e-12)
    # the blocks (b), (c), (e) are untouched by Table 2
    for b in (1, 2, 4):
        sl = slice(T.CONTENT_DIM + b * T.NUISANCE_DIM, T.CONTENT_DIM + (b + 1) * T.NUISANCE_DIM)
        assert torch.equal(pop.views[:, :, sl], x[:, None, sl].expand_as(pop.views[:, :, sl]))


# -- the methods' losses ---------------------------------------------------------------------------------------
def test_moco_with_its_own_keys_is_simclr():
    # momentum 0 makes the key encoder the query encoder: MoCo's population loss is then SimCLR's
    ctx = _ctx(3)
    H = ctx.randn(2, 5, 3, 4)
    W = torch.full((2, 5, 3), 1 / 3, dtype=torch.float64)
    p = dict(tau=0.7, negatives=9)
    ref = P.simclr_loss(T._unit(H), W, 0.7, 9)
    assert torch.allclose(T.moco(H, H, W, p), ref, rtol=1e-12, atol=0)


def test_moco_negatives_are_an_expectation_over_the_keys():
    # hand computation for one model: E_{x,a,b}[−q_aᵀk_b/τ + log(e^{q_aᵀk_b/τ} + n Σ_{y,c} w/N e^{q_aᵀk_yc/τ})]
    ctx = _ctx(4)
    H, Hk = ctx.randn(1, 3, 2, 3), ctx.randn(1, 3, 2, 3)
    W = torch.tensor([[[0.5, 0.5], [1.0, 0.0], [0.25, 0.75]]], dtype=torch.float64)
    tau, n = 0.5, 4
    q, k = T._unit(H)[0], T._unit(Hk)[0]
    total = 0.0
    for x in range(3):
        for a in range(2):
            neg = sum(W[0, y, c] / 3 * math.exp(float(q[x, a] @ k[y, c]) / tau) for y in range(3) for c in range(2))
            for b in range(2):
                s = float(q[x, a] @ k[x, b]) / tau
                total += W[0, x, a] * W[0, x, b] / 3 * (-s + math.log(math.exp(s) + n * neg))
    assert float(T.moco(H, Hk, W, dict(tau=tau, negatives=n))[0]) == pytest.approx(float(total), rel=1e-12)


def test_barlow_twins_features_have_unit_second_moment_and_padding_is_ignored():
    ctx = _ctx(5)
    H = ctx.randn(2, 4, 3, 5)
    W = torch.tensor([[1 / 2, 1 / 2, 0.0]] * 4, dtype=torch.float64).expand(2, 4, 3)
    G = T.bt_features(H, W)
    assert torch.allclose(torch.einsum("snm,snmi->si", W / 4, G ** 2), torch.ones(2, 5, dtype=torch.float64))
    # a zero-weight view changes nothing: the loss equals the one on the real views alone
    full = T.barlow_twins(H, W, dict(bt_lam=0.3))
    real = T.barlow_twins(H[:, :, :2], W[:, :, :2], dict(bt_lam=0.3))
    assert torch.allclose(full, real, rtol=1e-12)
    # and matches the suite's unbatched L_CC on one model
    one = P.barlow_twins_loss(P.correlation(P.bt_normalize(H[0, :, :2], W[0, :, :2]), W[0, :, :2]), 0.3)
    assert float(full[0]) == pytest.approx(float(one), rel=1e-12)


def test_simsiam_loss_is_minus_one_when_the_predictor_is_the_identity_and_views_agree():
    H = _ctx(6).randn(1, 3, 1, 4).expand(1, 3, 2, 4).contiguous()
    W = torch.full((1, 3, 2), 0.5, dtype=torch.float64)
    assert float(T.simsiam(H, torch.eye(4, dtype=torch.float64)[None], W)[0]) == pytest.approx(-1.0, abs=1e-12)


def test_probe_separates_separable_features_and_not_shuffled_ones():
    ctx = _ctx(7)
    y = torch.arange(3).repeat_interleave(20)
    centres = 5 * torch.eye(3, dtype=torch.float64)
    F = (centres[y] + 0.1 * ctx.randn(60, 3))[None, :, None, :]
    W = torch.ones(1, 60, 1, dtype=torch.float64)
    assert float(T.probe_error(F, W, y, 3, F[:, :, 0], y)[0]) == 0.0
    noise = ctx.randn(1, 60, 1, 3)
    assert float(T.probe_error(noise, W, y, 3, ctx.randn(1, 60, 3), y)[0]) > 0.3


# -- the registered instance -----------------------------------------------------------------------------------
def test_table_numbers_and_claims_are_the_recorded_ones(run):
    ev = run(ID)
    d = ev.details
    assert d["dataset"] == T.DATASET and "linear probe" in d["not_comparable_to_cifar"]
    methods = [T.LABELS[m] for m in T.RESULT.defaults["methods"]]
    assert [r["cell"] for r in d["table_1"]] == ["(a)", "(a, b)", "(a, b, c)", "(a, b, c, d)", "(a, b, c, d, e)"]
    assert len(d["table_2"]) == len(T.RESULT.defaults["strengths"])
    for table, key in zip(T.TABLES, ("table_1", "table_2"), strict=True):
        rows = d[key]
        for code, label in zip(T.RESULT.defaults["methods"], methods, strict=True):
            errs = np.array([r[label]["errors"] for r in rows])
            assert errs.shape[1] == T.RESULT.defaults["seeds"]
            mean = errs.mean(1)
            assert [r[label]["error_mean"] for r in rows] == pytest.approx(mean.tolist(), abs=1e-15)
            assert [r[label]["error_sd"] for r in rows] == pytest.approx(errs.std(1).tolist(), abs=1e-15)
            claim = ev.claim(f"monotone_{table}_{code}")
            assert claim.kind == "bound" and claim.observed == pytest.approx(max(np.diff(mean)), abs=1e-15)
            assert claim.passed == bool(max(np.diff(mean)) <= 0)
            ends = ev.claim(f"endpoints_{table}_{code}")
            assert (ends.observed, ends.bound) == (mean[-1], mean[0]) and ends.passed == bool(mean[-1] <= mean[0])
            # the mechanism, recomputed: Spearman(δ(σ₀), error) and, pair by pair, did the error fall where δ fell
            delta = [r["delta_at_sigma0"] for r in rows]
            rho = spearmanr(delta, mean).statistic if np.ptp(mean) > 0 else 0.0
            assert ev.claim(f"spearman_{table}_{code}").observed == pytest.approx(rho, abs=1e-12)
            assert d["mechanism_cells"][f"{table}_{code}"] == [
                bool(mean[c + 1] < mean[c]) if delta[c + 1] < delta[c] else None for c in range(len(mean) - 1)]
        # concentration: the identity holds (nested view sets), and δ(σ₀) is nonincreasing down the table
        assert ev.claim(f"concentration_monotone_{table}").passed
        delta = [r["delta_at_sigma0"] for r in rows]
        assert all(b <= a for a, b in zip(delta, delta[1:], strict=False)) and delta[-1] < delta[0]


def test_destroying_the_class_breaks_every_monotone_claim(run):
    ev = run(ID, **T.CONTROL_DESTROY)
    bounds = [c for c in ev.claims if c.kind == "bound"]
    assert len(bounds) == 4 * len(T.RESULT.defaults["methods"])
    assert not any(c.passed for c in bounds), [c.name for c in bounds if c.passed]
    with pytest.raises(HypothesisViolation, match="preserve the class"):
        run(ID, destroy="d")


def test_table_1_level_l_replaces_exactly_the_first_l_blocks():
    pop = T.build_cells(_params(), _ctx())["nested"][-1][0]
    x = pop.clean
    for ell in range(1, len(T.TRANSFORMS) + 1):  # view ℓ is level ℓ's: (a, …, ℓ-th transformation)
        for b in range(len(T.TRANSFORMS)):
            sl = slice(T.CONTENT_DIM + b * T.NUISANCE_DIM, T.CONTENT_DIM + (b + 1) * T.NUISANCE_DIM)
            block = pop.views[:, ell, sl]
            if b < ell:  # replaced: one template shared by every point
                assert torch.allclose(block, block[:1].expand_as(block), atol=1e-12)
            else:  # untouched: the point's own block
                assert torch.equal(block, x[:, sl])


TINY = dict(seeds=1, steps=1, n_train=4, n_test=5, hidden=4, d=4)


def _trained(methods):
    p = theorems.get(ID).defaults
    p.update(TINY, methods=methods)
    ctx = Context("cpu", 0, torch.float64)
    cells = T.build_cells(p, ctx)["nested"]
    return T.train(cells, p, ctx), cells


def test_each_model_trains_on_its_own_methods_loss():
    # one model per cell; the same initial weights whatever the method (one method per call, same draws), and at
    # step 0 MoCo's keys are the queries, so MoCo's initial loss is SimCLR's; SimSiam's is a negative cosine
    simclr, _ = _trained(["simclr"])
    moco, _ = _trained(["moco"])
    simsiam, _ = _trained(["simsiam"])
    bt, cells = _trained(["barlow_twins"])
    assert torch.allclose(moco["initial"], simclr["initial"], rtol=1e-12, atol=0)
    assert bool(((simsiam["initial"] >= -1) & (simsiam["initial"] <= 1)).all())
    assert bool((simclr["initial"] > 0).all())
    # Barlow Twins' initial loss, recomputed from the first model's initial embedding
    H0 = T.BatchedMLP(T.sub_context(Context("cpu", 0, torch.float64), 1), 1, cells[0][0].views.shape[-1],
                      TINY["hidden"], TINY["d"]).each(cells[0][0].views.reshape(1, -1, cells[0][0].views.shape[-1]))
    H0 = H0.reshape(1, *cells[0][0].views.shape[:2], -1)
    ref = T.barlow_twins(H0, cells[0][0].view_w[None], dict(bt_lam=theorems.get(ID).defaults["bt_lam"]))
    assert float(bt["initial"][0]) == pytest.approx(float(ref[0].detach()), rel=1e-12)


def test_moco_key_encoder_is_a_moving_average():
    key = [torch.tensor([1.0, 2.0], dtype=torch.float64)]
    T.ema(key, [torch.tensor([3.0, -2.0], dtype=torch.float64)], 0.75)
    assert key[0].tolist() == [0.75 * 1 + 0.25 * 3, 0.75 * 2 + 0.25 * -2]


def test_identity_claims_are_at_most_claims(run):
    ev = run(ID)
    for table in T.TABLES:
        claim = ev.claim(f"concentration_monotone_{table}")
        curves = ev.details[f"{'table_1' if table == 'nested' else 'table_2'}_sigma_curves"]
        worst = max(max(a - b for a, b in zip(lo, hi, strict=True)) for lo, hi in zip(curves, curves[1:], strict=False))
        assert claim.relation == "<=" and claim.observed == worst and claim.bound == 0.0


def test_a_flat_table_records_a_zero_correlation_not_nan(run):
    # classes far apart: every cell classifies every held-out point, so the errors are flat and Spearman undefined
    ev = run(ID, separation=100.0, methods=["simclr"], **TINY)
    for table in T.TABLES:
        assert [r["SimCLR"]["error_mean"] for r in ev.details["table_1" if table == "nested" else "table_2"]] \
            == [0.0] * (5 if table == "nested" else 4)
        assert ev.claim(f"spearman_{table}_simclr").observed == 0.0


HYPOTHESIS_EDGES = [
    # the experiments: a transformation that also replaces the class content (instances.destroy_hypotheses)
    ("cl_generalization.tables_1_2", None, dict(destroy="e"), "transformations preserve the class"),
    ("cl_generalization.tables_1_2", None, dict(destroy="none"), None),
]


@pytest.mark.parametrize("rid, form, params, name", HYPOTHESIS_EDGES, ids=row_ids(HYPOTHESIS_EDGES))
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)


# -- the experiments' tables: what each row is, and the claims on literal error curves ----------------------------
def test_table_levels_are_the_printed_rows():
    """Table 1's rows are (a), (a, b), …, (a, …, e) (level ℓ applies the first ℓ + 1 transformations at full
    strength); Table 2's are (a) with (d) colour distortion at each strength."""
    from theorems.cl_generalization import tables_1_2 as T
    from theorems.core import registry

    p = registry.validate_structure(registry.get(T.ID), dict(strengths=[0.25, 1.0]), "as_printed")
    assert [tuple(lv.blocks) for lv in T.table_1_levels(p)] == [
        (1.0, 0.0, 0.0, 0.0, 0.0), (1.0, 1.0, 0.0, 0.0, 0.0), (1.0, 1.0, 1.0, 0.0, 0.0), (1.0, 1.0, 1.0, 1.0, 0.0),
        (1.0, 1.0, 1.0, 1.0, 1.0)]
    assert [tuple(lv.blocks) for lv in T.table_2_levels(p)] == [(1.0, 0.0, 0.0, 0.25, 0.0), (1.0, 0.0, 0.0, 1.0, 0.0)]


def test_probe_error_is_per_seed():
    """A ridge probe on two separable classes (e₁, e₂; one view each): seed 0's held-out points are the training
    points (error 0), seed 1's are swapped between the classes (error 1): one error per seed, not per point."""
    import torch

    from theorems.cl_generalization.tables_1_2 import probe_error

    X = torch.tensor([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]], dtype=torch.float64)
    F = torch.stack([X, X])[:, :, None, :]  # (S = 2, N = 4, m = 1, d = 2)
    W = torch.ones(2, 4, 1, dtype=torch.float64)
    y, y_test = torch.tensor([0, 0, 1, 1]), torch.tensor([0, 1, 1])
    G = torch.stack([X[[0, 2, 3]], X[[2, 0, 0]]])
    err = probe_error(F, W, y, 2, G, y_test)
    assert err.shape == (2,) and err.tolist() == [0.0, 1.0], err
