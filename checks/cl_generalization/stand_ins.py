"""Stand-ins that the worst-seed / worst-checkpoint checks of ``cl_generalization`` patch in for computed parts (not
a test module: nothing here is collected)."""
from __future__ import annotations


def barlow_twins_seeds_twice(monkeypatch):
    """The Barlow Twins features of the instance twice (the random map has one seed): two identical seeds."""
    import torch

    from theorems.cl_generalization import barlow_twins as B

    features = B.features

    def twice(*a, **k):
        pop, F, details = features(*a, **k)
        return pop, torch.cat([F, F]), details

    monkeypatch.setattr(B, "features", twice)


def no_training():
    """An empty training record (one step, zero losses) for error curves given literally."""
    import torch

    from theorems.cl_generalization.encoders import Training

    z = torch.zeros(1, dtype=torch.float64)
    return Training(z, z, z, 1)
