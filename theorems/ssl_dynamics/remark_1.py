"""Remark 1 of paper 002: multivariate regression is z independent univariate regressions (eq. 3).

Statement as printed
--------------------
"A consequence of Lemma 1 is that the learning dynamics (3) simplifies to
u̇_l(x) = −Σ_i ⟨∇_Θu_l(x), ∇_Θu_l(x_i)⟩(u_l(x_i) − y_{i,l}), that is, each component of the output u_l evolves
independently from other u_j, j ≠ l. Hence, one may solve a z-variate squared regression problem as z independent
univariate problems." (Eq. 3 is the general dynamics u̇_l(x) = −Σ_i Σ_j ⟨∇_Θu_l(x), ∇_Θu_j(x_i)⟩(u_j(x_i) − y_{i,j})
of the squared loss ℒ(Θ) = ½Σ_i‖u(x_i) − y_i‖² under gradient flow.)

Quantifiers and reading
-----------------------
For every linear (u = Θx) or kernel (u = Θψ(x)) model, every training set (x_i, y_i), every initial Θ and every
time: the joint training of the z-variate model and the z univariate problems, each output l trained alone on
(x_i, y_{i,l}) from the same initial row, produce the same outputs. Checked along gradient descent with step η
(gradient flow's Euler discretisation; the decoupling is exact for every η), T steps, on held-out inputs too:
* ``joint_equals_independent``: max over steps and test inputs of |u_joint − u_indep| / max |u_joint| (the two are
  computed separately: one autograd loss on Θ, z autograd losses on separate rows);
* ``eq3_predicts_the_step`` (identity, a test of the code): the first step's change of u equals −η times eq. (3)'s
  right-hand side with the Jacobians by autograd (exact for a model linear in Θ).
Status ``verified``. Binding: η at 0.95 of the stability edge 2/λ_max (the largest step where training still
converges, so rounding is amplified most) for 400 steps.

Controls: ``model='two_layer'`` (u = h^{-1/2}G₂ᵀrelu(G₁x), outside "linear or kernel": the hidden layer is shared,
so training the outputs jointly differs from training z single-output copies; the gap is O(h^{-1/2})), and
``coupling`` = 2e-11 (each output's residual leaks 2e-11 of the others' into its gradient: a deliberately wrong
constant ~3.6 allowances outside DECOUPLE_RTOL, which pins it: loosened ×10 the control passes); ``eq3_scale`` =
1 + 3e-9 (eq. (3)'s right-hand side scaled: the identity ``eq3_predicts_the_step`` misses by 3 allowances of
EQ3_RTOL, which pins that tolerance).
"""

from __future__ import annotations

import math

import torch

from ..core.evidence import Claim
from ..core.registry import register
from ..core.result import AS_PRINTED, Binding, Cost, Logic, Outcome, Param, Result, Status, Violation, seed_param
from ..core.result import Pin
from ..optim.threads import one_thread
from .paper import PAPER

ID = "ssl_dynamics.remark_1"
MODELS = ("linear", "kernel", "two_layer")
# The joint and the univariate steps sum the same terms in different orders: float64 rounding of O(n) sums, grown
# at most ~T-fold at the stability edge. Measured ≤ 1e-14 at the binding instance; 1e-11 leaves room.
DECOUPLE_RTOL = 1e-11
EQ3_RTOL = 1e-9  # the first-order prediction of one step is exact for a linear-in-Θ model (rounding only)


def features(p: dict, ctx):
    """ψ and the feature dimension (random Fourier features for the kernel model)."""
    if p["model"] == "kernel":
        omega, b, h = ctx.randn(p["h"], p["d"]), 2 * math.pi * ctx.rand(p["h"]), p["h"]
        return (lambda X: math.sqrt(2.0 / h) * torch.cos(X @ omega.T + b)), h
    return (lambda X: X), p["d"]


def model_fn(p: dict, ctx):
    """(initial parameters as a list of tensors, u(params, X) -> (N, z), split(params, l) -> the univariate
    problem's parameters, u_one(params_l, X) -> (N,))."""
    z, d = p["z"], p["d"]
    if p["model"] == "two_layer":
        h = p["h"]
        G1, G2 = ctx.randn(h, d), ctx.randn(h, z)

        def u(prm, X):
            return torch.relu(X @ prm[0].T) @ prm[1] / math.sqrt(h)

        def split(prm, l):
            return [prm[0].clone(), prm[1][:, l:l + 1].clone()]

        def u_one(prm, X):
            return (torch.relu(X @ prm[0].T) @ prm[1] / math.sqrt(h))[:, 0]

        return [G1, G2], u, split, u_one
    psi, m = features(p, ctx)
    Theta = ctx.randn(z, m) / math.sqrt(m)

    def u(prm, X):
        return psi(X) @ prm[0].T

    def split(prm, l):
        return [prm[0][l].clone()]

    def u_one(prm, X):
        return psi(X) @ prm[0]

    return [Theta], u, split, u_one


