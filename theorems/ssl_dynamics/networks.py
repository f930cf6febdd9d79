"""Two-layer networks u(x) = W₂ᵀφ(W₁x) trained on the mean contrastive loss (1) under the orthonormality
constraints W₁ᵀW₁ = I_d, W₂ᵀW₂ = I_z (the setting of Theorem 1, Conjecture 1 and Figure 2 of paper 002).

One training run is one tensor program over every activation and initialisation (the shared engine of
``optim.batched_sgd``); the linear network (φ = identity) and every nonlinear one start from the same Haar
(W₁, W₂) of each initialisation. Widths are separate runs (different shapes: padding every width to the largest
would multiply the work of a sweep such as Figure 2's, 10 to 2000, by ≈ 3.5 where the arithmetic dominates). The gradients are written out (back-propagation by hand through the three inputs x, x⁺, x⁻ stacked into
one (3n, d) matrix): autograd per step cost 10× more at these sizes; ``tests/test_ssl_dynamics_machinery.py``
checks them against autograd. The step is the tangent step + QR retraction (Riemannian GD), η = ``eta``.
"""

from __future__ import annotations

import math

import torch

from ..data.ssl_pairs import Triplets
from ..core.params import Cost
from ..core.result import Violation
from ..optim.batched_sgd import ClosedFormStep, train_program
from ..optim.stiefel import euclid_grads, qf
from .trace_form import trace_matrix


