"""The ``{strongest}`` role's parsing and look-up (its rendering is covered by the book build)."""

import pytest

from attention_theory.sphinx.strongest import parse_target, strongest_value


def _rec(scale, worst, status="verified", **detail):
    return {"claim_id": "deora-cor-1", "check": "random-and-adversarial", "status": status,
            "scale": scale, "worst": worst, "detail": detail}


RECORDS = [_rec("smoke", 0.13, worst_ratio_per_item={"2": 0.129, "3": 0.4}),
           _rec("full", 0.36, worst_ratio_per_item={"2": 0.249, "3": 0.361}),
           _rec("full", 5.0, status="fails"),
           {"claim_id": "deora-lemma-6", "check": "x", "status": "verified", "scale": "full", "worst": 9.0,
            "detail": {}}]


def test_parse_target():
    assert parse_target("deora-cor-1/random-and-adversarial") == (
        "deora-cor-1", "random-and-adversarial", None, ".3g")
    assert parse_target(" a-1/b:c.2|.2f ") == ("a-1", "b", "c.2", ".2f")
    for bad in ("deora-cor-1", "a/b|%d", "A/b", "a/b:c d"):
        with pytest.raises(ValueError):
            parse_target(bad)
    with pytest.raises(TypeError):
        parse_target(None)


def test_strongest_value_takes_the_largest_verified_value_and_its_scale():
    assert strongest_value(RECORDS, "deora-cor-1", "random-and-adversarial") == (0.36, "full")
    check = ("deora-cor-1", "random-and-adversarial")
    assert strongest_value(RECORDS, *check, "worst_ratio_per_item.2") == (0.249, "full")
    assert strongest_value(RECORDS, *check, "worst_ratio_per_item.3") == (0.4, "smoke")
    assert strongest_value(RECORDS, "deora-cor-1", "random-and-adversarial", "missing.path") is None
    assert strongest_value(RECORDS, "deora-cor-1", "nothing") is None
    with pytest.raises(TypeError):
        strongest_value(["x"], "a", "b")
