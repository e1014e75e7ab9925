"""Negative controls for the checks of Trauger & Tewari Sec. 2.6 (the model definitions).

Each ``test_nc_*`` runs a registered check with a deliberately wrong definition (a
transposed factor, a causal mask, reordered output blocks, an l-inf projection...) and
requires :class:`ClaimViolation`.
"""

import torch

from _nc import negative_control
from attention_theory.trauger.checks import model as cm


def test_nc_factored_form_transposed():
    with negative_control("trauger-def-2-6-1", "factored-form"):
        cm.check_head_factored_form(qk=lambda Q, K: K @ Q.T)


def test_nc_softmax_over_columns():
    with negative_control("trauger-def-2-6-1", "softmax-rows"):
        cm.check_head_softmax_rows(softmax_dim=0)


def test_nc_causal_head_not_equivariant():
    with negative_control("trauger-def-2-6-1", "permutation-equivariance"):
        cm.check_head_equivariance(head=cm._causal_head)


def test_nc_printed_qk_shape_not_an_erratum_if_fixed():
    with negative_control("trauger-def-2-6-1", "printed-qk-shape", match="NOT confirmed"):
        cm.check_head_parameter_count(printed_qk_shape=False)


def test_nc_concat_reversed_blocks():
    with negative_control("trauger-def-2-6-2", "sum-equals-concat"):
        cm.check_multihead_concat(reverse_blocks=True)


def test_nc_proj_doubled_not_unit():
    with negative_control("trauger-def-2-6-3", "proj-unit-rows"):
        cm.check_proj_norm_idempotent(proj=lambda Z: 2.0 * Z / torch.clamp(
            torch.linalg.vector_norm(Z, dim=-1, keepdim=True), min=1.0))


def test_nc_proj_shrinking_not_idempotent():
    with negative_control("trauger-def-2-6-3", "proj-idempotent"):
        cm.check_proj_norm_idempotent(
            proj=lambda Z: Z / (1.0 + torch.linalg.vector_norm(Z, dim=-1, keepdim=True)))


def test_nc_proj_lipschitz_half():
    with negative_control("trauger-def-2-6-3", "proj-lipschitz"):
        cm.check_proj_norm_lipschitz(constant=0.5)


def test_nc_block_linf_projection():
    with negative_control("trauger-def-2-6-3", "block-row-norms"):
        cm.check_block_row_norms(proj=cm._wrong_proj)


def test_nc_block_parameter_count_positional_embedding():
    with negative_control("trauger-def-2-6-3", "parameter-count"):
        cm.check_block_parameter_count(model=cm._positional_model)


def test_nc_scalar_wrong_cls_row():
    with negative_control("trauger-def-2-6-4", "linear-in-w"):
        cm.check_scalar_linear(cls_row=-1)


def test_nc_scalar_bound_halved():
    with negative_control("trauger-def-2-6-4", "bounded-by-w"):
        cm.check_scalar_bounded(factor=0.5)
