"""Hypothesis checks of papers 000 and 002 named by a test, at their edges (issue 26, item 9: a hypothesis check
that no test names can be dropped, or its comparison flipped, and nothing fails).

Each row is an instance on one side of a hypothesis: ``name`` is a fragment of the violated hypothesis the
declared checks must report, or None where the instance is inside every hypothesis (the other side of the
same edge, so a comparison flipped or made strict/non-strict moves one of the two rows). The declared
hypotheses are evaluated alone (`Result.hypotheses` on the validated parameters; the cost model, which refuses
the largest enumerations first, is not consulted): these tests compute nothing.
"""


from __future__ import annotations


import pytest
from checks.pinning import assert_hypothesis_edge


CASES = [
    # ssl_dynamics.example_1: the width condition h ≥ d + z − min(z, ℓ) on an explicit C
    ("ssl_dynamics.example_1", None, dict(C="-1,0;0,-0.5", z=2, h=2), None),  # ℓ = 2: h = 2 suffices
    ("ssl_dynamics.example_1", None, dict(C="-1,0;0,0.5", z=2, h=2), "width condition"),  # ℓ = 1: h ≥ 3
    ("ssl_dynamics.example_1", None, dict(C="-1,0;0,0.5", z=2, h=3), None),
    ("ssl_dynamics.example_1", None, dict(C="0.5,0;0,0.2", h=4), "negative eigenvalue"),
    # ssl_dynamics.proposition_1
    ("ssl_dynamics.proposition_1", None, dict(closed_form_factor=2.5), "exact closed form"),
    ("ssl_dynamics.proposition_1", None, dict(C="1,0;0,2", d=2, z=2), "λ_min(C) < 0"),
    ("ssl_dynamics.proposition_1", None, dict(C="-1,0;0,0", d=2, z=2), None),  # λ_min < 0, λ_max = 0: any η
    ("ssl_dynamics.proposition_1", None, dict(C="-1,0;0,25", d=2, z=2, eta=0.02), "η < 1/(2λ_max)"),  # 1 − 2ηλ = 0
    ("ssl_dynamics.proposition_1", None, dict(C="-1,0;0,25", d=2, z=2, eta=0.019), None),
    ("ssl_dynamics.proposition_1", None, dict(C="-1,0,0;0,-1,0;0,0,0.5", d=3, z=2), "simple"),
    ("ssl_dynamics.proposition_1", "as_printed", dict(C="-1,0,0;0,-1,0;0,0,0.5", d=3, z=2), None),
    # ssl_dynamics.proposition_2
    ("ssl_dynamics.proposition_2", None, dict(C="-0.1,0,0;0,0.5,0;0,0,1", d=3, z=2), None),  # λ₂ > 0: one negative
    ("ssl_dynamics.proposition_2", None, dict(C="0,0,0;0,0.5,0;0,0,1", d=3, z=2), "λ_min(C) < 0"),  # λ_min = 0
    ("ssl_dynamics.proposition_2", None, dict(C="-1,0,0;0,-1,0;0,0,1", d=3, z=2), "λ_min(C) simple"),
    ("ssl_dynamics.proposition_2", None, dict(constraint="spectral"), "Frobenius-norm constraints"),
    ("ssl_dynamics.proposition_2", None, dict(bound_scale=1.5), "exact closed form"),
    # ssl_dynamics.proposition_3
    ("ssl_dynamics.proposition_3", None, dict(spectrum=(1.0, 2.0)), "negative eigenvalue"),
    ("ssl_dynamics.proposition_3", None, dict(spectrum=(-2.0, -1.0, 0.5, 1.0, 2.0), z=3, h=6), None),  # h = d + z − ℓ
    ("ssl_dynamics.proposition_3", None, dict(spectrum=(-2.0, -1.0, 0.5, 1.0, 2.0), z=3, h=5), "width condition"),
    ("ssl_dynamics.proposition_3", None, dict(norm="frobenius"), "operator norms"),
    ("ssl_dynamics.proposition_3", None, dict(bound_scale=1.5), "exact optimum"),
    # ssl_dynamics.remark_3
    ("ssl_dynamics.remark_3", None, dict(r=10, z=10), None),
    ("ssl_dynamics.remark_3", None, dict(r=11, z=10), "r ≤ z"),
    ("ssl_dynamics.remark_3", None, dict(r=2), None),
    ("ssl_dynamics.remark_3", None, dict(r=1), "r ≥ 2"),
    ("ssl_dynamics.remark_3", None, dict(C="1,0;0,2", d=2, r=2, z=2), "λ_min(C) < 0"),
    # ssl_dynamics.theorem_1 (h ≥ H_MIN = 3: log h ≥ 1)
    ("ssl_dynamics.theorem_1", None, dict(h=3), None),
    ("ssl_dynamics.theorem_1", None, dict(h=2, d=2, z=2), "h ≥ 3"),
    ("ssl_dynamics.theorem_1", None, dict(K=2.0), "the witness K = 1"),
    ("ssl_dynamics.theorem_1", None, dict(w1="aligned"), "Haar"),
    # ssl_dynamics.new_data_point (d = 2)
    ("ssl_dynamics.new_data_point", None, dict(h=3, z=1), None),  # h = d + z
    ("ssl_dynamics.new_data_point", None, dict(h=2, z=1), "h ≥ d + z"),
    ("ssl_dynamics.new_data_point", None, dict(time_scale=1.5), "q_t solves (9)"),
    ("ssl_dynamics.new_data_point", None, dict(flow="stiefel"), "the flow of Theorem 2's proof"),
    # ssl_dynamics.figure_3 (half moons: d = 2, z = 1)
    ("ssl_dynamics.figure_3", None, dict(widths=(2, 10, 100)), None),
    ("ssl_dynamics.figure_3", None, dict(widths=(1, 10, 100)), "h ≥ max(d, z)"),
    ("ssl_dynamics.figure_3", None, dict(step_sign=1.0), "a descent step"),
    ("ssl_dynamics.figure_3", None, dict(projection="qr"), "projection onto WᵀW = I"),
    ("ssl_dynamics.figure_3", None, dict(ode_start_perturb=0.1), "(12) started at the network's q₀"),
    # ssl_dynamics.lemma_1, remark_1, theorem_2: the model, the loss, the flow and the start the statements assume
    ("ssl_dynamics.lemma_1", None, dict(model="two_layer"), "linear or kernel model"),
    ("ssl_dynamics.lemma_1", None, dict(kernel_scale=1.5), "the closed form"),
    ("ssl_dynamics.remark_1", None, dict(model="two_layer"), "linear or kernel model"),
    ("ssl_dynamics.remark_1", None, dict(coupling=0.1), "the squared loss of eq. (3)"),
    ("ssl_dynamics.theorem_2", None, dict(h=4), None),  # h = d = 4
    ("ssl_dynamics.theorem_2", None, dict(h=3), "h ≥ d"),
    ("ssl_dynamics.theorem_2", None, dict(init_perturb=0.1), "orthonormal initialisation"),
    ("ssl_dynamics.theorem_2", None, dict(flow="stiefel"), "the flow Ẇᵢ"),
    # ssl_dynamics.theorem_3
    ("ssl_dynamics.theorem_3", None, dict(start="network", h=4), None),  # h = d
    ("ssl_dynamics.theorem_3", None, dict(start="network", h=3), "h ≥ d"),
    ("ssl_dynamics.theorem_3", None, dict(q0_norm=1.0, lams=(-1.0, 2.0)), None),
    ("ssl_dynamics.theorem_3", None, dict(q0_norm=1.5), "‖q₀‖ ≤ 1"),
    ("ssl_dynamics.theorem_3", None, dict(lams=(-1.0, 0.0, 2.0)), "no zero eigenvalue"),
    ("ssl_dynamics.theorem_3", None, dict(e1_sign=0), "e₁ᵀq₀ ≠ 0"),
    ("ssl_dynamics.theorem_3", None, dict(lams=(-1.0, -1.0, 2.0)), "λ₁ simple"),
    ("ssl_dynamics.theorem_3", None, dict(lams=(0.5, 2.0), q0_norm=1.0), "‖q₀‖ < 1"),
    ("ssl_dynamics.theorem_3", None, dict(lams=(0.5, 2.0), q0_norm=0.99), None),
]


@pytest.mark.parametrize("rid, form, params, name", CASES,
                         ids=[f"{r}-{i}" for i, (r, _, _, _) in enumerate(CASES)])
def test_hypothesis_edge_is_named(rid, form, params, name):
    assert_hypothesis_edge(rid, form, params, name)
