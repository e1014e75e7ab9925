"""``python -m attention_theory new-paper`` (:mod:`attention_theory.scaffold`): a new paper passes
the gates as written.

The command of CONTRIBUTING.md runs in a copy of the repository (``tests/_repo_copy.py``); the
Python snippets of CONTRIBUTING.md go into the copy too (those of the files new-paper writes are
the same text: ``tests/core/test_contributing.py``), with the experiment the recipe adds. Then,
in the copy: ``ruff`` over every file written and over the new chapter; the layout, convention
(restricted to the new paper), contract, search-coverage and families-coverage tests and the
paper-count test of CONTRIBUTING.md; the fuzz items of the new modules; the new paper's tests
(its negative control, the experiment's unit test); nbval of the new chapter. Refusals and
``--dry-run`` are tested on the repository itself (nothing is written). The recipe's key is
``toy``; where a paper ``toy`` exists already (someone ran the recipe in this clone), every test
uses the first free key of ``toyb`` ... ``toyz`` instead (``_repo_copy.free_recipe``).
"""

from __future__ import annotations

import re
import sys

import pytest

from _repo_copy import (
    CONTRIBUTING,
    RUFF,
    add_snippets,
    copy_repository,
    free_recipe,
    new_paper_arguments,
    python_blocks,
    run,
    snippets,
)
from attention_theory import scaffold

#: CONTRIBUTING.md with the recipe's key (and the cite key it starts) free in this repository.
RECIPE = free_recipe(CONTRIBUTING.read_text())
_ARGS = scaffold._parser().parse_args(new_paper_arguments(RECIPE))
KEY = _ARGS.key
TITLE = "A Toy Paper on Attention: Rows, Tokens & Norms"
NEW = dict(title=TITLE, cite=_ARGS.cite, short=_ARGS.short)
#: The tests run in the copy besides the new paper's own (tests/<key>, nbval of book/<key>/).
GATES = ("tests/core/test_layout.py", "tests/core/test_conventions.py", "tests/core/test_contract.py",
         "tests/core/test_search_coverage.py", "tests/core/test_families_coverage.py",
         "tests/core/test_contributing.py::test_no_hand_typed_paper_counts",
         "tests/fuzz/test_fuzz_public_api.py")


@pytest.mark.parametrize("key, kwargs, message", [
    ("qin", {}, "key 'qin' is taken"),
    ("verify", {}, "is taken: src/attention_theory/verify exists"),
    ("models", {}, "names a folder of the tests or a layer of the package"),
    ("Toy", {}, "key must be lower-case"),
    ("toy-paper", {}, "key must be lower-case"),
    ("class", {}, "key must be lower-case"),
    (KEY, {"chapter": "First_Lemma"}, "chapter must be lower-case words"),
    (KEY, {"cite": "qin2025convergence"}, "already in book/references.bib"),
    (KEY, {"cite": "no spaces"}, "cite must be a BibTeX key"),
    (KEY, {"title": "  "}, "title must be one non-empty line"),
    (KEY, {"title": "two\nlines"}, "title must be one non-empty line"),
])
def test_refuses_a_taken_or_malformed_name(key, kwargs, message):
    with pytest.raises(scaffold.ScaffoldError, match=re.escape(message)):
        scaffold.new_paper(key, **{**NEW, **kwargs}, dry_run=True)


def test_dry_run_lists_the_files_and_writes_nothing(capsys):
    paths = scaffold.new_paper(KEY, **NEW, dry_run=True)
    rel = {p.relative_to(scaffold.REPO).as_posix() for p in paths}
    pkg = f"src/attention_theory/{KEY}"
    assert {f"{pkg}/model.py", f"{pkg}/checks/first_lemma.py", f"tests/{KEY}/test_nc_first_lemma.py",
            f"book/{KEY}/first-lemma.md", "src/attention_theory/papers.py", "_toc.yml",
            "book/references.bib", "tests/fuzz/examples.py"} <= rel
    assert not (scaffold.REPO / "src" / "attention_theory" / KEY).exists()
    assert scaffold.main([KEY, "--title", TITLE, "--cite", NEW["cite"], "--dry-run"]) == 0
    assert f"would write book/{KEY}/first-lemma.md" in capsys.readouterr().out
    assert scaffold.main(["qin", "--title", TITLE, "--cite", "x2025"]) == 2
    assert "error: key 'qin' is taken" in capsys.readouterr().err