def gd(params, loss_fn, eta: float, steps: int, record) -> list:
    """Gradient descent on ``loss_fn(params)``; ``record(params)`` after every step (and before the first)."""
    prm = [q.clone() for q in params]
    out = [record(prm)]
    for _ in range(steps):
        prm = [q.detach().requires_grad_(True) for q in prm]
        grads = torch.autograd.grad(loss_fn(prm), prm)
        prm = [(q - eta * g).detach() for q, g in zip(prm, grads, strict=True)]
        out.append(record(prm))
    return out


def stable_eta(p: dict, X: torch.Tensor, ctx) -> float:
    """η = eta_frac · 2/λ_max of the squared loss' Hessian in one output row (ΨᵀΨ for a model linear in Θ; for the
    two-layer control, that of its output layer at initialisation)."""
    if p["model"] == "two_layer":
        F = torch.relu(X @ ctx.randn(p["h"], p["d"]).T) / math.sqrt(p["h"])
    else:
        psi, _ = features(p, ctx)
        F = psi(X)
    return p["eta_frac"] * 2.0 / float(torch.linalg.eigvalsh(F.T @ F).max())


@one_thread
def evaluate(p: dict, form: str, ctx) -> Outcome:
    n, z, T, c = p["n"], p["z"], p["steps"], p["coupling"]
    X, Y, Xt = ctx.randn(n, p["d"]), ctx.randn(n, z), ctx.randn(p["test"], p["d"])
    gen_state = ctx.generator.get_state()
    params, u, split, u_one = model_fn(p, ctx)
    ctx.generator.set_state(gen_state)
    # the same features for the step size (a fresh draw with the model's state: kernel features coincide)
    eta = stable_eta(p, X, ctx)
    Xall = torch.cat([X, Xt])

    def joint_loss(prm):
        return 0.5 * ((u(prm, X) - Y) ** 2).sum()

    joint = torch.stack(gd(params, joint_loss, eta, T, lambda prm: u(prm, Xall).detach()))  # (T+1, N, z)
    indep = []
    for l in range(z):
        others = [j for j in range(z) if j != l]

        def one_loss(prm, l=l, others=others):
            r = u_one(prm, X) - Y[:, l]
            if c == 0.0:
                return 0.5 * (r ** 2).sum()
            # a wrong coupling: the other outputs' residuals at the *joint* initial model leak into this one
            leak = (u(params, X)[:, others] - Y[:, others]).sum(-1).detach()
            return 0.5 * (r ** 2).sum() + c * (r * leak).sum()

        indep.append(torch.stack(gd(split(params, l), one_loss, eta, T, lambda prm: u_one(prm, Xall).detach())))
    indep = torch.stack(indep, -1)  # (T+1, N, z)
    scale = float(joint.abs().max())
    gap = float((joint - indep).abs().max()) / scale

    # eq. (3): the first step's change of u at every input, against −η Σ_i Σ_j ⟨∇u_l(x), ∇u_j(x_i)⟩ r_ij
    prm = [q.clone().requires_grad_(True) for q in params]
    flat = lambda gs: torch.cat([g.flatten() for g in gs])  # noqa: E731

    def jac(Xs):
        out = u(prm, Xs)
        return torch.stack([torch.stack([flat(torch.autograd.grad(out[a, l], prm, retain_graph=True))
                                         for l in range(z)]) for a in range(Xs.shape[0])])  # (N, z, P)
    J_all, J_train = jac(Xall), jac(X)
    r = (u(params, X) - Y)  # (n, z)
    rhs = -torch.einsum("alp,ijp,ij->al", J_all, J_train, r)  # eq. (3), every (l, j) pair kept
    step = joint[1] - joint[0]
    pred = p["eq3_scale"] * eta * rhs  # eq3_scale ≠ 1: a deliberately wrong constant in front of eq. (3)
    eq3_err = float((step - pred).abs().max() / pred.abs().max())
    off = 1 - torch.eye(z, dtype=ctx.dtype, device=ctx.device)
    cross = float((torch.einsum("alp,ijp->ailj", J_all, J_train) * off).abs().max())  # ⟨∇u_l(x), ∇u_j(x_i)⟩, l ≠ j

    claims = [
        Claim.at_most("joint_equals_independent", gap, 0.0, "max over steps, inputs (train and held-out), outputs "
                      "of |u_joint − u_univariate| / max |u_joint|", atol=DECOUPLE_RTOL),
    ]
    eq3 = "first step: |Δu − η·(eq. 3)| / |η·(eq. 3)|"
    claims.append(Claim.at_most("eq3_predicts_the_step", eq3_err, 0.0, eq3, kind="identity", atol=EQ3_RTOL)
                  if p["model"] != "two_layer" else  # first order only: the network is not linear in its parameters
                  Claim.measurement("eq3_predicts_the_step", eq3_err, 0.0, eq3 + " (first order for a network)"))
    details = {"eta": eta, "steps": T, "max_abs_output": scale, "cross_output_ntk_max": cross,
               "final_train_loss": float(0.5 * ((joint[-1, :n] - Y) ** 2).sum()),
               "initial_train_loss": float(0.5 * ((joint[0, :n] - Y) ** 2).sum())}
    return Outcome(claims=claims, details=details)


