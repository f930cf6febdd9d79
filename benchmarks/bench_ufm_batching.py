"""The batched UFM solver against what a user would write: a loop of scipy L-BFGS-B calls.

Problem: paper 004's Lemma 4.2 instance, UFM with K=4, n=3, d=6, λ=0.05, both losses, 256 random
feasible starts, one CPU thread (torch and the BLAS under numpy).

* batched: one ``solve_ufm(loss, ..., restarts=256)`` call (batched Riemannian Newton, the default);
* scipy:   256 ``scipy.optimize.minimize(method="L-BFGS-B")`` calls with a hand-written analytic gradient,
           from the SAME starts (W, V), in the coordinates X = ln(V) the old batched L-BFGS used, with
           the strictest options it takes (gtol 1e-10, ftol 0, 20 correction pairs).

Both are certified the same way: the Riemannian gradient norm at the returned (W, X), recomputed by
autograd, against gtol = 1e-9. Times are process CPU time (``time.process_time``; the machine this was
written on is shared, and CPU time is far less noisy than wall time there), the minimum over repeats.
The per-iteration cost is compared with an arithmetic floor: the flops of one Newton iteration of one
instance (counted below) divided by the flop rate of a batched matmul of the solver's own dominant shape
(measured here). There are no timing assertions.

    pytest benchmarks/bench_ufm_batching.py --benchmark-only --benchmark-timer time.process_time  # table, ratios
    python benchmarks/bench_ufm_batching.py [CE_REPEATS MSE_REPEATS]   # interleaved repeats, min, report
"""

from __future__ import annotations

import ctypes
import glob
import math
import os
import sys
import time

import numpy as np
import pytest
import torch
from scipy.optimize import minimize

# this checkout's theorems when run as a script (sys.path then starts at benchmarks/, where an installed copy would win)
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from theorems.core.context import Context  # noqa: E402
from theorems.data.frames import balanced_labels  # noqa: E402
from theorems.neural_collapse.ufm import closed_form, riemannian_grad_norm, solve_ufm, ufm_objective  # noqa: E402
from theorems.optim.manifolds import ln  # noqa: E402

K, N_PER_CLASS, D, LAM = 4, 3, 6, 0.05
N = K * N_PER_CLASS
RESTARTS = 256
SEED = 0
GTOL = 1e-9
REACH_RTOL = 1e-7  # lemma_4_2's "reaches L*"
SCIPY_OPTIONS = {"gtol": 1e-10, "ftol": 0.0, "maxcor": 20, "maxiter": 20000}


def single_thread() -> str:
    """One thread for torch and for the OpenBLAS builds under numpy and scipy.

    Their idle worker threads otherwise spin after a call and bill CPU time to the process (scipy's
    L-BFGS-B calls its own OpenBLAS), which would make the scipy loop look slower than it is.
    """
    torch.set_num_threads(1)
    import numpy
    import scipy

    done = []
    for pkg in (numpy, scipy):
        libs = os.path.join(os.path.dirname(pkg.__file__), "..", f"{pkg.__name__}.libs", "*openblas*")
        for lib in glob.glob(libs):
            handle = ctypes.CDLL(lib)
            for name in ("scipy_openblas_set_num_threads64_", "scipy_openblas_set_num_threads",
                         "openblas_set_num_threads64_", "openblas_set_num_threads"):
                if hasattr(handle, name):
                    getattr(handle, name)(1)
                    done.append(os.path.basename(lib))
                    break
    return f"OpenBLAS set to 1 thread in {done}" if done else "OpenBLAS threads not set (set OPENBLAS_NUM_THREADS=1)"


# ----------------------------------------------------------------------------------------------------
# The two solvers on the same starts
# ----------------------------------------------------------------------------------------------------
def starts(seed: int = SEED, restarts: int = RESTARTS, K: int = K, n: int = N_PER_CLASS, d: int = D) -> np.ndarray:
    """The (W, V) starts solve_ufm draws for this seed, flattened, as scipy wants them."""
    ctx = Context.make("cpu", seed=seed)
    return torch.cat([ctx.randn(restarts, K * d), ctx.randn(restarts, d * K * n)], dim=1).numpy()


def scipy_value_and_grad(loss: str, K: int = K, n: int = N_PER_CLASS, d: int = D, lam: float = LAM):
    """f and ∇f in (W, V) coordinates, X = ln(V), written out by hand (numpy)."""
    N = K * n
    y = np.repeat(np.arange(K), n)
    Y = np.zeros((K, N))
    Y[y, np.arange(N)] = 1.0
    sd = math.sqrt(d)

    def fg(theta: np.ndarray) -> tuple[float, np.ndarray]:
        W, V = theta[: K * d].reshape(K, d), theta[K * d:].reshape(d, N)
        PV = V - V.mean(0)
        r = np.sqrt((PV * PV).sum(0))
        X = sd * PV / r
        Z = W @ X
        if loss == "mse":
            R = Z - Y
            f = (R * R).sum() / (2 * N)
            G = R / N
        else:
            m = Z.max(0)
            E = np.exp(Z - m)
            s = E.sum(0)
            f = (m + np.log(s) - Z[y, np.arange(N)]).mean()
            G = (E / s - Y) / N
        f += 0.5 * lam * (W * W).sum()
        gX = W.T @ G
        pg = gX - gX.mean(0)
        gV = (sd / r) * (pg - X * (X * pg).sum(0) / d)  # the VJP of ln
        return f, np.concatenate([(G @ X.T + lam * W).ravel(), gV.ravel()])

    return fg