def test_a_new_paper_and_the_recipes_pass_the_gates(tmp_path):
    """``new-paper`` with the command of CONTRIBUTING.md, in a copy of the repository, then the
    recipes' snippets (the experiment, its unit test and fuzz examples) and the papers.py edit the
    recipe asks for; then the gates."""
    root = copy_repository(tmp_path / "repo")
    args = new_paper_arguments(RECIPE)
    key = args[0]
    out = run(root, [sys.executable, "-m", "attention_theory", "new-paper", *args])
    written = re.findall(r"^wrote (\S+)$", out, re.M)
    assert f"book/{key}/first-lemma.md" in written and "_toc.yml" in written, out
    with pytest.raises(AssertionError, match="is taken"):  # a second time: refused, nothing written
        run(root, [sys.executable, "-m", "attention_theory", "new-paper", key, "--title", "x",
                   "--cite", "y2025"])

    written += add_snippets(root, snippets(RECIPE))
    papers_py = root / "src" / "attention_theory" / "papers.py"  # "add the module to the paper's experiments"
    papers_py.write_text(papers_py.read_text().replace(
        f'Paper(key="{key}",', f'Paper(key="{key}", experiments=("attention_theory.{key}.row_norms",),', 1))

    run(root, [sys.executable, "tests/toc_notebooks.py", "_build/nbval", "--paper", key])
    run(root, [RUFF, "check", *sorted({f for f in written if f.endswith(".py")}), "_build/nbval"])
    deselect = f"not test_fuzz_public_callable or [{key}."
    out = run(root, [sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", *GATES,
                     f"tests/{key}", f"_build/nbval/book/{key}", "--nbval-lax", "-k", deselect],
              ATTN_CONVENTIONS_PAPER=key)
    for item in (f"test_fuzz_public_callable[{key}.model.attention_rows]",
                 f"test_fuzz_public_callable[{key}.row_norms.run_sweep]",
                 "test_nc_first_lemma.py::test_nc_rows_within_largest_token_constant_halved",
                 "test_row_norms.py::test_a_smoke_run_records_the_declared_configuration",
                 "first-lemma::ipynb::Cell 1", f"test_every_module_imports[attention_theory.{key}.row_norms]",
                 "test_every_registered_check_has_a_negative_control",
                 "test_every_experiment_part_declares_its_config"):
        assert re.search(rf"{re.escape(item)}\S* PASSED", out), f"{item} did not pass:\n{out[-3000:]}"


def test_the_recipe_takes_the_first_free_key_where_its_own_is_taken(tmp_path):
    """A clone where the recipe ran already (its key's folders exist) tests the recipe under the
    next free key, renamed everywhere it is a key; the prose's capitalized words stay."""
    text = CONTRIBUTING.read_text()
    old = new_paper_arguments(text)[0]
    edited = ("_toc.yml", "src/attention_theory/papers.py", "book/references.bib", "tests/fuzz/examples.py")
    for rel in edited:  # the files new-paper edits: the rest of a clone is not needed
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text((scaffold.REPO / rel).read_text())
    for taken in (f"book/{old}", f"tests/{old}b"):
        (tmp_path / taken).mkdir(parents=True)
    moved = free_recipe(text, tmp_path)
    args = scaffold._parser().parse_args(new_paper_arguments(moved))
    assert (args.key, args.cite) == (f"{old}c", f"{old}c2025attention")
    blocks = "".join(python_blocks(moved))
    assert f"attention_theory.{old}." not in blocks and f'"{old}-lemma-1"' not in blocks
    assert f"attention_theory.{old}c.model" in blocks and f'"{old}c-lemma-1"' in blocks
    assert moved.count("Toy & Model") == text.count("Toy & Model") >= 1
    with pytest.raises(ValueError, match="no `.venv/bin/python -m attention_theory new-paper"):
        free_recipe("no recipe here", tmp_path)
