# The two commands of the README. Each creates .venv on first use and installs the
# package with its pinned dependencies (torch==2.13.0 resolves to the CPU wheel).
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: book book-fresh pdf test lint check-html install clean

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

# Lint gate (ruff: pyflakes and import order, configured in pyproject.toml), then unit tests,
# negative controls, layout and global-state tests, and nbval over every chapter in _toc.yml.
# Files are spread over the cores (--dist loadfile keeps each notebook in one kernel);
# TEST_WORKERS=0 runs everything in one process.
TEST_WORKERS ?= auto
test: $(STAMP)
	$(VENV)/bin/ruff check src tests
	$(PY) tests/toc_notebooks.py _build/nbval
	ATTN_SCALE=$${ATTN_SCALE:-smoke} ATTN_REGISTRY_DIR=$(CURDIR)/_build/test-registry \
	  OMP_NUM_THREADS=$${OMP_NUM_THREADS:-1} MKL_NUM_THREADS=$${MKL_NUM_THREADS:-1} \
	  $(PY) -m pytest tests _build/nbval --nbval-lax --nbval-cell-timeout=600 -p no:cacheprovider --durations=15 \
	  -n $(TEST_WORKERS) --dist loadfile

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests

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
