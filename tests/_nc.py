"""Negative controls: ``with negative_control(claim_id, check): <run the check on a wrong variant>``.

The block must raise :class:`~attention_theory.verify.ClaimViolation` from the registered check
it names (not from a companion that failed first); see
:func:`attention_theory.verify.negative_control`.  ``tests/core/test_contract.py`` reads these
calls and fails if a registered check (or a declared part of one) has none.
"""

from attention_theory.verify import negative_control

__all__ = ["negative_control"]
