"""The module `theorems.cl_generalization.encoders` that several results of paper 003 share: its unit checks. (Encoders
for paper 003: the identity, fixed random feature maps, and small MLPs trained on the exact population loss (InfoNCE
with one negative, SimCLR with n negatives, the slides' revised InfoNCE, Barlow Twins), batched over seeds and
losses (one tensor problem, one optimiser).)"""

from __future__ import annotations


# -- encoders, instances: the shared machinery's rules, each on a literal case ------------------------------------
def test_encoder_saddle_flag_is_pinned_by_saddle_rtol():
    """SADDLE_RTOL (1e-6): a training record whose final curvature ratios are −3e-6 and −5e-7 reports the first
    model on a saddle and not the second (×10 or ÷10 swaps one); the ratios are reported whenever they exist."""
    import torch

    from theorems.cl_generalization.encoders import Training

    z = torch.zeros(2, dtype=torch.float64)
    out = Training(z, z, z, 5, torch.tensor([-3e-6, -5e-7], dtype=torch.float64)).to_details("m")
    assert out["m_saddle"] == [True, False] and out["m_curvature_min_rel"] == [-3e-6, -5e-7], out
    assert "m_saddle" not in Training(z, z, z, 5).to_details("m")


def test_batched_loss_dispatches_each_kind_to_its_own_loss():
    """Each loss kind is its own objective (the one-negative InfoNCE, SimCLR with n negatives, the revised loss):
    on one small batch of unit features the three give the values of their own functions, and they differ."""
    import torch

    from theorems.cl_generalization import population as P
    from theorems.cl_generalization.encoders import batched_loss

    g = torch.Generator().manual_seed(3)
    F = torch.randn(2, 6, 3, 4, generator=g, dtype=torch.float64)
    F = F / F.norm(dim=-1, keepdim=True)
    w = torch.full((6, 3), 1 / 3, dtype=torch.float64)
    got = {k: batched_loss(k, F, w, 0.5, 0.1, 4) for k in ("infonce", "simclr", "revised")}
    assert torch.allclose(got["infonce"], P.infonce_terms(F, w, 0.5)["loss"], rtol=0, atol=0)
    assert torch.allclose(got["simclr"], P.simclr_loss(F, w, 0.5, 4), rtol=0, atol=0)
    assert torch.allclose(got["revised"], P.revised_loss(F, w, 0.5, 0.1, 4), rtol=0, atol=0)
    assert not torch.allclose(got["infonce"], got["simclr"]) and not torch.allclose(got["simclr"], got["revised"])


def test_training_calls_back_at_exactly_the_checkpoints():
    """Snapshots are taken after the steps named (1 and 3 of 4), never at the others."""
    import torch

    from theorems.cl_generalization.encoders import BatchedMLP, _train
    from theorems.core.context import Context

    model = BatchedMLP(Context(torch.device("cpu"), 0), S=1, D=2, h=3, d=2)
    X = torch.ones(5, 2, dtype=torch.float64)
    seen: list = []
    _train(lambda: model(X).pow(2).sum((1, 2)), model, 4, 0.01, on_step=seen.append, checkpoints={1, 3})
    assert seen == [1, 3], seen
