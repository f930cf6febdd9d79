"""Evidence, Claim, Context and device resolution (theorems.core)."""

from __future__ import annotations

import json
import math
import shlex

import numpy as np
import pytest
import torch

import theorems
from theorems.core.context import Context, resolve_device
from theorems.core.errors import DeviceUnavailable
from theorems.core.evidence import Claim, Evidence, summarize, to_jsonable
from theorems.core.result import Status

INF, NAN = float("inf"), float("nan")
CPU = "cpu"  # unit tests of the machinery compare with CPU references, whatever --device says


def make_evidence(**overrides) -> Evidence:
    fields = dict(
        result_id="neural_collapse.lemma_4_2",
        form="corrected",
        params={"K": 4, "n": 3, "d": 6, "lam": 0.05, "loss": "mse", "seed": 0},
        holds=False,
        observed=0.0161290323,
        bound=INF,
        tightness=None,
        converged=True,
        claims=[
            Claim.at_least("lower bound", 0.0161290323, 0.0161290322, "no run beats L*"),
            Claim.at_most("attainment ratio", 1.5, 1 + 1e-7),
            Claim.at_most("nc1", 3.2e-12, 1e-6),
            Claim.at_least("infinite bound", INF, -INF),
        ],
        details={
            "L_star": 1 / 62,
            "gap": INF,
            "neg_gap": -INF,
            "undefined_nc1": NAN,
            "iterations": 57,
            "converged_all": True,
            "formula": "L* = Kλ/(2(d+Kλ))",
            "np_scalar": np.float64(0.25),
            "np_int": np.int64(3),
            "np_bool": np.bool_(False),
            "tensor": torch.tensor([1.0, INF, NAN], dtype=torch.float64),
            "tensor_scalar": torch.tensor(2.5, dtype=torch.float64),
            "array": np.array([[1.0, -INF], [NAN, 0.5]]),
            "nested": {"a": [1.0, NAN, {"b": INF}], 3: (1, 2)},
            "none": None,
        },
        violations=[],
        status=Status.VERIFIED_CORRECTED,
        device="cpu",
        elapsed_s=0.123,
    )
    fields.update(overrides)
    return Evidence(**fields)


