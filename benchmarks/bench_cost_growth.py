"""How cost grows with size: the UFM solver and the three most expensive results, each at sizes 1×, 2× and 4×,
with the exponent p of time ∝ size^p fitted over the three (least squares on log time against log size).

What "size" is, for each (the knob a user turns to ask for more):

* ``solve_ufm``: the random restarts solved at once, R = 256 / 512 / 1024, on paper 004's Lemma 4.2 instance
  (K=4, n=3, d=6, λ=0.05, cross-entropy). The issue's target is a batched time linear in the restarts (p ≤ 1).
* ``nonlinear_cl.figure_4`` (the costliest result of the ci run: 42 s of recorded evidence, 39 s of it the replay
  of its counterexample, the printed protocol): that instance with the SGD minibatches ``steps`` = 500 / 1000 / 2000
  (the counterexample runs 5000). Expected p ≈ 1: each step is the same.
* ``neural_collapse.theorem_4_3_depth`` (16 s): ``seeds`` = 1 / 2 / 4, the networks trained at once per depth
  (batched L-BFGS). p < 1 is what batching buys; p = 1 is a loop.
* ``neural_collapse.theorem_4_6`` (11 s): the same, ``seeds`` = 1 / 2 / 4.

(The costs in parentheses are the seconds of evidence each result recorded in one ci pytest run,
``.theorems/last-run.json``, summed over its instances.)

Each size's time is the minimum over its rounds of the process's CPU time (``--benchmark-timer
time.process_time``; this machine is shared, and CPU time is far less noisy there than wall time) of one
evaluation: ``solve_ufm`` called directly, a result through ``theorems.check`` (its default instance with the
size changed). One torch thread, as in the test run (the plugin sets it). The 4× benchmark of each target carries
the fitted exponent in its ``extra_info`` (``exponent``, with the three sizes and times), once the 1× and 2× ran in
the same session; there are no timing assertions.

    pytest benchmarks/bench_cost_growth.py --benchmark-only --benchmark-timer time.process_time \\
        --benchmark-columns min,rounds --benchmark-json cost-growth.json

Fitted exponents, measured with that command on the 2-core machine this was written on while other jobs loaded it
(load average ~20; CPU time, the minimum of the rounds; README.md, "Performance", has the table):

    solve_ufm               R = 256 / 512 / 1024    0.099 / 0.170 / 0.316 s  p = 0.84  (2026-11-27, -k solve_ufm, load ~6:
                                                                       compiled loops, optim.fused)
    figure_4 (printed)      steps = 500/1000/2000   5.08 / 7.48 / 15.12 s    p = 0.79  (one round; 1000 -> 2000 doubles)
    theorem_4_3_depth       seeds = 1 / 2 / 4       7.68 / 7.14 / 8.19 s     p = 0.05  (batched: extra nets ~free)
    theorem_4_6             seeds = 1 / 2 / 4       4.36 / 4.77 / 7.02 s     p = 0.34
"""

from __future__ import annotations

import math

import pytest

import theorems
from theorems.core.context import Context
from theorems.neural_collapse.ufm import solve_ufm

SCALES = (1, 2, 4)

# target -> (the size at 1×, rounds per size, what one evaluation at a size runs)
UFM_RESTARTS = 256
TARGETS = {
    "solve_ufm": (UFM_RESTARTS, 3),
    "nonlinear_cl.figure_4": (500, 1),
    "neural_collapse.theorem_4_3_depth": (1, 2),
    "neural_collapse.theorem_4_6": (1, 2),
}
# The knob each result's size turns (a Params field of its default instance).
KNOB = {"nonlinear_cl.figure_4": "steps", "neural_collapse.theorem_4_3_depth": "seeds",
        "neural_collapse.theorem_4_6": "seeds"}

# The instance each result's size scales: figure_4's cost in the ci run is its registered counterexample (the
# printed protocol: 5000 steps, 3 seeds; 39 of its 42 s), the depth sweeps' their default instance.
INSTANCE = {"nonlinear_cl.figure_4": dict(form="as_printed", Ps=[1], betas=[1, 5], seeds=3, batch=128, lr=0.002,
                                        allow_violation=True)}  # fewer steps than printed: a timing, not evidence

_TIMES: dict[str, dict[int, float]] = {}


def evaluate(target: str, size: int):
    if target == "solve_ufm":
        ctx = Context.make("cpu", seed=0)
        solution = solve_ufm("ce", 4, 3, 6, 0.05, restarts=size, ctx=ctx)
        return bool(solution.converged.all())
    evidence = theorems.check(target, **INSTANCE.get(target, {}), **{KNOB[target]: size})
    return evidence.converged is not False


def fitted_exponent(sizes: list[float], times: list[float]) -> float:
    """The slope p of log t = p log s + c, least squares."""
    xs, ys = [math.log(s) for s in sizes], [math.log(t) for t in times]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)


def test_fitted_exponent_recovers_a_known_power():
    """The fit itself (no timing): t = 3 s^1.5 gives 1.5, and a noisy linear law stays near 1."""
    assert fitted_exponent([1, 2, 4], [3 * s ** 1.5 for s in (1, 2, 4)]) == pytest.approx(1.5)
    assert abs(fitted_exponent([1, 2, 4], [1.0, 2.2, 3.9]) - 1) < 0.05


@pytest.mark.parametrize("scale", SCALES, ids=[f"{s}x" for s in SCALES])
@pytest.mark.parametrize("target", list(TARGETS))
def test_cost_growth(benchmark, target, scale):
    base, rounds = TARGETS[target]
    size = base * scale
    benchmark.group = f"cost growth: {target}"
    benchmark.extra_info.update(target=target, knob=KNOB.get(target, "restarts"), size=size, scale=scale)
    ok = benchmark.pedantic(evaluate, args=(target, size), rounds=rounds, iterations=1, warmup_rounds=0)
    assert ok, f"{target} at {size}: the run did not converge (its time would not be the cost of an answer)"
    if benchmark.stats is None:  # --benchmark-disable: nothing was timed
        return
    _TIMES.setdefault(target, {})[scale] = benchmark.stats.stats.min
    times = _TIMES[target]
    if scale == SCALES[-1] and all(s in times for s in SCALES):
        sizes = [base * s for s in SCALES]
        exponent = fitted_exponent(sizes, [times[s] for s in SCALES])
        benchmark.extra_info.update(exponent=round(exponent, 3), sizes=sizes,
                                    times_s=[round(times[s], 4) for s in SCALES])
