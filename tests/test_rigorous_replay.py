"""The rigorous replays of theorems/rigorous (issue 41): every registered counterexample whose failing claim is an
explicit evaluation is re-evaluated in ball arithmetic / exact rationals from its recorded point, the enclosure is
written to an evidence.json, and a subprocess with torch and numpy blocked re-runs every enclosure from that file
alone and must reach the same decision. Mutations: a widened enclosure no longer decides, a perturbed point is
caught, a statistical counterexample cannot carry a replay; the second implementations (UFM L*, the (3 − √5)/2
threshold, E[C̃]) raise SuiteError on a float that disagrees with them.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

import theorems
from theorems.core.errors import SuiteError
from theorems.core.grade import REPLAYS, Enclosure, rerun
from theorems.rigorous.arith import NotDecided, decimal, enclosure

ROOT = Path(__file__).resolve().parents[1]
# Statistical counterexamples: Monte Carlo / seeds decide them, never an enclosure (mislabelling one is a defect).
STATISTICAL = {"nonlinear_cl.figure_4", "ssl_dynamics.expected_c"}
# The counterexamples (result id, index in Result.counterexamples) that must replay rigorously: 25 of the 27.
# Not rigorous: figure_4 and expected_c (statistical: seeds, Monte Carlo). remark_2 is rigorous through its coupling
# claim; its collapse claim (σ₂/σ₁ of a float local minimiser of a non-convex loss) stays certified.
RIGOROUS = {
    ("deep_fusion.definition_2", 0), ("deep_fusion.noise_lemma", 0),
    *(("deep_fusion.tables", i) for i in range(4)), *(("deep_fusion.theorem_1", i) for i in range(4)),
    ("nonlinear_cl.lemma_7", 0), ("nonlinear_cl.lemma_7", 1), ("nonlinear_cl.theorem_2", 0),
    ("nonlinear_cl.theorem_2", 1), *(("nonlinear_cl.theorem_6_remark", i) for i in range(3)),
    ("ssl_dynamics.proposition_1", 0), ("ssl_dynamics.proposition_3", 0), ("ssl_dynamics.remark_3", 0),
    ("ssl_dynamics.remark_2", 0),
    ("ssl_dynamics.theorem_3", 0), ("ssl_dynamics.theorem_3", 1),
    ("neural_collapse.dimension_conditions", 0), ("neural_collapse.lemma_4_2", 0),
}


@pytest.fixture(scope="module")
def evidence_json(tmp_path_factory) -> Path:
    """Run every registered counterexample (printed form) except the statistical ones; `theorems.check` attaches the
    registered replays' enclosures to the claims (theorems.core.grade.attach_enclosures). Write each Evidence as
    evidence.json holds it, and beside it the failed bound claims that carry an enclosure."""
    records, evidence = [], []
    for rid in theorems.ids():
        if rid in STATISTICAL:
            continue
        for index, cx in enumerate(theorems.get(rid).counterexamples):
            ev = theorems.check(rid, form="as_printed", **cx)
            evidence.append(ev.to_dict())
            for claim in ev.failed_bounds:
                if claim.enclosure is None:
                    continue
                # the hook's enclosure is the replay's own, from the point as evidence.json holds it
                direct = REPLAYS[(rid, claim.name)]({"params": evidence[-1]["params"], "details": evidence[-1]["details"]})
                assert direct == claim.enclosure, (rid, claim.name)
                assert ev.grade_of(claim) == "rigorous", (rid, claim.name)
                records.append({"result_id": rid, "counterexample": index, "claim": claim.name,
                                "observed": claim.observed, "float_bound": claim.bound,
                                "enclosure": claim.enclosure.to_dict()})
    path = tmp_path_factory.mktemp("rigorous") / "evidence.json"
    path.write_text(json.dumps({"evidence": evidence, "enclosures": records}, indent=1))
    return path


def _records(path: Path) -> list[dict]:
    return json.loads(path.read_text())["enclosures"]


def test_the_rigorous_counterexamples(evidence_json):
    got = {(r["result_id"], r["counterexample"]) for r in _records(evidence_json)}
    assert got == RIGOROUS, f"missing {sorted(RIGOROUS - got)}, unexpected {sorted(got - RIGOROUS)}"
    assert len(got) >= 15


def test_every_enclosure_decides_the_failure_and_holds_the_float(evidence_json):
    for r in _records(evidence_json):
        enc = Enclosure.from_dict(r["enclosure"])
        assert enc.decides() == "fails", r
        # the float observation agrees with the enclosure to float64 accuracy of the torch path (1e-6 relative:
        # FD and optimiser values are approximations of the enclosed exact quantity, or a max it bounds from below)
        lo, hi = Fraction(enc.lo), Fraction(enc.hi)
        obs = Fraction(r["observed"])
        width = max(abs(lo), abs(hi), Fraction(1, 10**9)) * Fraction(1, 10**6)
        if r["claim"] != "witness_exists":  # t* = 0 exactly; HiGHS's point is worth −5e-16
            assert lo - width <= obs <= hi + width or obs <= hi + width and r["enclosure"]["relation"] == "<=", r


# Replays whose enclosure is an interval by construction (an invariant's range, a bound from one side): the others
# enclose one exact number and must stay as narrow as ball arithmetic makes them.
INTERVALS = {"theorem_3_invariants", "theorem_1_unit_columns"}
NARROW = Fraction(1, 10**12)  # relative width of a point enclosure at 256 bits (seen: ≤ 1e-16, the sandwich's gap)


def test_point_enclosures_stay_narrow(evidence_json):
    """Widening an enclosure in the code (a lower precision, a padded radius) fails here even where it still decides."""
    for r in _records(evidence_json):
        enc = r["enclosure"]
        if enc["replay"]["function"].partition(":")[2] in INTERVALS:
            continue
        lo, hi = Fraction(enc["lo"]), Fraction(enc["hi"])
        assert hi - lo <= NARROW * max(abs(lo), abs(hi), Fraction(1, 10**30)), (r["result_id"], r["claim"], lo, hi)


def test_replay_from_evidence_json_alone_without_torch(evidence_json):
    """A reader of evidence.json re-runs every enclosure with python-flint alone: torch and numpy blocked."""
    script = f"""
