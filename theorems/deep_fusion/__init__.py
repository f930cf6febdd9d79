"""Paper 000: "Deep Fusion" -- block-diagonal attention, the noise lemma, cluster integrity and sharpness growth in
transformer projection heads. One module per result; importing this package registers them."""

from . import theorem_1  # noqa: F401
from . import definition_1  # noqa: F401
from . import noise_lemma  # noqa: F401
from . import theorem_2  # noqa: F401
from . import algorithm_1  # noqa: F401
from . import theorem_2_depth  # noqa: F401
from . import tables  # noqa: F401
from . import trained_attention  # noqa: F401
from . import fusion_trend  # noqa: F401
from . import definition_2  # noqa: F401
