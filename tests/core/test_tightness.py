"""The tightness audit (``python -m attention_theory tightness``) and what it reads."""

import json

import pytest

from attention_theory.verify.tightness import format_tightness, main, tightness_rows


def _bound(cid, check, worst, scale="smoke", **detail):
    return {"claim_id": cid, "check": check, "kind": "bound", "status": "verified", "worst": worst,
            "scale": scale, "detail": detail}


RECORDS = [
    _bound("deora-lemma-6", "items", 0.2, search={"sizes": ["(1, 1)", "(2, 2)"],
                                                  "methods": ["lbfgs", "nelder-mead"],
                                                  "restarts": 2, "steps": 8}),
    _bound("deora-lemma-6", "items", 0.7, scale="full", families=["random heads", "R -> 0, one token"],
           limits=[{"kind": "limit-sequence", "family": "one token", "parameter": "R -> 0",
                    "values": [1.0, 0.1, 1e-6], "ratios": [0.7, 0.9, 0.99994], "supremum": 1.0}]),
    _bound("qin-eq-38", "lip", 0.05, no_search="a finite list of cases"),
    _bound("qin-eq-37", "exact", float("-inf")),
    {"claim_id": "qin-eq-37", "check": "id", "kind": "identity", "status": "verified", "worst": 0.01,
     "scale": "smoke", "detail": {}},
]


def test_rows_take_the_strongest_scale_and_sort_weakest_first():
    rows = tightness_rows(RECORDS, below=0.5)
    assert [(r["claim_id"], r["check"]) for r in rows] == [("qin-eq-38", "lip"), ("deora-lemma-6", "items")]
    lemma6 = rows[1]
    assert lemma6["worst"] == 0.7 and lemma6["scale"] == "full" and not lemma6["weak"]
    assert lemma6["worst_per_scale"] == {"full": 0.7, "smoke": 0.2}
    assert lemma6["families"] == ["random heads", "R -> 0, one token"] and "0.99994" in lemma6["limits"][0]
    assert rows[0]["weak"] and rows[0]["no_search"] == "a finite list of cases"
    assert [r["weak"] for r in tightness_rows(RECORDS, below=0.8)] == [True, True]


def test_text_lists_weak_checks_with_their_coverage():
    text = format_tightness(tightness_rows(RECORDS, below=0.5), below=0.5)
    assert "2 bound checks with a ratio; 1 with strongest worst ratio below 0.5" in text
    assert "qin-eq-38 / lip" in text and "families: not declared" in text and "no search:" in text
    assert "deora-lemma-6" not in text.split("\n\n")[1]  # strong enough: not listed
    assert "families declared by 1 of 2 bound checks; 1 show a limit sequence" in text


def test_command_reads_registry_folders(tmp_path, capsys):
    for k, r in enumerate(RECORDS):
        (tmp_path / f"r{k}.json").write_text(json.dumps(r))
    assert main(["--registry", str(tmp_path), "--below", "0.8"]) == 0
    out = capsys.readouterr().out
    assert "2 with strongest worst ratio below 0.8" in out and "deora-lemma-6 / items" in out
    with pytest.raises(SystemExit):
        main(["--registry", str(tmp_path / "missing")])
    with pytest.raises(SystemExit):
        main(["--registry", str(tmp_path), "--below", "-1"])
    with pytest.raises(ValueError, match="below"):
        tightness_rows(RECORDS, below=float("nan"))


def test_families_of_one_scale_speak_for_the_check():
    recs = [_bound("qin-eq-38", "lip", 0.3, scale="full"),
            _bound("qin-eq-38", "lip", 0.1, families=["edge of the ball"], no_search="toy")]
    row = tightness_rows(recs)[0]
    assert row["scale"] == "full" and row["families"] == ["edge of the ball"]
