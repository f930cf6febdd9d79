"""The module `theorems.cl_generalization.adversarial` that several results of paper 003 share: its unit checks.
(Worst-case search over the continuous data of a paper-003 instance (``adversarial_steps``).)"""

from __future__ import annotations

import pytest
import torch


def test_descend_escapes_a_saddle_and_reaches_the_minimum():
    """f(x, y) = x² + (y² − 1)² from (½, 0): the gradient never moves y, so Adam alone stops on the saddle (0, 0)
    (f = 1, Hessian diag(2, −4)); the curvature step leaves it and the search ends at a minimum (0, ±1), f = 0,
    whose Hessian diag(2, 8) has relative smallest eigenvalue 2/8. A step size ÷10 leaves f ≈ 0.07 after these steps;
    a search that skips the curvature check ends on the saddle with nothing recorded."""
    from theorems.cl_generalization import adversarial as A

    record: dict = {}
    (X,), start, end = A.descend([torch.tensor([[0.5, 0.0]], dtype=torch.float64)],
                                 lambda X: X[:, 0] ** 2 + (X[:, 1] ** 2 - 1) ** 2, 100, record=record)
    assert float(start) == 1.25 and float(end) < 1e-6, (start, end, X)
    assert abs(abs(float(X[0, 1])) - 1) < 1e-3, X
    assert record["saddle_escapes"] == 1 and record["saddle_left"] is False, record
    # the Hessian-vector products by central differences: error 1e-11 at FD_STEP (rounding and O(step²) both small
    # here), 1e-9 at 10·FD_STEP
    assert abs(record["curvature_min_rel"] - 0.25) < 1e-10, record


def _saddle(X):
    return X[:, 0] ** 2 + (X[:, 1] ** 2 - 1) ** 2


def test_descend_without_escapes_reports_the_saddle_it_ends_on():
    """escapes=0: Adam stops on the saddle (f → 1) and the search says so (saddle_left, λ_min/max|λ| = −4/4 = −1)
    instead of stepping off it anyway."""
    from theorems.cl_generalization import adversarial as A

    record: dict = {}
    _, _, end = A.descend([torch.tensor([[0.5, 0.0]], dtype=torch.float64)], _saddle, 100, escapes=0, record=record)
    assert abs(float(end) - 1) < 1e-6, end
    assert record["saddle_escapes"] == 0 and record["saddle_left"] is True, record
    assert abs(record["curvature_min_rel"] + 1) < 1e-6, record


def test_descend_with_no_steps_is_no_search():
    """adversarial_steps = 0 means no search: the start comes back unchanged, no curvature step is taken."""
    from theorems.cl_generalization import adversarial as A

    record: dict = {}
    X0 = torch.tensor([[0.0, 0.0]], dtype=torch.float64)  # on the saddle: any curvature step would move it
    (X,), start, end = A.descend([X0], _saddle, 0, record=record)
    assert torch.equal(X, X0) and float(start) == float(end) == 1.0 and record == {}, (X, end, record)


# -- adversarial: the search machinery every worst-case search of the paper shares -------------------------------
@pytest.mark.parametrize("c, saddle", [(3e-6, True), (0.5e-6, False)])
def test_curvature_rtol_is_pinned(c, saddle):
    """CURVATURE_RTOL (1e-6): f(x, y) = x² − c·y² + y⁴ at its critical point (0, 0) has Hessian diag(2, −2c), so
    λ_min/max|λ| = −c exactly (Lanczos is exact in two dimensions; the central differences err ~1e-10 relative):
    c = 3e-6 is a saddle, c = 5e-7 is not. ×10 misses the first, ÷10 invents the second."""
    import torch

    from theorems.cl_generalization import adversarial as A

    record: dict = {}
    A.descend([torch.zeros(1, 2, dtype=torch.float64)], lambda X: X[:, 0] ** 2 - c * X[:, 1] ** 2 + X[:, 1] ** 4,
              1, escapes=0, record=record)
    assert abs(record["curvature_min_rel"] + c) < 1e-3 * c, record
    assert record["saddle_left"] is saddle, record


def test_descend_with_one_step_still_checks_the_curvature():
    """adversarial_steps = 1 is a search (only 0 is none): from the saddle of x² + (y² − 1)², where the gradient
    vanishes, one step is followed by the curvature check and its escape (the escape step lands in a basin: no
    saddle is left)."""
    import torch

    from theorems.cl_generalization import adversarial as A

    record: dict = {}
    A.descend([torch.zeros(1, 2, dtype=torch.float64)], lambda X: X[:, 0] ** 2 + (X[:, 1] ** 2 - 1) ** 2, 1,
              record=record)
    assert record["saddle_escapes"] == 1 and record["saddle_left"] is False, record


@pytest.mark.parametrize("level", [1000.0, 0.0])
def test_restart_noise_is_relative_to_the_data(level):
    """The restarts' perturbation is RESTART_NOISE times the data's mean |x| (1 when the data is all zeros): on
    data at level 1000 the perturbations' spread is ≈ 0.05·1000, on zeros ≈ 0.05 (5 × 400 Gaussian draws: the
    sample standard deviation within 10 %)."""
    import torch

    from theorems.cl_generalization import adversarial as A
    from theorems.core.context import Context

    x = torch.full((100, 4), level, dtype=torch.float64)
    out = A.restarts(x, Context(torch.device("cpu"), 0), count=6)
    assert torch.equal(out[0], x)
    spread = float((out[1:] - x).std()) / max(level, 1.0)
    assert abs(spread / 0.05 - 1) < 0.1, spread