def hypotheses(p: dict, form: str) -> list[Violation]:
    out = []
    if p["model"] == "two_layer":
        out.append(Violation("linear or kernel model (Lemma 1)", "model='two_layer' shares a hidden layer between "
                             "the outputs (a control)", ("model",)))
    return out


def cost(p: dict) -> Cost:
    m = max(p["d"], p["h"])
    N = p["n"] + p["test"]
    P = p["z"] * m + (p["h"] * p["d"] if p["model"] == "two_layer" else 0)
    return Cost(elements=N * p["z"] * P * 2 + (p["steps"] + 1) * N * p["z"] * 2,
                work=4.0 * p["steps"] * (p["z"] + 1) * N * m * max(p["z"], p["d"]) + N * N * p["z"] ** 2 * P)


def _strategy():
    from ..strategies._common import declared_params

    return declared_params(ID)


CONTROLS = (dict(model="two_layer", allow_violation=True), dict(coupling=2e-11, allow_violation=True))
# Pin of EQ3_RTOL: eq. (3)'s right-hand side ×(1 + 3e-9) misses the first step by 3e-9 relative, 3 allowances (a
# literal, not built from EQ3_RTOL: loosened ×10 the control passes its identity; its Pin below).
PINS = (
    Pin("eq3_predicts_the_step", "eq3_scale", fails=1 + 3e-9, within=10, params=dict(allow_violation=True)),
    Pin("joint_equals_independent", "coupling", fails=2e-11, within=10,
        params=dict(allow_violation=True), reported=True),
)

RESULT = register(Result(
    id=ID, paper=PAPER, section="Section 'Learning Dynamics of Multivariate Regression', eq. (3) and Remark 1",
    title="Remark 1: a z-variate squared regression trains as z independent univariate ones (linear / kernel)",
    statement=("Under Lemma 1 the dynamics (3) simplify to u̇_l(x) = −Σ_i ⟨∇u_l(x), ∇u_l(x_i)⟩(u_l(x_i) − y_{i,l}): "
               "each output evolves independently, so a z-variate squared regression is z independent univariate "
               "problems."),
    status=Status.VERIFIED,
    logic=Logic(for_all="every linear or kernel model, training set, initial Θ and time along gradient descent"),
    binding=(Binding("a step size at which training still converges (η < 2/λ_max)",
                     dict(eta_frac=0.95, steps=400), "η = 0.95·2/λ_max, 400 steps"),),
    controls=CONTROLS,
    pins=PINS,
    strategy=_strategy,
    params=(
        Param("model", str, "linear", "linear Θx, kernel Θψ(x) (random Fourier features), or a 2-layer relu network "
              "(a control)", "linear | kernel", choices=MODELS, sample=("linear", "kernel")),
        Param("d", int, 4, "input dimension", low=1, high=64, sample=(1, 6)),
        Param("z", int, 3, "output dimension", low=1, high=16, sample=(1, 4)),
        Param("n", int, 12, "training points", low=1, high=512, sample=(1, 16)),
        Param("test", int, 4, "held-out inputs where the outputs are compared too", low=0, high=512),
        Param("h", int, 32, "kernel features / width of the two-layer control", low=1, high=4096, sample=(1, 64)),
        Param("steps", int, 50, "gradient-descent steps", low=1, high=10_000, sample=(1, 100)),
        Param("eta_frac", float, 0.5, "step size as a fraction of the stability edge 2/λ_max", "< 1", low=1e-6,
              high=0.999, sample=(0.01, 0.99)),
        Param("coupling", float, 0.0,
              "leak of the other outputs' residuals into each gradient (≠ 0: not eq. (3)'s squared loss; a wrong "
              "constant, a control)",
              "= 0", low=-1.0, high=1.0, breaks="the squared loss of eq. (3)"),
        Param("eq3_scale", float, 1.0,
              "multiplies the right-hand side of eq. (3) in the one-step identity (≠ 1: a wrong constant, a control)",
              "= 1", low=0.5, high=2.0, breaks="eq. (3) as printed"),
        seed_param(),
    ),
    cost=cost, evaluate=evaluate, hypotheses=hypotheses, forms=(AS_PRINTED,),
    module=__name__,
))