def run_scipy(loss: str, theta0: np.ndarray, K: int = K, n: int = N_PER_CLASS, d: int = D, lam: float = LAM) -> dict:
    fg = scipy_value_and_grad(loss, K, n, d, lam)
    res = [minimize(fg, t, jac=True, method="L-BFGS-B", options=SCIPY_OPTIONS) for t in theta0]
    W = torch.tensor(np.stack([r.x[: K * d] for r in res])).reshape(-1, K, d)
    X = ln(torch.tensor(np.stack([r.x[K * d:] for r in res])).reshape(-1, d, K * n))
    labels = balanced_labels(K, n)
    return summary(loss, ufm_objective(W, X, labels, loss, lam), riemannian_grad_norm(W, X, labels, loss, lam),
                   sum(r.nit for r in res), K, d, lam)


def run_batched(loss: str, seed: int = SEED) -> dict:
    sol = solve_ufm(loss, K, N_PER_CLASS, D, LAM, restarts=RESTARTS, ctx=Context.make("cpu", seed=seed), gtol=GTOL)
    out = summary(loss, sol.values, sol.grad_norm, int(sol.iterations.sum()))
    out.update(statuses_gtol=sum(s == "gtol" for s in sol.status), iterations_max=int(sol.iterations.max()),
               converged=int(sol.converged.sum()), batched_evaluations=sol.raw.evaluations,
               batched_factorizations=sol.raw.factorizations)
    return out


def summary(loss: str, values: torch.Tensor, grad_norm: torch.Tensor, iterations: int, K: int = K, d: int = D,
            lam: float = LAM) -> dict:
    target = closed_form(loss, K, d, lam).value
    return {"certified": int((grad_norm <= GTOL).sum()), "best_rel": float(values.min()) / target - 1,
            "reaching": int((values <= target * (1 + REACH_RTOL)).sum()), "iterations": iterations}


def cpu_time(fn, *args) -> tuple[float, object]:
    t0 = time.process_time()
    out = fn(*args)
    return time.process_time() - t0, out


# ----------------------------------------------------------------------------------------------------
# The arithmetic floor of one Newton iteration
# ----------------------------------------------------------------------------------------------------
def newton_flops_per_iteration(loss: str) -> int:
    """Flops of one iteration (one model evaluation + one Schur solve) of one instance, leading terms.

    m = K(d−1) shared unknowns, q = d−2 per feature, N features: the Schur complement Σ F_iᵀF_i
    (2m²Nq), its Cholesky (m³/3) and solve (2m²), the N blocks (Nq³/3 + triangular solves with K+p+1
    right-hand sides), the CE curvature block Σ A_i ⊗ u_i u_iᵀ (2Nm² + 2NKp²; MSE 2Np²), the feature
    blocks (2NKq²) and the logits and gradients (~8NKp).
    """
    p, q = D - 1, D - 2
    m = K * p
    solve = 2 * m * m * N * q + m**3 // 3 + 2 * m * m + N * q**3 // 3 + 2 * N * q * q * (K + p + 1) + 3 * N * q * m
    a_block = 2 * N * m * m + 2 * N * K * p * p if loss == "ce" else 2 * N * p * p
    evaluate = a_block + 2 * N * K * q * q + 8 * N * K * p
    return solve + evaluate


def achievable_flop_rate(batch: int = RESTARTS, repeats: int = 20) -> float:
    """Flop rate of the solver's dominant kernel, the batched (m × Nq) @ (Nq × m) product, on this thread."""
    p, q = D - 1, D - 2
    m = K * p
    a = torch.randn(batch, m, N * q, dtype=torch.float64)
    b = torch.randn(batch, N * q, m, dtype=torch.float64)
    best = math.inf
    for _ in range(repeats):
        t0 = time.process_time()
        a @ b
        best = min(best, time.process_time() - t0)
    return 2 * batch * m * N * q * m / best


def floor_report(loss: str, seconds: float, info: dict, rate: float) -> str:
    per_iter = seconds / info["iterations"]  # per instance-iteration (batched; only active instances work)
    floor = newton_flops_per_iteration(loss) / rate
    return (f"per instance-iteration {per_iter * 1e6:.1f} µs vs arithmetic floor {floor * 1e6:.2f} µs "
            f"({newton_flops_per_iteration(loss) / 1e3:.0f} kflop at {rate / 1e9:.2f} Gflop/s): "
            f"{per_iter / floor:.0f}x the floor")


