"""Second-order certificates of issue 26, item 2, in the code this helper owns: the worst-case search of paper 003
escapes saddles, the trained encoders and the Transformer head record their loss curvature, and each check catches
a known saddle (a gradient-norm certificate alone would pass it)."""

from __future__ import annotations

import math

import torch

from theorems.cl_generalization import adversarial as A
from theorems.cl_generalization.encoders import SADDLE_RTOL, BatchedMLP, Training, loss_curvature
from theorems.core.context import Context
from theorems.deep_fusion.head import HeadShape, batch_loss, head_curvature, train_head, views_of
from theorems.optim.curvature import tangent_curvature


def _saddle_objective(x, y):
    """x² + (‖y‖² − 1)²: a saddle at y = 0 (value ‖x‖² + 1, curvature −4 along y), minima on ‖y‖ = 1, x = 0."""
    return (x ** 2).sum(-1) + ((y ** 2).sum(-1) - 1.0) ** 2


def _start():
    return torch.tensor([[1.0, 0.5], [0.3, -2.0]], dtype=torch.float64), torch.zeros(2, 2, dtype=torch.float64)


def test_the_search_stuck_on_a_saddle_is_caught_and_escaped():
    x0, y0 = _start()
    stuck: dict = {}
    _, _, end = A.descend([x0, y0], _saddle_objective, 300, lr=0.05, escapes=0, record=stuck)
    # Adam on y = 0 never leaves it (the gradient in y is exactly 0): the first-order search ends on the saddle ...
    assert torch.allclose(end, torch.ones(2, dtype=torch.float64), atol=1e-6)
    # ... and the curvature record says so
    assert stuck["saddle_left"] and stuck["curvature_min_rel"] < -0.5 and stuck["saddle_escapes"] == 0
    escaped: dict = {}
    (_, yb), _, end = A.descend([x0, y0], _saddle_objective, 300, lr=0.05, record=escaped)
    assert float(end.max()) < 1e-6, end  # the minimum, 0, after stepping down the negative curvature
    assert torch.allclose(yb.norm(dim=-1), torch.ones(2, dtype=torch.float64), atol=1e-3)
    assert escaped["saddle_escapes"] == 2 and not escaped["saddle_left"]


def test_central_difference_curvature_matches_the_dense_hessian():
    g = torch.Generator().manual_seed(3)
    M = torch.randn(2, 6, 6, generator=g, dtype=torch.float64)
    H = M + M.transpose(-1, -2)  # indefinite
    x = torch.randn(2, 6, generator=g, dtype=torch.float64)

    def f(v):  # not quadratic: the finite-difference step must be small for the products to be exact
        return 0.5 * torch.einsum("bi,bij,bj->b", v, H, v) + torch.sin(3 * v).sum(-1)

    curv, _, _ = A.curvature_at([x], f, iters=6)  # iters = dimension: the exact extreme eigenvalues
    dense = torch.stack([torch.autograd.functional.hessian(
        lambda v, b=b: 0.5 * v @ H[b] @ v + torch.sin(3 * v).sum(), x[b]) for b in range(2)])
    ev = torch.linalg.eigvalsh(dense)
    assert torch.allclose(curv.lam_min, ev[:, 0], rtol=1e-7, atol=1e-7)
    assert torch.allclose(curv.lam_max, ev[:, -1], rtol=1e-7, atol=1e-7)


def test_a_shallow_saddle_just_outside_the_tolerance_is_caught():
    """Relative curvature −2e-5 (pinned from outside the 1e-6 tolerance, by a literal number): still a saddle."""
    def shallow(x, y):
        return (x ** 2).sum(-1) + 1e-5 * ((y ** 2).sum(-1) - 1.0) ** 2

    x0, y0 = _start()
    rec: dict = {}
    A.descend([x0, y0], shallow, 200, lr=0.05, escapes=0, record=rec)
    assert rec["saddle_left"] and math.isclose(rec["curvature_min_rel"], -2e-5, rel_tol=1e-3)


def _mlp(S=3):
    return BatchedMLP(Context.make("cpu", seed=0), S, 4, 5, 2)


