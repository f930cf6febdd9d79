"""``theorems.nonlinear_cl.pi_steps``, shared by several results: its checks."""

from __future__ import annotations

import math

import pytest
import torch

from theorems.nonlinear_cl import pi_steps

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