# ----------------------------------------------------------------------------------------------------
# pytest-benchmark (opt-in: pytest benchmarks/ --benchmark-only)
# ----------------------------------------------------------------------------------------------------
_SECONDS: dict[tuple[str, str], float] = {}


def _record(benchmark, key: tuple[str, str], info: dict, capsys) -> None:
    benchmark.extra_info.update(info, problem=f"UFM-{key[1].upper()} K={K} n={N_PER_CLASS} d={D} lam={LAM}",
                                restarts=RESTARTS, torch_threads=torch.get_num_threads())
    stats = getattr(benchmark, "stats", None)  # None under --benchmark-disable
    if stats is None:
        return
    _SECONDS[key] = float(stats.stats.min)
    other = ("scipy" if key[0] == "batched" else "batched", key[1])
    if other in _SECONDS:
        ratio = _SECONDS[("scipy", key[1])] / _SECONDS[("batched", key[1])]
        benchmark.extra_info["speedup_vs_scipy"] = ratio
        with capsys.disabled():
            print(f"\n[ufm {key[1]}] scipy loop {_SECONDS[('scipy', key[1])]:.3f} s, batched "
                  f"{_SECONDS[('batched', key[1])]:.3f} s (min wall over rounds) -> {ratio:.1f}x")


@pytest.mark.parametrize("loss", ["ce", "mse"])
def test_batched_newton_256_starts(benchmark, loss, capsys):
    single_thread()
    benchmark.group = f"ufm-{loss}-256-starts"
    info = benchmark.pedantic(run_batched, args=(loss,), rounds=3, iterations=1, warmup_rounds=1)
    assert info["converged"] == RESTARTS and info["best_rel"] <= REACH_RTOL and info["best_rel"] >= -1e-12
    _record(benchmark, ("batched", loss), info, capsys)
    if getattr(benchmark, "stats", None) is not None:
        with capsys.disabled():
            print(f"\n[ufm {loss}] {floor_report(loss, float(benchmark.stats.stats.min), info, achievable_flop_rate())}")


@pytest.mark.parametrize("loss", ["ce", "mse"])
def test_scipy_loop_256_starts(benchmark, loss, capsys):
    single_thread()
    benchmark.group = f"ufm-{loss}-256-starts"
    theta0 = starts()
    info = benchmark.pedantic(run_scipy, args=(loss, theta0), rounds=1, iterations=1, warmup_rounds=0)
    assert info["best_rel"] <= REACH_RTOL  # scipy finds the optimum too (it cannot certify every start)
    _record(benchmark, ("scipy", loss), info, capsys)


# ----------------------------------------------------------------------------------------------------
# Plain script: back-to-back repeats, minimum CPU time, one report
# ----------------------------------------------------------------------------------------------------
def main(repeats: dict[str, int] | None = None) -> None:
    repeats = repeats or {"ce": 3, "mse": 2}  # the MSE scipy loop takes about a minute of CPU per repeat
    threads = single_thread()
    print(f"UFM K={K} n={N_PER_CLASS} d={D} lam={LAM}, {RESTARTS} starts, torch {torch.__version__}, "
          f"torch threads {torch.get_num_threads()}, {threads}; process CPU time, min over repeats {repeats}")
    theta0 = starts()
    run_batched("ce", seed=1)  # warm-up (first-call overheads)
    rate = achievable_flop_rate()
    for loss in ("ce", "mse"):
        t_b, t_s, info_b, info_s = math.inf, math.inf, None, None
        for _ in range(repeats[loss]):  # interleaved, so that both see the same machine load
            t, info_b = cpu_time(run_batched, loss)
            t_b = min(t_b, t)
            t, info_s = cpu_time(run_scipy, loss, theta0)
            t_s = min(t_s, t)
        print(f"\n{loss.upper()}:")
        print(f"  batched Newton: {t_b:7.3f} s  certified {info_b['certified']}/{RESTARTS} (status gtol "
              f"{info_b['statuses_gtol']}), reaching L* {info_b['reaching']}, best/L*-1 {info_b['best_rel']:.1e}, "
              f"iterations max {info_b['iterations_max']}, mean {info_b['iterations'] / RESTARTS:.1f}, "
              f"{info_b['batched_evaluations']} evaluations, {info_b['batched_factorizations']} factorisations")
        print(f"  scipy loop    : {t_s:7.3f} s  certified {info_s['certified']}/{RESTARTS}, reaching L* "
              f"{info_s['reaching']}, best/L*-1 {info_s['best_rel']:.1e}, iterations mean "
              f"{info_s['iterations'] / RESTARTS:.1f}")
        print(f"  ratio         : {t_s / t_b:.1f}x")
        print(f"  {floor_report(loss, t_b, info_b, rate)}")


if __name__ == "__main__":
    main({"ce": int(sys.argv[1]), "mse": int(sys.argv[2])} if len(sys.argv) > 2 else None)