def test_encoder_loss_curvature_catches_a_saddle_and_reads_the_live_parameters():
    model = _mlp()
    W1 = model.params[0]

    def saddle():  # W1[0,0]² − W2[0,0]²: a saddle (eigenvalues +2, −2, rest 0)
        return model.params[0][:, 0, 0] ** 2 - model.params[2][:, 0, 0] ** 2

    def bowl():
        return sum((p ** 2).flatten(1).sum(1) for p in model.params)

    rel = loss_curvature(saddle, model)
    assert bool((rel < -SADDLE_RTOL).all()) and torch.allclose(rel, -torch.ones_like(rel), atol=1e-6)
    assert bool((loss_curvature(bowl, model) > 0.5).all())
    assert model.params[0] is W1  # the trained parameters are put back


def test_training_record_flags_saddles():
    S = 2
    # −2e-5 is a saddle (pinned just outside SADDLE_RTOL by a literal number), −1e-9 is rounding
    rec = Training(torch.zeros(S), torch.ones(S), torch.zeros(S), 10,
                   torch.tensor([-2e-5, -1e-9], dtype=torch.float64))
    d = rec.to_details("x")
    assert d["x_saddle"] == [True, False] and d["x_curvature_min_rel"] == [-2e-5, -1e-9]


def _tiny_head(steps=0):
    ctx = Context.make("cpu", seed=1)
    shape = HeadShape(S=2, L=1, d=2, H=1)
    sizes = (3, 3)
    tr = train_head(ctx, shape, sizes, r=1, eps=0.05, steps=steps, lr=1e-2, tau=0.5, sequence="views")
    return ctx, shape, tr


def test_head_curvature_matches_the_dense_hessian_and_catches_a_saddle():
    ctx, shape, tr = _tiny_head(steps=3)
    curv = head_curvature(ctx, tr, shape, eps=0.05, tau=0.5, sequence="views", iters=shape.size)
    # the same fixed batch again (same context state as head_curvature drew it from)
    ctx2, _, tr2 = _tiny_head(steps=3)
    data = views_of(ctx2, tr2.source, 4, 0.05)
    for s in range(shape.S):
        def f(th, s=s):
            full = tr2.theta.detach().clone()
            full = torch.cat([full[:s], th[None], full[s + 1:]])
            return batch_loss(full, shape, data, 0.5, "views")[s]
        H = torch.autograd.functional.hessian(f, tr2.theta[s].detach())
        ev = torch.linalg.eigvalsh(0.5 * (H + H.T))
        scale = float(ev.abs().max())
        assert math.isclose(float(curv.lam_min[s]), float(ev[0]), rel_tol=1e-6, abs_tol=1e-9 * scale)
        assert float(ev[0]) < -1e-3 * scale  # a nearly untrained head sits where the loss curves down
    assert not bool(curv.is_minimiser(1e-6).any())  # so the certificate refuses it


def test_head_curvature_is_positive_on_a_convex_stand_in():
    # the certificate can also pass: the Lanczos machinery on a strictly convex function of the same size
    ctx, shape, tr = _tiny_head()
    x = tr.theta.detach()
    curv = tangent_curvature(lambda th: (th ** 2).sum(-1), x, iters=10)
    assert bool(curv.is_minimiser(1e-6).all())


def test_cluster_integrity_certificate_is_global_and_a_truncated_run_is_not_converged():
    """Definition 1 and Theorem 1's margin rest on min-norm points of convex hulls (a convex QP): the bracket
    [lower, upper] is a duality gap, a global certificate, so no curvature is needed; it must refuse a run cut
    short."""
    from theorems.metrics.cluster_integrity import GAP_TOL, min_norm_point

    g = torch.Generator().manual_seed(0)
    A = torch.randn(4, 40, 12, generator=g, dtype=torch.float64) + 0.3
    short = min_norm_point(A, iterations=3, check_every=1)
    assert not bool(short.converged.any()) and bool((short.gap > 1e3 * GAP_TOL).all())
    full = min_norm_point(A)
    assert bool(full.converged.all())
    # the bracket holds the optimum: any hull point's norm is above lower, any unit direction's margin below upper
    w = torch.softmax(torch.randn(4, 40, generator=g, dtype=torch.float64), -1)
    assert bool(((w[:, None] @ A).squeeze(1).norm(dim=-1) >= full.lower - 1e-12).all())
    v = torch.nn.functional.normalize(torch.randn(4, 12, generator=g, dtype=torch.float64), dim=-1)
    assert bool(((A @ v[..., None]).squeeze(-1).amin(-1) <= full.upper + 1e-12).all())
