"""Marker for negative controls.

Every negative-control test calls ``negative_control(claim_id, check)`` with the
registered check it exercises; ``tests/test_contract.py`` reads these calls and
fails if a registered check has none.
"""


def negative_control(claim_id: str, check: str) -> None:
    """No-op marker naming the check that the surrounding test must see fail."""
    return None
