"""Paper 002: Esser et al., SSL learning dynamics -- dimension collapse, constraints, linear/nonlinear closeness and
the Grassmannian dynamics. One module per result; importing this package registers them."""

from . import remark_1  # noqa: F401
from . import example_1  # noqa: F401
from . import figure_4  # noqa: F401
from . import conjecture_1, expected_c, figure_2, figure_3, lemma_1, lemma_2, new_data_point, proposition_1, proposition_2, proposition_3, remark_2, remark_3, theorem_1, theorem_2, theorem_3  # noqa: F401
