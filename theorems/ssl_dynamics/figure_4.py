"""Figure 4 (right) of paper 002: a linear SVM on the embeddings of the trained network (11) and of the ODE (12).

Statement as printed (Section "Numerical Evaluation", "Runtime and downstream task")
-----------------------------------------------------------------------------------
"For this illustration we now consider two classes with 200 datapoints each from the MNIST dataset. […] we can
furthermore consider the performance of downstream tasks on top of the embeddings. We illustrate this in the setting
above where we apply a linear SVM on top of the embeddings. The results are shown in Figure 4 (right) where we
observe that overall the performance of the downstream task for both the SGD optimization and the differential
equation coincide." (Figure 4 left, the run time per step of (11) growing linearly with h and (12) not depending on
it, is a timing: it belongs to benchmarks, not to a check.)

Real data, small scale
----------------------
scikit-learn's bundled 8×8 digits stand in for MNIST (``theorems.data.digits``): classes 0 and 1, ``n`` images of
each (the paper: 200; the smaller class has 178 here), half of them to train (SSL and the SVM), half to test. It is a
small-scale stand-in: 64 pixels against 784, so only the agreement of the two accuracies is compared with the paper,
not their values.

Quantifiers and reading
-----------------------
For every width h and every initialisation: the linear model u(x) = W₂ᵀW₁x with W₁ ∈ St(h, 64), W₂ ∈ St(h, 1) (z = 1,
the setting of (12)) trained on the contrastive loss (1) of the training images (x⁺ = x + N(0, σ²I), x⁻ a random
training image; C/n, the mean loss) by (11) — gradient descent with the constraints kept (read as Riemannian descent,
the step that tracks (12) to first order, see ``ssl_dynamics.figure_3``) — and the ODE (12) in C's eigenbasis from the
same initial machine output q₀ = VᵀW₁ᵀW₂. At ``checkpoints`` times along training, a linear SVM (scikit-learn
``LinearSVC``, C = 1) is fitted on each embedding of the training images and scored on the test images.
``accuracies_coincide``: max over widths, initialisations and checkpoints of |acc(11) − acc(12)| ≤ one test image
(ACC_IMAGES / 150 at the default). Measured: equal at every checkpoint (0.953 … 0.993), the 64-pixel SVM 1.0. The step η = ETA_RATE / max(8|λ₁|, 2(λ_d − λ₁)) keeps (12) stable (the paper's η = 0.01 is for its
own scale of C). Status ``verified``.

Control: ``step_sign=+1``, eq. (11) exactly as printed (W + η∇L, ascent): the network climbs to the largest
eigenvalue's direction while (12) descends, and the accuracies part.
"""

from __future__ import annotations


import numpy as np
import torch

from ..core.evidence import Claim
from ..core.registry import register
from ..core.result import AS_PRINTED, Binding, Cost, Logic, Outcome, Param, Result, Status, Violation, seed_param
from ..data.digits import STAND_IN_NOTE, class_sizes, digits
from ..data.ssl_pairs import ssl_triplets
from ..optim.stiefel import haar_stiefel, step
from ..optim.threads import one_thread
from .instances import widths_param
from .paper import PAPER
from .trace_form import trace_matrix

ID = "ssl_dynamics.figure_4"
ACC_IMAGES = 1  # the accuracies may differ by at most one test image (the tolerance is ACC_IMAGES / test images)
ETA_RATE = 0.2  # η × the fastest rate of (12) near its fixed points (stable below 2)
SVM_C = 1.0


def accuracy(emb_train: np.ndarray, y_train: np.ndarray, emb_test: np.ndarray, y_test: np.ndarray) -> float:
    from sklearn.svm import LinearSVC

    clf = LinearSVC(C=SVM_C, dual=False).fit(emb_train, y_train)
    return float((clf.predict(emb_test) == y_test).mean())


def ode12(q: torch.Tensor, lam: torch.Tensor, eta: float) -> torch.Tensor:
    """One step of (12), batched over the leading axis: q − 2η[2Λq − Λqqᵀq − qqᵀΛq], q (B, d, 1)."""
    Lq = lam[:, None] * q
    qt = q.transpose(-1, -2)
    return q - 2 * eta * (2 * Lq - Lq @ (qt @ q) - q @ (qt @ Lq))