import json, sys
sys.modules['torch'] = None
sys.modules['numpy'] = None
from theorems.core.grade import Enclosure, rerun
out = []
for ev in json.load(open({str(evidence_json)!r}))["evidence"]:  # the Evidence records themselves
    for c in ev["claims"]:
        if c.get("enclosure") and not c["passed"] and c["kind"] == "bound":
            enc = Enclosure.from_dict(c["enclosure"])
            again = rerun(enc)
            out.append([ev["result_id"], c["name"], again.decides(), again == enc])
assert 'torch' not in sys.modules or sys.modules['torch'] is None
print(json.dumps(out))
"""
    proc = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout.strip().splitlines()[-1])
    assert len(rows) == len(_records(evidence_json))
    for rid, claim, decision, same in rows:
        assert decision == "fails" and same, (rid, claim, decision, same)


def test_a_widened_enclosure_no_longer_decides(evidence_json):
    for r in _records(evidence_json):
        enc = Enclosure.from_dict(r["enclosure"])
        b = Fraction(enc.bound)
        lo, hi = min(Fraction(enc.lo), b - 1), max(Fraction(enc.hi), b + 1)
        wide = Enclosure(str(lo), str(hi), enc.bound, enc.relation, enc.method, enc.replay)
        assert wide.decides() is None, r
        assert rerun(wide) != wide  # and the replay does not reproduce it


# Each replay's point moved so that the replay must notice: either it no longer decides (NotDecided) or it
# recomputes another enclosure than the one recorded.
def _nudge_first_number(point):
    point = copy.deepcopy(point)

    def walk(x):
        if isinstance(x, dict):
            for k, v in x.items():
                if isinstance(v, (int, float)) and not isinstance(v, bool) and k not in ("K", "n", "d", "steps"):
                    x[k] = v * (1 + 1e-6) + 1e-9
                    return True
                if isinstance(v, (dict, list)) and walk(v):
                    return True
        if isinstance(x, list):
            for i, v in enumerate(x):
                if isinstance(v, float):
                    x[i] = v * (1 + 1e-6) + 1e-9
                    return True
                if isinstance(v, (dict, list)) and walk(v):
                    return True
        return False

    assert walk(point)
    return point


def _set(**changes):
    def mutate(point):
        point = copy.deepcopy(point)
        for k, v in changes.items():
            point[k] = v(point[k]) if callable(v) else v
        return point
    return mutate


MUTATIONS = {
    "tables_sup_gain_max": _set(pairs=lambda p: {**p, "CIFAR100/small": ["42.51", "47.77"]}),  # gain 5.26: holds
    "tables_ffn_default": _set(repeated=lambda r: {k: "37.42" for k in r}),
    "tables_batch_time_ffn": _set(hours=lambda h: {**h, "1024": "1.00"}),
    "tables_batch_time_tf": _set(hours=lambda h: {**h, "1024": "1.00"}),
    "tables_head_sizes": _set(sizes=lambda s: {k: v + ["3M"] for k, v in s.items()}),
    "theorem_1_farkas": _set(vectors=lambda vs: [[abs(x) + 1 for x in v] for v in vs]),  # one open orthant: a witness
    "noise_lemma_case_2": _set(u=lambda u: [-x for x in u]),  # x̃ᵀu ≈ +0.99 ≥ Δ
    "theorem_2_uniform_disk": _set(C0=1.0),  # above 4/(9π): the printed bound holds
    "theorem_6_remark_positive_modulation": _set(eps=0.5),
    "theorem_6_remark_top": _set(eps=[0.0, -0.1, -0.2, -0.3]),
    "proposition_3_problems": _set(h=6),
    "theorem_3_invariants": lambda p: _set(h=p["h"] + 1)(p) if p["start"] == "network" else _set(e1_sign=1)(p),
}


def test_a_perturbed_point_is_caught(evidence_json):
    for r in _records(evidence_json):
        enc = Enclosure.from_dict(r["enclosure"])
        name = enc.replay["function"].partition(":")[2]
        mutate = MUTATIONS.get(name, lambda p: _nudge_first_number(p))
        moved = Enclosure(enc.lo, enc.hi, enc.bound, enc.relation, enc.method,
                          {"function": enc.replay["function"], "point": mutate(enc.replay["point"])})
        try:
            again = rerun(moved)
        except NotDecided:
            continue
        assert again != enc, (r["result_id"], r["claim"], "a perturbed point reproduced the recorded enclosure")


def test_no_statistical_counterexample_carries_a_replay():
    import theorems.rigorous  # noqa: F401  (registration)

    assert not {rid for rid, _ in REPLAYS} & STATISTICAL
    for rid, claim in REPLAYS:
        assert rid in theorems.ids() and theorems.get(rid).counterexamples, (rid, claim)


def test_replays_refuse_another_form():
    """A replay asked about an Evidence it cannot certify (another form, a holding claim) returns None."""
    ev = theorems.check("nonlinear_cl.theorem_6_remark", form="corrected", eps_max=1.5, mc=1000)
    fn = REPLAYS[("nonlinear_cl.theorem_6_remark", "positive_modulation")]
    assert fn({"params": ev.params, "details": ev.details}) is None
    printed = theorems.check("nonlinear_cl.theorem_6_remark", form="as_printed", eps_max=0.9, mc=1000)  # holds
    assert printed.claim("positive_modulation").passed
    assert fn({"params": printed.params, "details": printed.details}) is None


def test_rigorous_package_imports_neither_torch_nor_numpy():
    script = ("import sys; sys.modules['torch'] = None; sys.modules['numpy'] = None\n"
              "import theorems.rigorous\nfrom theorems.core.grade import REPLAYS\nprint(len(REPLAYS))")
    proc = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert int(proc.stdout.split()[-1]) >= 20  # every replay registers without torch


def test_tolerances_are_the_claims_own():
    from theorems.neural_collapse import lemma_4_2
    from theorems.rigorous import neural_collapse, ssl_dynamics
    from theorems.ssl_dynamics import proposition_1, remark_2, remark_3, theorem_3

    assert float(neural_collapse.REACH_RTOL) == lemma_4_2.REACH_RTOL
    assert float(neural_collapse.REACH_ATOL) == lemma_4_2.REACH_ATOL
    assert float(ssl_dynamics.RANK_ONE_TOL) == proposition_1.RANK_ONE_TOL == remark_3.RANK_ONE_TOL
    assert float(ssl_dynamics.LIMIT_TOL) == theorem_3.LIMIT_TOL
    assert float(ssl_dynamics.DECOUPLED_TOL) == remark_2.DECOUPLED_TOL


# -- the arithmetic ------------------------------------------------------------------------------------------------
def test_decimal_strings_round_outward():
    for f in (Fraction(1, 3), Fraction(-2, 7), Fraction(10**40 + 1, 10**20), Fraction(1, 10**30 + 7)):
        for digits in (5, 20):
            assert Fraction(decimal(f, up=False, digits=digits)) <= f <= Fraction(decimal(f, up=True, digits=digits))
    from flint import arb, ctx

    old = ctx.prec
    try:
        ctx.prec = 256
        enc = enclosure(arb.pi(), 3, "<=", "π", "m:f", {})
        assert Fraction(enc.lo) < Fraction("3.14159265358979323846264338327950288") < Fraction(enc.hi)
    finally:
        ctx.prec = old


def test_enclosure_requires_its_decision():
    with pytest.raises(NotDecided):
        enclosure(Fraction(1), Fraction(2), "<=", "holds, not fails", "m:f", {})
    with pytest.raises(NotDecided):  # within the claim's tolerance: no rigorous failure
        enclosure(Fraction(101, 100), Fraction(1), "<=", "", "m:f", {}, allowance=Fraction(1, 10))
    assert enclosure(Fraction(1), Fraction(2), "<=", "", "m:f", {}, require="holds").decides() == "holds"


# -- item 3: the dual bound on the UFM's global minimum ------------------------------------------------------------
def test_lemma_4_2_dual_bound_certifies_the_counterexample():
    from theorems.rigorous.neural_collapse import mse_collapsed_value, mse_lower_bound

    ev = theorems.check("neural_collapse.lemma_4_2", form="as_printed", loss="mse", K=4, d=4, lam=0.05)
    lower = Fraction(ev.details["global_lower_bound_exact"])
    assert lower == mse_lower_bound(4, 4, Fraction(0.05))
    assert lower > 5 * mse_collapsed_value(4, 4, Fraction(0.05))  # 5.82×: the global minimum is above L*
    assert ev.claim("no_start_below_global_lower_bound").passed
    assert ev.details["global_lower_bound_certificate"].startswith("dual-bound")
    # the failing claim's grade: rigorous with its Arb enclosure, certified by the dual bound without it, and
    # numerical without either (mutation: drop the dual bound)
    reach = ev.claim("best_run_reaches_closed_form")
    assert reach.certificate == "dual-bound" and ev.grade_of(reach) == "rigorous"
    assert ev.grade_of(dataclasses.replace(reach, enclosure=None)) == "certified"
    assert ev.grade_of(dataclasses.replace(reach, enclosure=None, certificate="")) == "numerical"
    # the bound is tight: the certified optimum reaches it
    assert math.isclose(ev.claim("best_run_reaches_closed_form").observed, float(lower), rel_tol=1e-12)
    # at d ≥ K + 1 it is the collapsed closed form itself (the corrected lemma's L*)
    assert mse_lower_bound(4, 6, Fraction(1, 20)) == mse_collapsed_value(4, 6, Fraction(1, 20))


# -- item 4: second implementations, each with a mutation ----------------------------------------------------------
def test_ufm_closed_form_second_implementation(monkeypatch):
    from theorems.neural_collapse import lemma_4_2, ufm

    ev = theorems.check("neural_collapse.lemma_4_2", loss="ce", K=3, n=2, d=4, restarts=2)
    assert ev.details["closed_form_exact_enclosure"].startswith("[")
    real = ufm.closed_form
    monkeypatch.setattr(lemma_4_2, "closed_form", lambda *a: real(*a).scaled(1 + 1e-9, "mutant"))
    for loss in ("ce", "mse"):
        with pytest.raises(SuiteError, match="closed form"):
            theorems.check("neural_collapse.lemma_4_2", loss=loss, K=3, n=2, d=5, restarts=2)


def test_threshold_second_implementation(monkeypatch):
    from theorems.nonlinear_cl import examples
    from theorems.rigorous.nonlinear_cl import check_lme_threshold, lme_exact

    assert lme_exact(0.38) and not lme_exact(0.3825) and lme_exact(0.381966) and not lme_exact(0.381967)
    check_lme_threshold(0.2, True)
    with pytest.raises(SuiteError):
        check_lme_threshold(0.39, True)
    monkeypatch.setattr(examples, "Q_STAR", 0.40)  # a wrong float threshold: the float decision says LME at 0.39
    with pytest.raises(SuiteError, match="1 − 3q"):
        theorems.check(examples.SUMMATION_ID, q=0.39, threshold=0.40, allow_violation=True)


def test_expected_c_second_implementation():
    from theorems.rigorous.ssl_dynamics import check_expected_c, exact_expected_c

    ev = theorems.check("ssl_dynamics.expected_c", form="corrected", resamples=1000)
    assert ev.details["minus_covariance_vs_exact_rel"] < 1e-12
    X = [[0.5, 1.0], [1.5, -0.25], [2.0, 0.75]]
    exact = exact_expected_c(X)
    assert exact[0][1] == exact[1][0]
    good = [[float(v) for v in row] for row in exact]
    assert check_expected_c(X, good) < 1e-15
    second_moment = [[-sum(Fraction(r[i]) * Fraction(r[j]) for r in X) / 3 for j in range(2)] for i in range(2)]
    with pytest.raises(SuiteError):  # the printed −XᵀX/n in place of −Cov̂(X)
        check_expected_c(X, [[float(v) for v in row] for row in second_moment])
    with pytest.raises(SuiteError):  # one entry off by 1e-9 relative
        check_expected_c(X, [[good[0][0] * (1 + 1e-9), good[0][1]], good[1]])


def test_ufm_sandwich_decides_the_corrected_form_too():
    """At d ≥ K+1 the lower bound is the collapsed L* itself, so the corrected lemma's 'the best start attains L*'
    holds rigorously: the global minimum and the best point lie in [L*, L(best)], inside the claim's tolerance."""
    fn = REPLAYS[("neural_collapse.lemma_4_2", "best_run_reaches_closed_form")]
    ev = theorems.check("neural_collapse.lemma_4_2", form="corrected", loss="mse", K=3, n=2, d=5, restarts=2)
    enc = fn({"params": ev.params, "details": ev.details, "form": ev.form})
    assert ev.claim("best_run_reaches_closed_form").passed and enc.decides() == "holds"
    assert rerun(enc) == enc
    ce = theorems.check("neural_collapse.lemma_4_2", form="corrected", loss="ce", K=3, n=2, d=4, restarts=2)
    enc = fn({"params": ce.params, "details": ce.details, "form": ce.form})  # CE: L* = g(ρ*) in Arb, from below
    assert enc.decides() == "holds" and rerun(enc) == enc
    control = theorems.check("neural_collapse.lemma_4_2", form="corrected", loss="ce", K=3, n=2, d=4, restarts=2,
                             closed_form_scale=2.0, allow_violation=True)
    # a deliberately wrong constant is not replayed
    assert fn({"params": control.params, "details": control.details, "form": control.form}) is None
