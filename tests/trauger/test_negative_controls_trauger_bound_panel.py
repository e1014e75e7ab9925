"""Negative controls for the class embedding behind the Cor. 4.1.1 panel of the sparse-majority
chapter: each drops one piece of the embedding and must fail the identity."""

import pytest

from _nc import negative_control
from attention_theory.trauger.checks import sparse_majority_bound as sb
from attention_theory.trauger.sparse_majority import theory as th


def _without(key, part=None):
    def embed(flat, shape):
        p = th.class_parameters(flat, shape)
        if key == "c":
            p["c"] = p["c"] * 0
        elif key == "query-bias":
            p["W_qk"][:, -1, :] = 0
        elif key == "value-bias":
            p["W_v"][:, -1, :] = 0
        elif key == "sqrt-dk":
            p["W_qk"] = p["W_qk"] * 8.0
        return p
    return embed


@pytest.mark.parametrize("key", ["c", "query-bias", "value-bias", "sqrt-dk"])
def test_class_embedding_without_a_piece_fails(key):
    with negative_control("trauger-sec-6", "authors-model-in-class"):
        sb.check_authors_model_in_class(embed=_without(key), Ts=(10,), weight_scales=(0.3,))


def test_class_embedding_holds():
    rec = sb.check_authors_model_in_class(Ts=(10,), weight_scales=(0.3,))
    assert rec.status == "verified"