@one_thread
def evaluate(p: dict, form: str, ctx) -> Outcome:
    n = p["n"]
    X, y = digits(ctx, 2, n)  # (64, 2n), classes 0 and 1, each in a random order
    X, y = X.T, y
    half = n // 2
    train = torch.cat([torch.arange(half, device=ctx.device), n + torch.arange(half, device=ctx.device)])
    test = torch.cat([torch.arange(half, n, device=ctx.device), n + torch.arange(half, n, device=ctx.device)])
    Xtr, Xte = X[train], X[test]
    ytr, yte = y[train].cpu().numpy(), y[test].cpu().numpy()
    C = trace_matrix(ssl_triplets(ctx, Xtr, p["sigma2"]), "contrastive")
    lam, V = torch.linalg.eigh(C)
    d = C.shape[0]
    eta = ETA_RATE / max(8 * abs(float(lam[0])), 2 * float(lam[-1] - lam[0]))
    T, checks = p["steps"], p["checkpoints"]
    record = sorted({round(T * (k + 1) / checks) for k in range(checks)})
    R = p["inits"]
    gaps, rows = [], []
    for h in p["widths"]:
        W1, W2 = haar_stiefel(ctx, R, h=h, k=d), haar_stiefel(ctx, R, h=h, k=1)
        q = V.T @ (W1.transpose(-1, -2) @ W2)  # (R, d, 1): the initial machine output in C's eigenbasis
        for t in range(1, T + 1):
            W1, W2 = step(W1, W2, C, eta, "grassmann", sign=float(p["step_sign"]))
            q = ode12(q, lam, eta)
            if t in record:
                w_net = (W1.transpose(-1, -2) @ W2)[..., 0]  # (R, d): u(x) = wᵀx
                w_ode = (V @ q)[..., 0]
                for r in range(R):
                    a_net = accuracy((Xtr @ w_net[r])[:, None].cpu().numpy(), ytr,
                                     (Xte @ w_net[r])[:, None].cpu().numpy(), yte)
                    a_ode = accuracy((Xtr @ w_ode[r])[:, None].cpu().numpy(), ytr,
                                     (Xte @ w_ode[r])[:, None].cpu().numpy(), yte)
                    gaps.append(abs(a_net - a_ode))
                    rows.append({"h": h, "t": t, "init": r, "acc_network": a_net, "acc_ode": a_ode})
    pixels = accuracy(Xtr.cpu().numpy(), ytr, Xte.cpu().numpy(), yte)
    final = [row for row in rows if row["t"] == record[-1]]
    claims = [
        Claim.at_most("accuracies_coincide", max(gaps), 0.0, "max over widths, initialisations and checkpoints of "
                      "|SVM test accuracy on the (11) embedding − on the (12) embedding|",
                      atol=(ACC_IMAGES + 1e-9) / len(yte)),
        Claim.measurement("final_accuracy_ode_min", min(r["acc_ode"] for r in final), pixels,
                          "the least final test accuracy of the (12) embeddings (reference: an SVM on the 64 pixels)"),
    ]
    details = {"dataset": "digits", "stand_in": STAND_IN_NOTE, "eta": eta, "eigenvalues_C_extremes":
               [float(lam[0]), float(lam[-1])], "checkpoints_at": record, "svm_pixels_accuracy": pixels,
               "accuracy_rows": rows, "n_train": 2 * half, "n_test": 2 * (n - half)}
    return Outcome(claims=claims, details=details)


def hypotheses(p: dict, form: str) -> list[Violation]:
    out = []
    most = min(class_sizes()[:2])
    if p["n"] > most:
        out.append(Violation(f"n ≤ {most} images per class", f"the digits 0 and 1 have {most} and more images",
                             ("n",), False))
    if min(p["widths"]) < 64:
        out.append(Violation("h ≥ d = 64 (W₁ ∈ St(h, 64))", f"smallest width {min(p['widths'])}", ("widths",), False))
    return out


def cost(p: dict) -> Cost:
    R, T = p["inits"], p["steps"]
    hs = sum(p["widths"])
    fits = len(p["widths"]) * R * p["checkpoints"] * 2  # SVMs on 1-D embeddings of 2n images
    return Cost(elements=4 * R * max(p["widths"]) * 65 + 4 * 64 * 64 + 6 * p["n"] * 64,
                work=12.0 * R * T * hs * 64 * 66 + fits * 2 * p["n"] * (64 + 100) + 2 * p["n"] * 64 * 64)


CONTROLS = (dict(step_sign=1, allow_violation=True),)

RESULT = register(Result(
    id=ID, paper=PAPER, section="Section 'Numerical Evaluation', 'Runtime and downstream task', Figure 4 (right)",
    title="Figure 4 (right) on digits: a linear SVM scores the trained network's and the ODE's embeddings alike",
    statement=("On two MNIST classes (200 images each), a linear SVM on the embeddings obtained by training the "
               "network (11) and by running the differential equation (12) gives the same downstream accuracy. "
               "Checked on scikit-learn's 8×8 digits 0 and 1, a small-scale stand-in."),
    status=Status.VERIFIED,
    logic=Logic(for_all="every width h ≥ 64, initialisation and checkpoint along training (digits 0/1, z = 1)"),
    binding=(Binding("h ≥ d (the narrowest width)", dict(widths=(64, 65, 66)), "h = d = 64"),),
    controls=CONTROLS,
    strategy=lambda: _strategy(),
    params=(
        Param("n", int, 150, "images per class (half train, half test)", "≤ 178", low=4, high=200, sample=(40, 150)),
        widths_param((64, 128, 256), "hidden widths h (≥ 64)", low=1),
        Param("inits", int, 2, "random initialisations per width", low=1, high=64),
        Param("steps", int, 200, "steps of (11) and of (12)", low=1, high=100_000, sample=(20, 200)),
        Param("checkpoints", int, 4, "times along training at which both embeddings are scored", low=1, high=100),
        Param("sigma2", float, 0.1, "augmentation variance (x⁺ = x + N(0, σ²I))", low=0.0, high=10.0,
              sample=(0.01, 0.3)),
        Param("step_sign", int, -1, "−1: descent; +1: (11) as printed, W + η∇L (ascent, a control)", "= −1", low=-1,
              high=1, breaks="(11) as gradient descent"),
        seed_param(),
    ),
    cost=cost, evaluate=evaluate, hypotheses=hypotheses, forms=(AS_PRINTED,),
    module=__name__,
))


def _strategy():
    from ..strategies._common import declared_params

    # one example of the CI search stays cheap: two widths, one start, two checkpoints (the declared n, steps, σ²)
    return declared_params(ID, widths=(64, 96), inits=1, checkpoints=2)
