"""Paper 004's transformer depth results with Definition 3.2's factored attention (L-T21, L-T22; issue 28), the
transformer sweeps' certified upper bounds (issue 25), and the depth sweeps' cost model at the deep end.

* ``t21`` / ``t22``: ATTN(Z) = Z + W_O W_V Z softmax(M + ZᵀW_KᵀW_Q Z/√d), written out by hand here; Theorem 4.3
  covers L-T21 (an L-Tx1), Theorem 4.6 L-T22 (an L-Tx2); the certified sweep only (no construction).
* Every default depth check carries ``upper`` at ≥ 5 trained depths, ≥ 3 of them ≥ 10, and ``certified_nc``.
* The cost model (``optim.batched_train.training_cost``) against the CPU time of one thread at a shallow and a deep
  depth (thorough suite: a timing).
"""

from __future__ import annotations

import math
import time

import pytest
import torch

import theorems
from theorems.core import recording
from theorems.core.context import Context
from theorems.core.verdict import run_spec
from theorems.data.sequences import prefix_sum_sequences
from theorems.neural_collapse import depth_trend as DT
from theorems.neural_collapse import transformer_depth as TD
from theorems.neural_collapse.models import (FACTORED, ModelSpec, features, init_params, objective,
                                             pad_with_identity_blocks, unpack)
from theorems.optim.lbfgs import autograd_objective

D = 6
DEPTH_IDS = (DT.ID_43, DT.ID_46, TD.ID_43T, TD.ID_46T)
CHEAP = dict(train_depths=(1, 2, 10), train_iter=5, window=5)


def _ln(v):
    c = v - v.mean(0)
    return math.sqrt(c.shape[0]) * c / c.norm(dim=0)


@pytest.mark.parametrize("arch", FACTORED)
def test_factored_attention_matches_definition_3_2_by_hand(arch):
    """Post-LN L-T2x, one block, one sequence, column by column: B = MLP∘LN∘ATTN∘LN, ATTN(Z) = Z + W_O W_V Z A,
    A[c', c] = softmax over c' ≤ c of z_{c'}ᵀ W_Kᵀ W_Q z_c/√d; f reads LN of every position."""
    tokens, _ = prefix_sum_sequences(2, 2, 3)
    spec = ModelSpec(arch, 1, D, 2, V=2, C=3, readout="all")
    theta = init_params(spec, Context.make(seed=3), 1, inner_scale=1.0)
    p = {k: v[0] for k, v in unpack(spec, theta).items()}
    assert {"Wv", "Wo", "Wq", "Wk"} <= set(p) and "Wvo" not in p
    seq = tokens[5]
    Z = _ln(p["We"][:, seq] + p["Wp"])
    cols = []
    for c in range(3):
        scores = torch.stack([(p["Wk"][0] @ Z[:, j]) @ (p["Wq"][0] @ Z[:, c]) / math.sqrt(D) for j in range(c + 1)])
        w = torch.softmax(scores, 0)
        cols.append(p["Wo"][0] @ p["Wv"][0] @ (Z[:, :c + 1] @ w))
    Z = _ln(Z + torch.stack(cols, 1))
    U = torch.relu(p["W1"][0] @ Z + p["b1"][0])
    if arch == "t22":
        U = p["W2"][0] @ U + p["b2"][0]
    expected = _ln(Z + U)
    got = features(spec, theta, tokens)[0][:, 5 * 3:6 * 3]
    assert torch.allclose(got, expected, atol=1e-12)


@pytest.mark.parametrize("arch", FACTORED)
def test_factored_identity_padding_is_exact_and_trainable(arch):
    """Padded blocks (W_O = W_Q = 0, small W_V, W_K) leave the function unchanged, and the gradient reaches W_O there
    (W_O = W_V = 0 would shield each other: a saddle); W_Q's follows once W_O ≠ 0, as W_QK's does for L-T11."""
    tokens, labels = prefix_sum_sequences(2, 2, 3)
    ctx = Context.make(seed=4)
    spec = ModelSpec(arch, 1, D, 2, V=2, C=3, readout="all")
    theta = init_params(spec, ctx, 2, inner_scale=1.0)
    padded = pad_with_identity_blocks(spec, theta, 3, ctx=ctx)
    deep = spec.with_depth(3)
    assert torch.allclose(features(deep, padded, tokens), features(spec, theta, tokens), atol=1e-12)
    _, g = autograd_objective(lambda t: objective(deep, t, tokens, labels, "ce", 0.05, 0.05))(padded)
    grads = unpack(deep, g)
    assert float(grads["Wo"][:, 1:].abs().max()) > 0
    assert float(padded[:, :0].numel()) == 0 and float(unpack(deep, padded)["Wv"][:, 1:].abs().max()) > 0


