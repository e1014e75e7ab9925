"""The dependency-graph logic of the book: layering, erratum propagation, counts, SVG."""

from attention_theory.sphinx import blueprint as bp


def _graph():
    s = {k: bp.Statement(k, "doc", uses=u) for k, u in [
        ("trauger-lemma-3-1", []), ("trauger-lemma-3-3", ["trauger-lemma-3-1"]),
        ("trauger-thm-4-1", ["trauger-lemma-3-3", "trauger-lemma-3-1", "trauger-thm-4-1"]),
        ("trauger-cor-4-1-1", ["trauger-thm-4-1", "deora-lemma-1"])]}
    return s


def test_layers_follow_longest_paths_and_ignore_self_loops_and_foreign_labels():
    assert bp.layers(_graph()) == {"trauger-lemma-3-1": 0, "trauger-lemma-3-3": 1,
                                   "trauger-thm-4-1": 2, "trauger-cor-4-1-1": 3}


def test_cycles_do_not_hang():
    s = {"qin-lemma-1": bp.Statement("qin-lemma-1", "d", uses=["qin-lemma-2"]),
         "qin-lemma-2": bp.Statement("qin-lemma-2", "d", uses=["qin-lemma-1"])}
    assert sorted(bp.layers(s).values()) == [0, 1]
    assert "qin-lemma-1" in bp.render_svg(s, {}, {})


def test_erratum_propagates_downstream_only():
    assert bp.downstream(_graph(), ["trauger-lemma-3-3"]) == {"trauger-thm-4-1", "trauger-cor-4-1-1"}
    assert bp.downstream(_graph(), ["trauger-cor-4-1-1"]) == set()


def test_status_and_counts():
    s = _graph()
    s["trauger-thm-4-1"].reconstructed = True
    reg = {"trauger-lemma-3-1": "false-as-printed", "trauger-lemma-3-3": "proof-erratum",
           "trauger-thm-4-1": "verified", "trauger-cor-4-1-1": "not-checkable"}
    counts = bp.paper_counts(s, reg)["trauger"]
    assert counts == {"verified": 0, "proof-erratum": 1, "partial": 0, "corrected-constant": 0,
                      "false-as-printed": 1, "fails": 0, "reconstruction": 1,
                      "not-checkable": 1, "remarks-only": 0, "no-record": 0, "total": 4}
    # a reconstruction that fails as printed shows the failure, not the reconstruction
    assert bp.node_status(s["trauger-thm-4-1"], "fails") == "fails"


def test_svg_links_every_node_and_marks_tainted_nodes():
    s = _graph()
    svg = bp.render_svg(s, {"trauger-lemma-3-1": "corrected-constant"}, {k: f"x.html#{k}" for k in s})
    for k in s:
        assert f'href="x.html#{k}"' in svg
    assert svg.count('stroke="#c0392b" stroke-width="2"') == 4  # 3 tainted nodes + legend swatch
    assert bp.render_svg({}, {}, {}).startswith("<p>")


def test_a_proof_erratum_does_not_taint_what_uses_it():
    s = _graph()
    svg = bp.render_svg(s, {"trauger-lemma-3-1": "proof-erratum"}, {k: f"x.html#{k}" for k in s})
    assert svg.count('stroke="#c0392b" stroke-width="2"') == 1  # the legend swatch only
