"""Paper 001's token networks: the gradients ``token_training.losses_and_grads`` writes out (the engine's training
step, no autograd graph) are autograd's gradients of :func:`forward` and :func:`contrastive_losses`, for every
activation (one kind and mixed), both losses (one and mixed), every BatchNorm variant (one and mixed per network),
both statistics, no BatchNorm, token norms ζ ≠ 1, and at outputs of norm below the normalisation's ε."""

from __future__ import annotations

import pytest
import torch

from theorems.nonlinear_cl import token_training as tt
from theorems.nonlinear_cl.token_task import D, make_tasks, sample_tokens

F64 = dict(rtol=1e-9, atol=1e-11)  # float64, only the order of the sums differs


def _gen(seed):
    return torch.Generator(device="cpu").manual_seed(seed)


def _setup(models, proto, zeta=1.0, seed=0):
    tasks = make_tasks(_gen(seed), [1, 3], zeta, torch.float32, "cpu")
    g = _gen(seed + 1)
    inits = tt.init_weights(g, models, proto.d_out)
    lay = tt.layout(models, proto, "cpu")
    W = torch.cat([inits[i][0].reshape(-1, D) for i in lay.order]).double()
    W = W + 0.3 * torch.randn(W.shape, generator=g, dtype=torch.float64)  # off the initialisation's symmetry
    W[::3, ::4] = 0.0  # pre-activations exactly at the kink: ReLU's and LeakyReLU's slope there is torch's
    Vs = [torch.stack([inits[i][1].permute(1, 0, 2) for i in lay.order[a:b]]).double().contiguous()
          for _, a, b in lay.groups]
    batch = tt.make_batches(sample_tokens(g, tasks, 1, proto.batch, False))
    batch = tt.Batch(batch.counts[0], batch.keys[0], batch.reads[0], batch.n)
    quad = [models[i].loss == "quadratic" for i in lay.order]
    quadratic = quad[0] if len(set(quad)) == 1 else torch.tensor(quad)
    mags = None if zeta == 1.0 else tasks.mags.double()
    return W, Vs, batch, mags, lay, quadratic


def _autograd(W, Vs, batch, mags, lay, proto, quadratic):
    W = W.clone().requires_grad_(True)
    Vs = [V.clone().requires_grad_(True) for V in Vs]
    loss = tt.contrastive_losses(tt.forward(W, Vs, batch, mags, lay, proto), proto, quadratic)
    return loss.detach(), torch.autograd.grad(loss.sum(), [W, *Vs])


MIXED = [tt.Model(1, 6, "relu", "infonce"), tt.Model(0, 2, "linear", "quadratic"),
         tt.Model(1, 6, "leaky", "infonce", bn_variant=(False, True)),
         tt.Model(0, 3, "quadratic", "infonce", bn_variant=(False, False)),
         tt.Model(1, 3, "relu", "quadratic", bn_variant=(True, True))]
FIG4 = [tt.Model(s, b * 3, a, "infonce") for s in range(2) for b in (2, 5) for a in ("relu", "linear")]


@pytest.mark.parametrize("models, proto, zeta", [
    (FIG4, tt.Protocol(batch=32), 1.0),
    (MIXED, tt.Protocol(batch=32), 1.0),
    (MIXED, tt.Protocol(batch=16, bn_stats="joint"), 10.0),
    (MIXED, tt.Protocol(batch=16, bn=False), 1.0),
    ([tt.Model(0, 4, a, "quadratic") for a in ("leaky", "quadratic")], tt.Protocol(batch=16, var_backprop=True), 1.0),
    ([tt.Model(1, 4, "relu", "infonce", bn_variant=(False, False))], tt.Protocol(batch=16), 1.0),
    ([tt.Model(0, 4, "leaky", "infonce"), tt.Model(1, 3, "leaky", "quadratic")], tt.Protocol(batch=16), 1.0),
], ids=["figure_4", "mixed", "joint-zeta10", "no-bn", "all-quadratic-var", "one-variant", "leaky"])
def test_written_out_gradients_are_autograds(models, proto, zeta):
    W, Vs, batch, mags, lay, quadratic = _setup(models, proto, zeta)
    loss, grads = tt.losses_and_grads(W, Vs, batch, mags, lay, proto, quadratic)
    ref_loss, ref = _autograd(W, Vs, batch, mags, lay, proto, quadratic)
    assert torch.allclose(loss, ref_loss, **F64)
    assert len(grads) == len(ref)
    for g, r in zip(grads, ref, strict=True):
        assert g.shape == r.shape and torch.allclose(g, r, **F64)
        assert r.abs().max() > 1e-6  # a gradient, not zeros on both sides


