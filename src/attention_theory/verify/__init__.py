"""The verification contract: checks, records, errata and the claim registry.

A *check* evaluates one statement of a paper on concrete instances and either
passes (returning a :class:`CheckRecord`) or raises :class:`ClaimViolation`, so a
chapter whose statement stops holding fails under nbval.  Every record is also
written to the *registry*, a folder of JSON files that the book build gathers
into the "Verified claims" page and ``claims.json``.

Three kinds of outcome are compared against what a statement says:

* :func:`bound_outcome`    ``lhs <= rhs`` on every instance; the tightness is the
  worst ratio ``lhs / rhs`` (1.0 means the bound is attained);
* :func:`identity_outcome` ``|computed - reference| <= atol + rtol |reference|``;
  the tightness is the worst error divided by its tolerance;
* :func:`interval_outcome` ``low <= value <= high`` (scaling exponents,
  statistical agreement).

A NaN or an infinity among the compared numbers never passes, and a tolerance above
:data:`MAX_RTOL` / :data:`MAX_ATOL` needs a ``tolerance_reason`` that the record keeps.

Checks themselves are package functions decorated with :func:`claim_check`; a
chapter calls them with the paper's constants and ``tests/`` calls them with a
deliberately wrong constant or formula, which must raise (the negative control).
"""

from attention_theory.verify.contract import (
    CLAIM_ID_PATTERN,
    ContractError,
    check_bound,
    check_identity,
    check_interval,
    check_owner,
    claim_check,
    confirm_erratum,
    evaluate,
    limit_sequence,
    negative_control,
    not_checkable,
    registered_checks,
)
from attention_theory.verify.outcomes import (
    MAX_ATOL,
    MAX_RTOL,
    ClaimViolation,
    Outcome,
    bound_outcome,
    check_tolerances,
    current_check,
    identity_outcome,
    instances_fingerprint,
    interval_outcome,
)
from attention_theory.verify.registry import (
    CLAIM_STATUSES,
    ERRATUM_KINDS,
    ERRATUM_PLACES,
    ERRATUM_VERSIONS,
    STATUSES,
    CheckRecord,
    claim_status,
    current_source,
    evaluate_only,
    load_registry,
    on_results,
    recording_to,
    registry_dir,
    summarize_registry,
    weighs_on_statement,
)

__all__ = [
    "ClaimViolation",
    "Outcome",
    "CheckRecord",
    "bound_outcome",
    "identity_outcome",
    "interval_outcome",
    "check_bound",
    "check_identity",
    "check_interval",
    "confirm_erratum",
    "not_checkable",
    "evaluate",
    "limit_sequence",
    "evaluate_only",
    "claim_check",
    "registered_checks",
    "registry_dir",
    "load_registry",
    "summarize_registry",
    "CLAIM_ID_PATTERN",
    "STATUSES",
    "MAX_RTOL",
    "MAX_ATOL",
    "check_tolerances",
    "ContractError",
    "check_owner",
    "negative_control",
    "current_check",
    "instances_fingerprint",
    "CLAIM_STATUSES",
    "ERRATUM_KINDS",
    "claim_status",
    "weighs_on_statement",
    "ERRATUM_PLACES",
    "ERRATUM_VERSIONS",
    "current_source",
    "on_results",
    "recording_to",
]