def activation_and_slope(name: str, Z: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """φ(Z) and φ'(Z). ReLU's φ'(0) is taken as 0 (torch's convention); softplus2(a) = 2(softplus(a) − log 2)."""
    if name == "identity":
        return Z, torch.ones_like(Z)
    if name == "tanh":
        # tanh z = 2σ(2z) − 1: torch's float64 tanh costs 4× its sigmoid on CPU, and the difference (≤ 1e-16
        # absolute) is far below every gap this module measures.
        a = 2 * torch.sigmoid(2 * Z) - 1
        return a, 1 - a * a
    if name == "relu":
        return torch.relu(Z), (Z > 0).to(Z.dtype)
    if name == "sigmoid":
        s = torch.sigmoid(Z)
        return s, s * (1 - s)
    if name == "softplus2":
        return 2.0 * (torch.nn.functional.softplus(Z) - math.log(2.0)), 2.0 * torch.sigmoid(Z)
    raise ValueError(f"unknown activation {name!r}")


def activations_and_slopes(acts: str | tuple[str, ...], Z: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """φ(Z) and φ'(Z) for one activation name, or for a tuple of names, one per slice of Z's leading axis (the
    networks of several activations stacked: train_and_compare stacks them only while the tensors are small,
    STACK_ELEMENTS, so the stacking copy is cheap)."""
    if isinstance(acts, str):
        return activation_and_slope(acts, Z)
    if len(acts) != Z.shape[0]:
        raise ValueError(f"{len(acts)} activations for {Z.shape[0]} stacked networks")
    if len(set(acts)) == 1:
        return activation_and_slope(acts[0], Z)
    parts = [activation_and_slope(a, Z[i]) for i, a in enumerate(acts)]
    return torch.stack([a for a, _ in parts]), torch.stack([s for _, s in parts])


def stacked_inputs(t: Triplets) -> torch.Tensor:
    """[x; x⁺; x⁻] as one (3n, d) matrix."""
    return torch.cat([t.x, t.pos, t.neg])


def loss_and_grads(X3: torch.Tensor, n: int, W1: torch.Tensor, W2: torch.Tensor, act: str | tuple[str, ...]):
    """Mean contrastive loss (1)/n of u = W₂ᵀφ(W₁x) and its Euclidean gradients, batched over the leading
    dimensions of W1 (…, h, d), W2 (…, h, z). ``act``: one activation, or a tuple of them, one per slice of the
    leading axis. Returns (L (…), g1, g2, U (…, 3n, z): the outputs on [x; x⁺; x⁻])."""
    Act, Slope = activations_and_slopes(act, X3 @ W1.transpose(-1, -2))  # (…, 3n, h)
    U = Act @ W2
    Ux, Up, Un = U[..., :n, :], U[..., n:2 * n, :], U[..., 2 * n:, :]
    L = (Ux * (Un - Up)).sum(dim=(-1, -2)) / n
    dU = torch.cat([Un - Up, -Ux, Ux], dim=-2) / n
    g2 = Act.transpose(-1, -2) @ dU
    g1 = ((dU @ W2.transpose(-1, -2)) * Slope).transpose(-1, -2) @ X3
    return L, g1, g2, U


def riemannian_step(W: torch.Tensor, g: torch.Tensor, eta: float) -> torch.Tensor:
    """Tangent step W − η(I − WWᵀ)g, then the QR retraction."""
    return qf(W - eta * (g - W @ (W.transpose(-1, -2) @ g)))


# The largest stacked pre-activation tensor (activations × S × 3n × h elements) of one program. Stacking saves
# per-operation dispatch, which dominates only for tiny tensors; for larger ones the stacked temporaries cost
# more than the dispatch they save (copies, and fresh pages from the allocator at every step). Measured (one
# thread, CPU time, contended 2-core machine), Figure 2's three activations stacked against the previous engine
# (one loop iteration per activation, starts batched, the linear network shared), n = 100, 2 starts: h = 10
# (18k elements stacked) 1.38× faster, h = 30 (54k) 1.19×, h = 90 (162k) 0.88×; 10 starts: h = 300 (1.8M)
# 0.82×, h = 1000 (9M) 0.47×. 2^16 stacks the first two and splits the others into one program per activation.
STACK_ELEMENTS = 2 ** 16


def train_and_compare(t: Triplets, W1: torch.Tensor, W2: torch.Tensor, acts: tuple[str, ...], eta: float,
                      steps: int, checkpoints: int = 0, stack: int | None = None):
    """Train the linear network and one network per activation in ``acts`` from the same starts W1 (S, h, d),
    W2 (S, h, z), ``steps`` steps each. Returns the gaps max_i ‖u^φ(xᵢ) − u^I(xᵢ)‖ (len(acts), S) at each
    recorded step (t = 0, ``checkpoints`` intermediate ones, t = steps) and the steps recorded.

    One tensor program on ``optim.batched_sgd.train_program``: the nonlinear networks of every activation and
    start are stacked (len(acts), S, h, ·), the linear ones (S, h, ·) beside them, and every step is one Riemannian
    GD step of all of them (:class:`~theorems.optim.batched_sgd.ClosedFormStep`: the QR retraction acts on each
    network's matrices alone). :func:`train_and_compare_each` is the per-network loop it replaces. ``stack``: at
    most that many activations per program (default: as many as keep a program's (activations, S, 3n, h)
    pre-activations within STACK_ELEMENTS; the programs of a split differ only in cost, each recomputing the
    linear network, whose trajectory is the same in all). The linear
    network's loss is the trace form Tr(W₂ᵀW₁CW₁ᵀW₂) of the same triplets (eq. (7), exact), so its gradients cost
    O(h·d·z) instead of O(n·h); the nonlinear ones are back-propagated through the data."""
    X3, n = stacked_inputs(t), t.n
    if stack is None:
        stack = STACK_ELEMENTS // (W1.shape[0] * X3.shape[0] * W1.shape[-2])
    stack = max(1, stack)
    if len(acts) > stack:
        runs = [train_and_compare(t, W1, W2, acts[i:i + stack], eta, steps, checkpoints, stack)
                for i in range(0, len(acts), stack)]
        return torch.cat([g for g, _ in runs], 1), runs[0][1]
    C = trace_matrix(t, "contrastive")
    record = {0, steps} | {round(steps * (k + 1) / (checkpoints + 1)) for k in range(checkpoints)}
    A = len(acts)
    nets = [W.expand(A, *W.shape).clone() for W in (W1, W2)] + [W1.clone(), W2.clone()]
    gaps, at = [], []

    def losses(k: int):
        L, g1, g2, U = loss_and_grads(X3, n, nets[0], nets[1], tuple(acts))
        if k in record:
            ulin = t.x @ nets[2].transpose(-1, -2) @ nets[3]
            gaps.append((U[..., :n, :] - ulin).norm(dim=-1).amax(-1))
            at.append(k)
        return L.reshape(-1), (g1, g2, *euclid_grads(nets[2], nets[3], C))

    if steps > 0:
        train_program(nets, losses, steps, optimizer=ClosedFormStep(nets, riemannian_step, eta), log_every=steps)
    losses(steps)  # the gaps after the last step
    return torch.stack(gaps), at


def train_and_compare_each(t: Triplets, W1: torch.Tensor, W2: torch.Tensor, acts: tuple[str, ...], eta: float,
                           steps: int, checkpoints: int = 0):
    """The per-network loop of :func:`train_and_compare`: each activation and start trained alone (with its own
    linear reference), the same numbers (the reference of the batched run and the baseline of
    ``benchmarks/bench_batched_training.py``)."""
    runs = [[train_and_compare(t, W1[s:s + 1], W2[s:s + 1], (act,), eta, steps, checkpoints)
             for s in range(W1.shape[0])] for act in acts]
    gaps = torch.stack([torch.cat([g for g, _ in row], -1)[:, 0] for row in runs], 1)
    return gaps, runs[0][0][1]


def sweep_violations(p: dict) -> list[Violation]:
    """A width sweep needs three widths h ≥ max(d, z) = max(2, z) (half moons live in R²)."""
    out = []
    if len(p["widths"]) < 3:
        out.append(Violation("≥ 3 widths", "a slope needs at least three widths", ("widths",), bypassable=False))
    if min(p["widths"]) < max(2, p["z"]):
        out.append(Violation("h ≥ max(d, z)", f"smallest width {min(p['widths'])} < max(d = 2, z = {p['z']})",
                             ("widths", "z"), bypassable=False))
    return out


def sweep_cost(p: dict, networks: int) -> Cost:
    """``networks`` nonlinear runs of ``steps`` steps on seeds × 3n × h pre-activations, summed over the widths
    (about a dozen passes each), and the largest width's tensors at once."""
    h_sum, h_max = sum(p["widths"]), max(p["widths"])
    per = p["seeds"] * 3 * p["n"]
    return Cost(elements=6 * per * h_max, work=12 * networks * (p["steps"] + 1) * per * h_sum * (2 + p["z"]))