@pytest.mark.parametrize("rid, arch, other", [(TD.ID_43T, "t21", "t22"), (TD.ID_46T, "t22", "t21")])
def test_factored_sweep_is_a_certified_sandwich_only(rid, arch, other, run):
    ev = run_spec(run, theorems.get(rid), dict(arch=arch, **CHEAP))
    recording.expect(ev, recording.HOLDS, recording.NOT_CONVERGED)  # 5 iterations per depth: a shape check
    lower = ev.details["gufm_optimum"]
    rows = {r["depth"]: r for r in ev.details["sandwich"]}
    assert sorted(rows) == [1, 2, 10] and all(math.isfinite(r["upper"]) and r["upper"] >= lower for r in rows.values())
    assert rows[10]["upper"] <= rows[1]["upper"]  # monotone envelope
    assert "construction" not in ev.details and not any(c.name.startswith("construction") for c in ev.claims)
    assert [c.name for c in ev.claims if c.kind == "bound"] == ["sandwich_lower"] and ev.claim("sandwich_lower").passed
    # the other theorem's factored architecture is outside this result's declared domain
    assert other not in next(q for q in theorems.get(rid).params if q.name == "arch").choices


@pytest.mark.parametrize("rid", DEPTH_IDS)
def test_every_default_depth_check_carries_upper_at_five_depths(rid, run):
    """Issue 25's bar for every default depth check: a certified ``upper`` at ≥ 5 trained depths, ≥ 3 of them ≥ 10,
    and ``certified_nc`` (Lemma 4.1 on the certified excess; its depth is None while the excess is above ε₀)."""
    ev = run(rid)
    trained = sorted(int(L) for L in ev.details["trained"])
    assert len(trained) >= 5 and sum(L >= 10 for L in trained) >= 3, trained
    rows = {r["depth"]: r for r in ev.details["sandwich"]}
    assert all(math.isfinite(rows[L]["upper"]) for L in trained)
    assert "certified_nc" in ev.details and ev.details["certified_nc"]["eps0"] > 0


@pytest.mark.parametrize("rid", (TD.ID_43T, TD.ID_46T))
def test_transformer_certified_excess_falls_but_stays_open(rid, run):
    """The transformer sweeps' certified excess falls with depth (every local slope < 0) but at depth 24 it is still
    tens of % of L*: recorded as measurements, the status open (no bound claim decides it but the exact lower side)."""
    ev = run(rid)
    assert str(theorems.get(rid).status) == "open"
    lower = ev.details["gufm_optimum"]
    rows = {r["depth"]: r for r in ev.details["sandwich"]}
    trained = sorted(int(L) for L in ev.details["trained"])
    excess = [rows[L]["upper"] - lower for L in trained]
    assert all(b < a for a, b in zip(excess, excess[1:], strict=False)), excess
    assert excess[-1] / lower > 0.01  # the 1 % bar is not met: a trend is not earned
    assert ev.claim("certified_excess_target").kind == "measurement"


def _cpu_of(rid, **kw):
    t = time.process_time()
    theorems.check(rid, **kw)
    return time.process_time() - t


# The cost model is an operation count; at ~1.7e9 operation equivalents per second of one core (the rate the
# ceiling of core.params assumes) it predicts the CPU seconds of a depth's training within this factor, at the
# shallow and at the deep end alike (measured 0.4–0.5 for ResNets at 37 and 289 blocks, 0.6–1.8 for transformers).
OPS_PER_SECOND = 1.7e9
COST_FACTOR = 4.0


@pytest.mark.parametrize("rid, module, depths, extra", [
    (DT.ID_43, DT, (37, 289), dict(depths=(19, 37, 73), train_iter=20)),
    (TD.ID_43T, TD, (4, 24), dict(train_iter=40)),
])
def test_cost_model_predicts_the_deep_end(rid, module, depths, extra, suite):
    """One window of ``train_iter`` iterations (no early plateau stop) at a shallow and a deep depth: the CPU time
    of each is within COST_FACTOR of the cost model's, and the deep/shallow ratio within a factor 2 of the model's
    ratio (the model is linear in the blocks; the O(blocks²) backward of per-block indexing and torch's second thread
    made the deep end 10–25× costlier before, issue 25). A timing: thorough suite only."""
    if suite.name != "thorough":
        pytest.skip("a CPU-time comparison: thorough suite")
    res = theorems.get(rid)
    measured, predicted = [], []
    for L in depths:
        kw = dict(train_depths=(L,), window=extra["train_iter"], **extra)
        p = {q.name: q.default for q in res.params} | kw
        predicted.append(module.cost(p).work / OPS_PER_SECOND)
        measured.append(_cpu_of(rid, **kw))
    for m, q in zip(measured, predicted, strict=True):
        assert q / COST_FACTOR <= m <= q * COST_FACTOR, (depths, measured, predicted)
    ratio = (measured[1] / measured[0]) / (predicted[1] / predicted[0])
    assert 0.5 <= ratio <= 2.0, (depths, measured, predicted)
