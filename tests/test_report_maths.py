"""The formulas of the page's prose are MathML made at build time (reports/maths.py): no script, offline."""

from __future__ import annotations

import re

import pytest

from reports.maths import with_maths


@pytest.mark.parametrize("text, formulas", [
    ("for x_i ∈ 𝒰_k and u ⊥ 𝒰_k", ["x_i", "𝒰_k", "𝒰_k"]),
    ("e^{−aρ*} ≤ L*_GUFM", ["e^{−aρ*}", "L*_GUFM"]),
    ("x̃_iᵀu ≥ Δ and μ_kᵀμ_ℓ", ["x̃_i", "μ_k", "μ_ℓ"]),
    ("u_k^⊥ of Definition 1", ["u_k^⊥"]),
    ("1 − d_t ≤ μ_t(1 − c_t)", ["d_t", "μ_t", "c_t"]),  # a formula followed by its argument
])
def test_each_formula_token_becomes_inline_mathml_that_keeps_its_text(text, formulas):
    out = str(with_maths(text))
    assert out.count("<math>") == out.count("</math>") == len(formulas)
    # the text between the formulas is unchanged, and each formula's letters are all there
    pieces = re.split(r"<math>.*?</math>", out)
    assert "".join(pieces) == re.sub("|".join(re.escape(f) for f in formulas), "", text)
    for f, m in zip(formulas, re.findall(r"<math>(.*?)</math>", out), strict=True):
        letters = re.sub(r"<[^>]+>", "", m).replace("&#x0002A;", "*")
        assert letters == re.sub(r"[_^{}]", "", f)


@pytest.mark.parametrize("text", ["deep_fusion.noise_lemma", "max_iter=10 and pi_iters", "sizes=5,5", "a_b_c",
                                  "<script>x_i</script>"])
def test_identifiers_are_left_alone_and_markup_is_escaped(text):
    out = str(with_maths(text))
    assert "<script>" not in out
    if "<" not in text:
        assert out == text.replace("&", "&amp;")


def test_subscript_and_superscript_land_in_their_places():
    out = str(with_maths("x_i^T"))
    assert "<msubsup><mi>x</mi><mi>i</mi><mi>T</mi></msubsup>" in out
    assert "<msub><mi>w</mi><mn>2</mn></msub>" in str(with_maths("w_2"))
