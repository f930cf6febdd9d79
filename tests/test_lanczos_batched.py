"""The batched Lanczos of theorems.optim.curvature on explicit symmetric matrices, against dense eigvalsh.

References are independent of the Lanczos code: torch.linalg.eigvalsh of the matrix (restricted to the complement of
the removed directions by an explicit QR basis), and a hand-built saddle diag(−2, 1, 3, …). Each instance of a batch
is a different matrix, so a mix-up between instances (the basis is stored (B, k, P) and re-orthogonalised by batched
products) shows up as a wrong eigenvalue.
"""

from __future__ import annotations

import pytest
import torch

from theorems.optim.curvature import lanczos_extremes

DT = torch.float64
# A run to the full tangent dimension with full re-orthogonalisation is exact up to rounding: P·eps·‖H‖ is ~1e-14 at
# these sizes; 1e-10 leaves room for the breakdown restarts and is still far below any eigenvalue gap used here.
EIG_RTOL = 1e-10


def gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def random_symmetric(B: int, P: int, seed: int) -> torch.Tensor:
    A = torch.randn(B, P, P, generator=gen(seed), dtype=DT)
    return A + A.transpose(-1, -2)


def matvec_of(H: torch.Tensor):
    return lambda v: (H @ v[..., None])[..., 0]


@pytest.mark.parametrize("P", [1, 2, 9, 40])
def test_full_run_matches_eigvalsh_per_instance(P):
    B = 5
    H = random_symmetric(B, P, seed=P)
    c = lanczos_extremes(matvec_of(H), B, P, like=H, generator=gen(0))
    ev = torch.linalg.eigvalsh(H)
    scale = ev.abs().amax(-1)
    assert c.iterations == P
    assert bool(((c.lam_min - ev[:, 0]).abs() <= EIG_RTOL * scale).all())
    assert bool(((c.lam_max - ev[:, -1]).abs() <= EIG_RTOL * scale).all())
    # the Ritz vector is a unit eigenvector of its own instance's matrix
    r = matvec_of(H)(c.vec_min) - c.lam_min[:, None] * c.vec_min
    assert bool((r.norm(dim=-1) <= 1e-8 * scale).all())
    torch.testing.assert_close(c.vec_min.norm(dim=-1), torch.ones(B, dtype=DT), rtol=1e-12, atol=0)


def test_directions_removed_match_projected_eigvalsh():
    B, P, r = 4, 12, 3
    H = random_symmetric(B, P, seed=11)
    G = torch.randn(B, P, r, generator=gen(12), dtype=DT)
    c = lanczos_extremes(matvec_of(H), B, P, directions=G, like=H, generator=gen(0))
    assert c.tangent_dim == P - r and c.iterations == P - r
    for b in range(B):
        Q, _ = torch.linalg.qr(torch.cat([G[b], torch.eye(P, dtype=DT)], 1))
        T = Q[:, r:P]
        ev = torch.linalg.eigvalsh(T.T @ H[b] @ T)
        scale = float(ev.abs().max())
        assert abs(float(c.lam_min[b] - ev[0])) <= EIG_RTOL * scale
        assert abs(float(c.lam_max[b] - ev[-1])) <= EIG_RTOL * scale
        assert float((G[b].T @ c.vec_min[b]).abs().max()) <= 1e-10


def test_known_saddle_in_a_batch_with_a_minimum():
    """diag(−2, 1, 3, …, 3) (a saddle) next to diag(1, 2, …) (a minimum) under random rotations: λ_min −2 and 1."""
    P = 10
    Q, _ = torch.linalg.qr(torch.randn(2, P, P, generator=gen(5), dtype=DT))
    d0 = torch.tensor([-2.0, 1.0] + [3.0] * (P - 2), dtype=DT)  # a repeated eigenvalue: Krylov breakdown
    d1 = torch.arange(1, P + 1, dtype=DT)
    H = Q @ torch.diag_embed(torch.stack([d0, d1])) @ Q.transpose(-1, -2)
    c = lanczos_extremes(matvec_of(H), 2, P, like=H, generator=gen(0))
    torch.testing.assert_close(c.lam_min, torch.tensor([-2.0, 1.0], dtype=DT), rtol=EIG_RTOL, atol=0)
    torch.testing.assert_close(c.lam_max, torch.tensor([3.0, float(P)], dtype=DT), rtol=EIG_RTOL, atol=0)
    assert c.is_minimiser(1e-6).tolist() == [False, True]
    # the Ritz vector of the saddle is its negative-curvature direction (± Q[:, :, 0])
    assert abs(float(c.vec_min[0] @ Q[0, :, 0])) == pytest.approx(1.0, rel=1e-10)


@pytest.mark.parametrize("iters", [1, 4, 15])
def test_partial_runs_stay_inside_the_spectrum(iters):
    """A capped run's Ritz values are Rayleigh quotients: λ_min(Ritz) ≥ λ_min and λ_max(Ritz) ≤ λ_max for every
    instance (the certificate can miss a saddle, never invent one), and more steps never move them outwards less."""
    B, P = 6, 30
    H = random_symmetric(B, P, seed=21)
    ev = torch.linalg.eigvalsh(H)
    slack = 1e-12 * ev.abs().amax(-1)
    c = lanczos_extremes(matvec_of(H), B, P, iters=iters, like=H, generator=gen(0))
    assert c.iterations == iters
    assert bool((c.lam_min >= ev[:, 0] - slack).all()) and bool((c.lam_max <= ev[:, -1] + slack).all())
    more = lanczos_extremes(matvec_of(H), B, P, iters=iters + 5, like=H, generator=gen(0))
    # the same start vector: the Krylov spaces are nested, so the extreme Ritz values move monotonically outwards
    assert bool((more.lam_min <= c.lam_min + slack).all()) and bool((more.lam_max >= c.lam_max - slack).all())
    if iters == 1:
        assert bool((c.lam_min > ev[:, 0] + 1e-3 * ev.abs().amax(-1)).all())  # a genuine partial run


def test_same_seed_same_numbers():
    H = random_symmetric(3, 16, seed=31)
    a = lanczos_extremes(matvec_of(H), 3, 16, iters=8, like=H, generator=gen(4))
    b = lanczos_extremes(matvec_of(H), 3, 16, iters=8, like=H, generator=gen(4))
    assert torch.equal(a.lam_min, b.lam_min) and torch.equal(a.vec_min, b.vec_min)