def same_float(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


# ----------------------------------------------------------------------------------------------------
# Serialisation
# ----------------------------------------------------------------------------------------------------
def test_to_dict_is_strict_json_even_with_inf_and_nan():
    ev = make_evidence(observed=NAN, tightness=NAN)
    d = ev.to_dict()
    text = json.dumps(d, allow_nan=False)  # raises on any bare inf/nan
    back = json.loads(text)
    assert back == json.loads(json.dumps(d, allow_nan=False))
    assert back["details"]["gap"] == "inf" and back["details"]["neg_gap"] == "-inf"
    assert back["details"]["undefined_nc1"] == "nan"
    assert back["details"]["tensor"] == [1.0, "inf", "nan"]
    assert back["details"]["tensor_scalar"] == 2.5
    assert back["details"]["array"] == [[1.0, "-inf"], ["nan", 0.5]]
    assert back["details"]["nested"] == {"a": [1.0, "nan", {"b": "inf"}], "3": [1, 2]}
    assert back["details"]["np_int"] == 3 and back["details"]["np_bool"] is False
    assert back["status"] == "verified-corrected"
    assert back["reproduce"] == ev.reproduce()
    assert json.loads(ev.to_json(allow_nan=False)) == back


def test_from_dict_round_trips():
    for ev in (make_evidence(), make_evidence(observed=NAN, bound=-INF, tightness=0.75, converged=None, holds=True,
                                              violations=["d ≥ K+1: d = 4 = K"], device="cuda:0")):
        d = ev.to_dict()
        back = Evidence.from_dict(json.loads(json.dumps(d, allow_nan=False)))
        # the scalar fields come back as they were (inf/nan included)
        for name in ("result_id", "form", "params", "holds", "converged", "violations", "device", "elapsed_s"):
            assert getattr(back, name) == getattr(ev, name), name
        assert back.status == str(ev.status)
        assert same_float(back.observed, ev.observed) and same_float(back.bound, ev.bound)
        assert (back.tightness is None) == (ev.tightness is None)
        if ev.tightness is not None:
            assert same_float(back.tightness, ev.tightness)
        assert len(back.claims) == len(ev.claims)
        for c0, c1 in zip(ev.claims, back.claims, strict=True):
            assert (c1.name, c1.passed, c1.relation, c1.message) == (c0.name, c0.passed, c0.relation, c0.message)
            assert same_float(c1.observed, c0.observed) and same_float(c1.bound, c0.bound)
        assert back.reproduce() == ev.reproduce()
        # and serialising again gives the same dict: to_dict ∘ from_dict is the identity on to_dict's image
        assert back.to_dict() == d


def test_to_jsonable_plain_values():
    assert to_jsonable(Status.REFUTED) == "refuted"
    assert to_jsonable(np.float32(0.5)) == 0.5
    assert to_jsonable(np.array(INF)) == "inf"
    assert to_jsonable(Claim.at_most("c", 1.0, 2.0)) == {
        "name": "c", "passed": True, "observed": 1.0, "bound": 2.0, "relation": "<=", "message": "", "kind": "bound",
        "rtol": 0.0, "atol": 0.0, "enclosure": None, "certificate": "", "n_draws": 0, "stderr": None}


# ----------------------------------------------------------------------------------------------------
# Human-readable forms
# ----------------------------------------------------------------------------------------------------
def test_repr_is_a_readable_summary():
    ev = make_evidence()
    text = repr(ev)
    lines = text.splitlines()
    assert lines[0].startswith("Evidence neural_collapse.lemma_4_2 [corrected]")
    assert "DOES NOT HOLD" in lines[0]
    for c in ev.claims:
        assert c.name in text and str(c) in text
    assert "FAIL attainment ratio" in text and "ok   lower bound" in text
    assert ev.reproduce() in text
    assert "python -m theorems check neural_collapse.lemma_4_2" in text
    assert "K=4" in text and "lam=0.05" in text
    assert len(lines) <= 30 and max(map(len, lines)) <= 200  # one screen
    assert "HOLDS" in repr(make_evidence(holds=True)).splitlines()[0]
    assert "DOES NOT HOLD" not in repr(make_evidence(holds=True))
    assert "converged : NO" in repr(make_evidence(converged=False))
    assert "n/a (no optimiser)" in repr(make_evidence(converged=None))


def test_reproduce_command_parses_back():
    ev = make_evidence(params={"K": 4, "loss": "mse", "note": "two words", "lam": 0.05},
                       violations=["d ≥ K+1"], device="cuda")
    argv = shlex.split(ev.reproduce())
    assert argv[:5] == ["python", "-m", "theorems", "check", "neural_collapse.lemma_4_2"]
    assert "note=two words" in argv and "K=4" in argv and "lam=0.05" in argv
    assert "form=corrected" in argv and "allow_violation=true" in argv
    assert argv[-2:] == ["--device", "cuda"]
    plain = shlex.split(make_evidence().reproduce())
    assert "allow_violation=true" not in plain and "--device" not in plain


def test_explain_and_claim_lookup():
    ev = make_evidence(converged=False)
    assert "NOT CONVERGED" in ev.explain()
    assert [c.name for c in ev.failed_claims] == ["attainment ratio"]
    assert ev.claim("nc1").passed
    with pytest.raises(KeyError, match="no claim 'nope'"):
        ev.claim("nope")
    s = summarize([make_evidence(holds=True), make_evidence(), make_evidence(converged=False)])
    assert s == {"instances": 3, "holds": 1, "fails": 2, "not_converged": 1, "measured": 0}


def test_an_evidence_with_no_bound_claim_asserts_nothing():
    """Defined once in core: no bound claim → outcome 'measured' (neither a pass nor a failure), holds False
    because nothing was confirmed; an identity that passes does not make it hold (algorithm_1's case)."""
    from theorems.core.evidence import FAILS, HOLDS, MEASURED, NOT_CONVERGED, outcome_of

    only = [Claim.at_most("by construction", 0.0, 1.0, kind="identity"), Claim.measurement("gap", 0.5)]
    ev = make_evidence(claims=only, holds=False, converged=None)
    assert ev.outcome == MEASURED and "NOTHING ASSERTED" in repr(ev)
    assert summarize([ev])["measured"] == 1
    assert outcome_of(only, False) == NOT_CONVERGED
    assert outcome_of([Claim.at_most("b", 1.0, 2.0)], None) == HOLDS
    assert outcome_of([Claim.at_most("b", 3.0, 2.0)], None) == FAILS
    assert outcome_of([Claim.at_most("b", 1.0, 2.0)], False) == NOT_CONVERGED


# ----------------------------------------------------------------------------------------------------
# Claim
# ----------------------------------------------------------------------------------------------------
def test_claim_at_most_and_at_least_at_the_boundary():
    assert Claim.at_most("eq", 1.0, 1.0).passed
    assert Claim.at_least("eq", 1.0, 1.0).passed
    assert Claim.at_most("below", 1.0, 1.0 + 1e-15).passed
    assert not Claim.at_most("above", 1.0 + 2.3e-16, 1.0).passed  # one ulp beyond fails
    assert not Claim.at_least("below", 1.0 - 1.2e-16, 1.0).passed
    assert Claim.at_least("above", 2.0, 1.0).passed
    assert Claim.at_most("-inf", -INF, 0.0).passed and Claim.at_least("inf", INF, 1e308).passed
    assert Claim.at_most("inf bound", 1e308, INF).passed


def test_claim_nan_never_passes():
    for c in (Claim.at_most("n", NAN, 1.0), Claim.at_least("n", NAN, 1.0),
              Claim.at_most("n", 1.0, NAN), Claim.at_least("n", 1.0, NAN)):
        assert not c.passed


def test_claim_accepts_numpy_and_torch_scalars():
    c = Claim.at_most("t", torch.tensor(0.5, dtype=torch.float64), np.float64(0.5))
    assert c.passed is True and type(c.observed) is float and type(c.bound) is float
    c = Claim.at_least("n", np.float32(0.25), torch.tensor(0.5))
    assert c.passed is False and c.relation == ">="
    assert str(c).startswith("FAIL n: 0.25 ≥ 0.5")


# ----------------------------------------------------------------------------------------------------
# Context and devices
# ----------------------------------------------------------------------------------------------------
def test_context_same_seed_same_draws():
    a, b, c = Context.make(CPU, seed=11), Context.make(CPU, seed=11), Context.make(CPU, seed=12)
    da = [a.randn(3, 4), a.rand(5), a.randn(2)]
    db = [b.randn(3, 4), b.rand(5), b.randn(2)]
    dc = [c.randn(3, 4), c.rand(5), c.randn(2)]
    assert all(torch.equal(x, y) for x, y in zip(da, db, strict=True))
    assert not any(torch.equal(x, y) for x, y in zip(da, dc, strict=True))
    assert all(x.dtype == torch.float64 and x.device.type == "cpu" for x in da)
    assert not torch.equal(da[0][:2, :2].flatten(), da[2])  # successive draws differ
    # independent of torch's global RNG
    torch.manual_seed(0)
    x = Context.make(CPU, seed=11).randn(3, 4)
    torch.manual_seed(1)
    assert torch.equal(x, Context.make(CPU, seed=11).randn(3, 4))
    assert a.tensor([1, 2]).dtype == torch.float64


def test_resolve_device_cpu_and_env(monkeypatch):
    monkeypatch.delenv("THEOREMS_DEVICE", raising=False)
    assert resolve_device() == torch.device("cpu")
    assert resolve_device("cpu") == torch.device("cpu")
    monkeypatch.setenv("THEOREMS_DEVICE", "cpu")
    assert resolve_device(None).type == "cpu"
    for bad in ("bogus", "meta"):
        with pytest.raises(DeviceUnavailable):
            resolve_device(bad)


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")
def test_cuda_unavailable_raises(monkeypatch):
    with pytest.raises(DeviceUnavailable, match="cuda"):
        resolve_device("cuda")
    with pytest.raises(DeviceUnavailable):
        resolve_device("cuda:0")
    with pytest.raises(DeviceUnavailable):
        Context.make("cuda", seed=0)
    monkeypatch.setenv("THEOREMS_DEVICE", "cuda")
    with pytest.raises(DeviceUnavailable):
        resolve_device()
    assert issubclass(DeviceUnavailable, RuntimeError)


def test_a_hypothesis_only_the_evaluation_decides_is_still_a_hypothesis_violation(fake_results):
    from fakes import FAKE_ID

    with pytest.raises(theorems.HypothesisViolation, match="x checked late"):
        theorems.check(FAKE_ID, late=True)
    ev = theorems.check(FAKE_ID, late=True, allow_violation=True)
    assert ev.violations == ["x checked late: only the evaluation can tell"]
    assert not theorems.check(FAKE_ID).violations


def test_violations_found_before_and_by_the_evaluation_are_both_listed(fake_results):
    from fakes import FAKE_ID

    ev = theorems.check(FAKE_ID, x=2.0, late=True, allow_violation=True)
    assert ev.violations == ["0 ≤ x ≤ 1: the line lies above the parabola only on [0, 1]",
                             "x checked late: only the evaluation can tell"]


# ----------------------------------------------------------------------------------------------------
# Tolerances as their own fields, one meaning of slack and tightness, the headline claim
# ----------------------------------------------------------------------------------------------------
def test_the_tolerance_is_a_field_never_folded_into_the_bound():
    c = Claim.at_least("reaches", 0.999999999, 1.0, rtol=1e-8)
    assert c.passed and c.bound == 1.0 and c.allowance == pytest.approx(1e-8)
    assert not Claim.at_least("reaches", 0.99999998, 1.0, rtol=1e-8).passed  # a control just outside it
    assert Claim.at_most("below", 1.0 + 5e-13, 1.0, atol=1e-12).passed
    assert not Claim.at_most("below", 1.0 + 5e-12, 1.0, atol=1e-12).passed
    assert "(rtol 1e-08)" in str(c) and "0.999999999 ≥ 1" in str(c)
    with pytest.raises(ValueError):
        Claim.at_most("x", 1.0, 2.0, rtol=-1e-3)


def test_close_is_an_equality_up_to_its_tolerance():
    assert Claim.close("closed_form", 0.5 + 1e-12, 0.5, rtol=1e-10).passed
    assert not Claim.close("closed_form", 0.5 + 1e-9, 0.5, rtol=1e-10).passed
    assert not Claim.close("closed_form", 0.5 - 1e-9, 0.5, rtol=1e-10).passed
    assert Claim.close("exact", 2.0, 2.0).slack == 0.0


@pytest.mark.parametrize("claim, slack", [
    (Claim.at_most("a", 1.0, 4.0), 0.75),                 # (4 − 1)/4
    (Claim.at_least("a", 4.0, 1.0), 0.75),
    (Claim.at_most("a", 4.0, 2.0), -0.5),                 # (2 − 4)/4: fails
    (Claim.at_most("a", 1.0, 1.0, rtol=1e-3), 1e-3 / 1.0),  # the tolerance is the room at the edge
    (Claim.close("a", 1.0, 1.0, atol=0.5), 0.5),
    (Claim.close("a", 1.4, 1.0, atol=0.5), (0.5 - 0.4) / 1.4),
    (Claim.at_most("a", 0.0, 0.0), 0.0),
    (Claim.at_most("a", 1.0, INF), 1.0),
    (Claim.at_least("a", 1.0, INF), -1.0),
])
def test_slack_has_one_meaning(claim, slack):
    assert claim.slack == pytest.approx(slack)
    assert claim.tightness == pytest.approx(1 - slack)
    assert (claim.slack >= 0) == claim.passed


def test_tightness_is_the_ratio_for_positive_numbers():
    assert Claim.at_most("a", 1.0, 4.0).tightness == pytest.approx(1.0 / 4.0)
    assert Claim.at_least("a", 4.0, 1.0).tightness == pytest.approx(1.0 / 4.0)
    assert Claim.at_most("a", 5.8, 1.0).ratio == pytest.approx(5.8)


def test_the_headline_is_the_tightest_bound_unless_named():
    from theorems.core.evidence import headline_claim

    claims = [Claim.at_most("loose", 1.0, 10.0), Claim.at_most("tight", 0.9, 1.0), Claim.measurement("m", 3.0),
              Claim.at_most("identity", 5.0, 1.0, kind="identity")]
    assert headline_claim(claims).name == "tight"
    assert headline_claim(claims, "loose").name == "loose"
    assert headline_claim([Claim.measurement("m", 3.0)]).name == "m"
    with pytest.raises(KeyError):
        headline_claim(claims, "missing")


def test_a_measurement_passes_and_never_decides():
    from theorems.core.evidence import decides_holds

    m = Claim.measurement("rate", -0.5, reference=-1.0)
    assert m.passed and m.relation == "=" and math.isnan(m.slack)
    assert decides_holds([m, Claim.at_most("b", 1.0, 2.0)], None) and not decides_holds([m], None)


def test_reproduce_names_allow_violation_only_for_a_control():
    from theorems.core.evidence import reproduce_command

    assert "allow_violation" not in reproduce_command("a.b", {"x": 1})
    assert reproduce_command("a.b", {"x": 1}, allow_violation=True).endswith("allow_violation=true")


def test_repr_shows_the_headline_relation_and_how_many_details_it_left_out():
    ev = make_evidence(relation="<=", headline="attainment ratio", observed=1.5, bound=1.0,
                       details={f"k{i}": i for i in range(15)})
    text = repr(ev)
    assert "headline  : attainment ratio: 1.5 ≤ 1" in text and "(+3 more in .details)" in text
    assert "1.5 ≥ 1" in repr(make_evidence(relation=">=", headline="h", observed=1.5, bound=1.0))


def test_notebook_display_without_a_renderer_is_the_text_summary(monkeypatch):
    from theorems.core import display

    monkeypatch.setattr(display, "renderer", lambda kind: None)
    ev = make_evidence()
    page = ev._repr_html_()
    assert page.startswith("<pre>") and page.endswith("</pre>") and "&lt;" not in page[:5]
    with pytest.raises(RuntimeError, match="no figure renderer"):
        ev.plot()


def test_non_finite_details_read_back_as_floats():
    """A run file writes NaN and ±inf in details as text; reading it back gives the floats (a report built from a
    run file formats a fit's NaN standard error as a number)."""
    import math

    from theorems.core.evidence import Evidence

    ev = Evidence(result_id="x.y", form="as_printed", params={}, holds=True, observed=1.0, bound=2.0,
                  tightness=0.5, converged=True, claims=[],
                  details={"fit": {"stderr": math.nan, "rates": [math.inf, -math.inf, 1.0]}, "note": "text"})
    back = Evidence.from_dict(ev.to_dict())
    assert math.isnan(back.details["fit"]["stderr"])
    assert back.details["fit"]["rates"] == [math.inf, -math.inf, 1.0] and back.details["note"] == "text"
