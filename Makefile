# The two commands of the README. Each creates .venv on first use and installs the
# package with its pinned dependencies (torch==2.13.0 resolves to the CPU wheel).
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: book test lint check-html install clean

install: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -e '.[book]'
	@touch $(STAMP)

# Build the HTML book, executing every chapter at smoke scale (ATTN_SCALE=smoke unless set).
book: $(STAMP)
	ATTN_SCALE=$${ATTN_SCALE:-smoke} $(VENV)/bin/jupyter-book build . --all -W -n --keep-going
	@echo "Open _build/html/index.html"

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
	  $(PY) -m pytest tests _build/nbval --nbval-lax --nbval-cell-timeout=600 -p no:cacheprovider \
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
