# The two commands of the README. Each creates .venv on first use and installs the
# package with its pinned dependencies (torch==2.13.0 resolves to the CPU wheel).
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: book test install clean

install: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -e '.[book]'
	@touch $(STAMP)

# Build the HTML book, executing every chapter at smoke scale (ATTN_SCALE=smoke unless set).
book: $(STAMP)
	ATTN_SCALE=$${ATTN_SCALE:-smoke} $(VENV)/bin/jupyter-book build . --all -W -n --keep-going
	@echo "Open _build/html/index.html"

# Unit tests, negative controls, and nbval over every chapter listed in _toc.yml.
test: $(STAMP)
	$(PY) tests/toc_notebooks.py _build/nbval
	ATTN_SCALE=$${ATTN_SCALE:-smoke} ATTN_REGISTRY_DIR=$(CURDIR)/_build/test-registry \
	  $(PY) -m pytest tests _build/nbval --nbval-lax -p no:cacheprovider

clean:
	rm -rf _build
