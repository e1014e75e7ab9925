"""Negative controls for the checks of Trauger & Tewari Sec. 2.6 (the model definitions).

Each ``test_nc_*`` runs a registered check with a deliberately wrong definition (a
transposed factor, a causal mask, reordered output blocks, an l-inf projection...) and
requires :class:`ClaimViolation`.
"""

import pytest
import torch

from _nc import negative_control
from attention_theory.trauger.checks import model as cm
from attention_theory.verify import ClaimViolation


def test_nc_factored_form_transposed():
    negative_control("trauger-def-2-6-1", "factored-form")
    with pytest.raises(ClaimViolation):
        cm.check_head_factored_form(qk=lambda Q, K: K @ Q.T)


def test_nc_softmax_over_columns():
    negative_control("trauger-def-2-6-1", "softmax-rows")
    with pytest.raises(ClaimViolation):
        cm.check_head_softmax_rows(softmax_dim=0)


def test_nc_causal_head_not_equivariant():
    negative_control("trauger-def-2-6-1", "permutation-equivariance")
    with pytest.raises(ClaimViolation):
        cm.check_head_equivariance(head=cm._causal_head)


def test_nc_printed_qk_shape_not_an_erratum_if_fixed():
    negative_control("trauger-def-2-6-1", "printed-qk-shape")
    with pytest.raises(ClaimViolation, match="NOT confirmed"):
        cm.check_head_parameter_count(printed_qk_shape=False)


def test_nc_concat_reversed_blocks():
    negative_control("trauger-def-2-6-2", "sum-equals-concat")
    with pytest.raises(ClaimViolation):
        cm.check_multihead_concat(reverse_blocks=True)


def test_nc_proj_identity_not_unit():
    negative_control("trauger-def-2-6-3", "proj-idempotent")
    with pytest.raises(ClaimViolation):
        cm.check_proj_norm_idempotent(proj=lambda Z: 2.0 * Z / torch.clamp(
            torch.linalg.vector_norm(Z, dim=-1, keepdim=True), min=1.0))


def test_nc_proj_lipschitz_half():
    negative_control("trauger-def-2-6-3", "proj-lipschitz")
    with pytest.raises(ClaimViolation):
        cm.check_proj_norm_lipschitz(constant=0.5)


def test_nc_block_linf_projection():
    negative_control("trauger-def-2-6-3", "block-row-norms")
    with pytest.raises(ClaimViolation):
        cm.check_block_row_norms(proj=cm._wrong_proj)


def test_nc_block_parameter_count_printed_shape(monkeypatch):
    negative_control("trauger-def-2-6-3", "parameter-count")
    from attention_theory.trauger import model as tm

    real = tm.parameter_count
    monkeypatch.setattr(tm, "parameter_count", lambda d, k, **kw: real(d, k, **kw) + 1)
    with pytest.raises(ClaimViolation):
        cm.check_block_parameter_count()


def test_nc_scalar_wrong_cls_row():
    negative_control("trauger-def-2-6-4", "linear-in-w")
    with pytest.raises(ClaimViolation):
        cm.check_scalar_linear(cls_row=-1)


def test_nc_scalar_bound_halved():
    negative_control("trauger-def-2-6-4", "bounded-by-w")
    with pytest.raises(ClaimViolation):
        cm.check_scalar_bounded(factor=0.5)
