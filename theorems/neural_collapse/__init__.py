"""Paper 004: Súkeník, Lampert, Mondelli, "Neural Collapse is Globally Optimal in Deep Regularized
ResNets and Transformers". One module per result; importing this package registers them."""

from . import lemma_4_2  # noqa: F401  (registers neural_collapse.lemma_4_2)