def test_written_out_gradients_at_outputs_near_the_normalisation_epsilon():
    """normalize divides by max(‖z‖, ε = 1e-12), and so must its gradient: networks whose outputs have norms far
    below ε, around it (rows either side and one at ε) and O(1)."""
    proto = tt.Protocol(batch=16)
    W, Vs, batch, mags, lay, quadratic = _setup(FIG4[:4], proto)  # groups M = 6 and 15, two networks each
    norms = tt.forward(W, Vs, batch, mags, lay, proto).norm(dim=-1)  # (B, 2, N), linear in each network's V
    Vs[0][1] *= 1e-20  # norms ~1e-20 < ε
    Vs[1][0] *= 1e-11 / float(norms[2].median())  # norms ~1e-11: above ε, below 1e-9
    Vs[1][1] *= 1e-12 / float(norms[3].median())  # norms either side of ε
    norms = tt.forward(W, Vs, batch, mags, lay, proto).norm(dim=-1)
    assert float(norms[1].max()) < 1e-13 and 1e-12 < float(norms[2].min()) < float(norms[2].max()) < 1e-9
    assert float(norms[3].min()) < 1e-12 < float(norms[3].max())
    assert bool(((norms[3] > 1e-13) & (norms[3] < 1e-12)).any())
    assert bool((norms[3] == 1e-12).any())  # a row at ε exactly (the median's): torch's clamp_min passes the gradient
    assert 1e-3 < float(norms[0].min())
    loss, grads = tt.losses_and_grads(W, Vs, batch, mags, lay, proto, quadratic)
    ref_loss, ref = _autograd(W, Vs, batch, mags, lay, proto, quadratic)
    assert torch.allclose(loss, ref_loss, **F64)
    assert float(ref[1][1].abs().max()) > 1e3  # the 1/ε of the normalisation reaches the small networks' V
    for g, r in zip(grads, ref, strict=True):
        assert torch.allclose(g, r, rtol=1e-9, atol=1e-11 * float(r.abs().max()))


F32_TRAJ = dict(rtol=1e-4, atol=1e-5)  # float32 training: a few ulps of the O(1) weights per step


@pytest.mark.parametrize("models, proto, zeta", [
    (FIG4, tt.Protocol(steps=30, batch=32, lr=2e-3), 1.0),
    (MIXED, tt.Protocol(steps=30, batch=32, lr=0.02, bn_stats="joint"), 10.0),
], ids=["figure_4-printed-lr", "mixed-joint-zeta10"])
def test_training_on_written_gradients_is_training_on_autograds(models, proto, zeta, monkeypatch):
    """The same run stepped on the written-out gradients and on autograd's: the same weights and logged losses to
    float32 tolerance (token chunks of 10 minibatches, so that the stream crosses chunk boundaries)."""
    monkeypatch.setattr(tt, "CHUNK", 10)
    tasks = make_tasks(_gen(0), [1, 3], zeta, torch.float32, "cpu")
    written = tt.train(_gen(7), tasks, models, proto, "cpu", log_every=5)
    auto = tt.train(_gen(7), tasks, models, proto, "cpu", log_every=5, autograd=True)
    assert written.finite and auto.finite and torch.equal(written.W0, auto.W0)
    assert torch.allclose(written.W, auto.W, **F32_TRAJ) and torch.allclose(written.losses, auto.losses, **F32_TRAJ)
    assert not torch.allclose(written.W, written.W0, atol=1e-3)  # they trained


def test_a_non_finite_gradient_at_any_step_makes_the_run_not_finite(monkeypatch):
    """Finiteness is checked once, at the end (no per-step sync): a NaN written into one gradient at step 7 of 30
    still reaches the verdict as a run that is not finite (NaN stays in the weights it enters)."""
    calls, real = [], tt.losses_and_grads

    def poisoned(*args):
        loss, grads = real(*args)
        calls.append(1)
        if len(calls) == 8:
            grads[1] = grads[1].clone()
            grads[1].view(-1)[0] = float("nan")
        return loss, grads

    tasks = make_tasks(_gen(0), [3], 1.0, torch.float32, "cpu")
    proto = tt.Protocol(steps=30, batch=16)
    assert tt.train(_gen(7), tasks, FIG4[:2], proto, "cpu").finite
    monkeypatch.setattr(tt, "losses_and_grads", poisoned)
    run = tt.train(_gen(7), tasks, FIG4[:2], proto, "cpu")
    assert len(calls) == 30 and not run.finite
