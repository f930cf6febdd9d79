"""Paper 004: Súkeník, Lampert, Mondelli, "Neural Collapse is Globally Optimal in Deep Regularized ResNets and
Transformers". One module per result; importing this package registers them."""

from . import lemma_4_2  # noqa: F401  (registers neural_collapse.lemma_4_2)
from . import lemma_4_1  # noqa: F401  (registers neural_collapse.lemma_4_1)
from . import theorem_4_3  # noqa: F401  (registers neural_collapse.theorem_4_3)
from . import depth_trend  # noqa: F401  (registers neural_collapse.theorem_4_3_depth, neural_collapse.theorem_4_6)
from . import transformer_depth  # noqa: F401  (registers neural_collapse.theorem_4_3_transformer, ..._4_6_transformer)
from . import dimension_conditions  # noqa: F401  (registers neural_collapse.dimension_conditions)
from . import errata  # noqa: F401  (registers neural_collapse.errata_a9, neural_collapse.errata_a12)
from . import toy_1d  # noqa: F401  (registers neural_collapse.toy_1d)
from . import deep_ufm_remark  # noqa: F401  (registers neural_collapse.deep_ufm_remark)
from . import theorem_4_3_pre_ln  # noqa: F401  (registers neural_collapse.theorem_4_3_pre_ln)
from . import figure_1  # noqa: F401  (registers neural_collapse.figure_1)
from . import figure_2  # noqa: F401  (registers neural_collapse.figure_2)
from . import appendix_c  # noqa: F401  (registers neural_collapse.appendix_c)
