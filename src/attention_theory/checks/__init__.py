"""Registered checks, one module per part of the book.

Importing this package registers every check (see :func:`attention_theory.verify.registered_checks`).
"""

from . import foundations  # noqa: F401
from . import deora_calculus  # noqa: F401
from . import trauger_linear  # noqa: F401
from . import julistiono_bregman  # noqa: F401
from . import julistiono_attention  # noqa: F401
