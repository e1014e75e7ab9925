# The two commands of the README. Each creates .venv on first use and installs the
# package with its pinned dependencies (torch==2.13.0 resolves to the CPU wheel).
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: book book-fresh pdf test test-paper lint check-html install clean

install: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -e '.[book]'
	@touch $(STAMP)

# Build the HTML book at smoke scale (ATTN_SCALE=smoke unless set). Chapters are executed
# through jupyter-cache (_build/.jupyter_cache): a chapter is executed again only when its code,
# the package source, results/, pyproject.toml or an ATTN_* setting changed; a cached chapter's
# check records are restored from the run that computed them (attention_theory.sphinx.bookcache).
# The chapters to execute run first, in parallel (one Dask worker per core, one thread each;
# ATTN_BOOK_WORKERS=N to choose, 1 for one after another: attention_theory.sphinx.prerun).
# ATTN_BOOK_CACHE=0 (make book-fresh) empties the cache first, so every chapter is executed.
book: $(STAMP)
	ATTN_SCALE=$${ATTN_SCALE:-smoke} $(VENV)/bin/jupyter-book build . --all -W -n --keep-going
	@echo "Open _build/html/index.html"

book-fresh: $(STAMP)
	ATTN_BOOK_CACHE=0 $(MAKE) book

# The whole book as one PDF (_build/pdf/attention-theory-verified.pdf), with XeLaTeX. Uses the
# same cache as `make book` (a chapter already executed is not executed again), then rebuilds
# the HTML (from the cache) so that every page's footer links the PDF. Installs Debian's TeX
# packages when missing (needs root and apt).
PDF := _build/pdf/attention-theory-verified.pdf
pdf: $(STAMP)
	@command -v latexmk >/dev/null && command -v xelatex >/dev/null && command -v xindy >/dev/null && \
	  command -v rsvg-convert >/dev/null && fc-list | grep -qi FreeSerif || \
	  { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
	    texlive-latex-recommended texlive-latex-extra texlive-fonts-recommended texlive-xetex \
	    texlive-plain-generic latexmk xindy fonts-freefont-otf tex-gyre lmodern poppler-utils \
	    librsvg2-bin; }
	rm -rf _build/latex
	ATTN_SCALE=$${ATTN_SCALE:-smoke} $(VENV)/bin/jupyter-book build . --builder pdflatex --all -n --keep-going
	@mkdir -p $(dir $(PDF))
	cp _build/latex/attention-theory-verified.pdf $(PDF)
	$(MAKE) book
	@echo "PDF: $(PDF) (linked from every page of _build/html)"

# Lint gate (ruff, configured in pyproject.toml: pyflakes, import order, line length) over the
# package, the tests and the chapters' code (tests/toc_notebooks.py converts every chapter in
# _toc.yml to .ipynb, which ruff lints and nbval runs), then unit tests, negative controls, the
# core tests (contract, layout, conventions, global state, commands, the new-paper scaffold in a
# copy of the repository) and nbval over every chapter. Files are spread over the cores
# (--dist loadfile keeps each notebook in one kernel); TEST_WORKERS=0 runs everything in one process.
TEST_WORKERS ?= auto
TEST_ENV = ATTN_SCALE=$${ATTN_SCALE:-smoke} ATTN_REGISTRY_DIR=$(CURDIR)/_build/test-registry \
	  OMP_NUM_THREADS=$${OMP_NUM_THREADS:-1} MKL_NUM_THREADS=$${MKL_NUM_THREADS:-1}
PYTEST_ARGS = --nbval-lax --nbval-cell-timeout=600 -p no:cacheprovider --durations=15 \
	  -n $(TEST_WORKERS) --dist loadfile
test: $(STAMP)
	$(VENV)/bin/ruff check src tests
	$(PY) tests/toc_notebooks.py _build/nbval
	$(VENV)/bin/ruff check _build/nbval
	$(TEST_ENV) $(PY) -m pytest tests _build/nbval $(PYTEST_ARGS)

# The fast loop for one paper (PAPER=<key> of src/attention_theory/papers.py, or foundations): the
# lint gate over the package, the tests and that paper's chapters; the core tests about a paper's
# content (PAPER_GATES; the convention tests restricted to that paper by ATTN_CONVENTIONS_PAPER);
# tests/<key>; the fuzz items of that paper's modules; nbval over its chapters. The tests of the
# shared machinery (campaign, experiment command, scaffold, ...) are left to `make test`, the gate.
PAPER_GATES = tests/core/test_layout.py tests/core/test_conventions.py tests/core/test_contract.py \
	  tests/core/test_search_coverage.py tests/core/test_families_coverage.py tests/core/test_box_titles.py \
	  tests/core/test_markdown_tables.py
test-paper: $(STAMP)
	@test -n "$(PAPER)" || { echo "usage: make test-paper PAPER=<key>"; exit 2; }
	@test -d book/$(PAPER) || { echo "no book/$(PAPER)/: PAPER is a paper key (src/attention_theory/papers.py)"; exit 2; }
	$(VENV)/bin/ruff check src tests
	$(PY) tests/toc_notebooks.py _build/nbval-$(PAPER) --paper $(PAPER)
	$(VENV)/bin/ruff check _build/nbval-$(PAPER)
	$(TEST_ENV) ATTN_CONVENTIONS_PAPER=$(PAPER) $(PY) -m pytest $(PAPER_GATES) $(wildcard tests/$(PAPER)) \
	  tests/fuzz/test_fuzz_public_api.py _build/nbval-$(PAPER) $(PYTEST_ARGS) \
	  -k "not test_fuzz_public_callable or [$(PAPER)."

# The lint gate of `make test` alone: ruff over src, tests and the chapters' code.
lint: $(STAMP)
	$(VENV)/bin/ruff check src tests
	$(PY) tests/toc_notebooks.py _build/nbval
	$(VENV)/bin/ruff check _build/nbval

# Browser test of the built book (run `make book` first): every page opened in headless
# Chromium, offline; math typeset, images loaded, internal links resolve, registry complete.
# Installs Debian's chromium and chromium-driver when missing (needs root and apt).
check-html: $(STAMP)
	@test -f _build/html/index.html || { echo "no built book: run 'make book' first"; exit 1; }
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || \
	  { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver; }
	$(PY) -m pytest tests/browser_check_html.py -q -p no:cacheprovider
	@echo "Screenshots in _build/html-check/"

clean:
	rm -rf _build
