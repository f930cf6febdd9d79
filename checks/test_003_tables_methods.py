"""Paper 003, Tables 1–2 (``cl_generalization.tables_1_2``): the batched training routes every model to its own
method's loss, MoCo's key encoder is an exponential moving average, and the recorded measurements stay finite
where a table is flat."""

from __future__ import annotations

import pytest
import torch

import theorems
from theorems.cl_generalization import tables_1_2 as T
from theorems.core.context import Context

ID = T.ID
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
