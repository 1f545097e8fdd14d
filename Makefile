# Setup and test in two commands: `make run` and `make test`.
# Each creates .venv and installs the project into it when needed.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-all lint bench check demo clean postgresql chromium screenshots

$(STAMP): pyproject.toml setup.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

# Some tests run a real Postfix in front of the server (tests/postfix.py):
# Debian's package, installed once and left unconfigured (each test writes a
# configuration of its own in a temporary folder).
POSTFIX := /usr/sbin/postfix
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)

$(POSTFIX):
	echo "postfix postfix/main_mailer_type select No configuration" | $(SUDO) debconf-set-selections
	$(SUDO) apt-get update -qq
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postfix

# The storage tests also run on a real PostgreSQL (tests/pgserver.py):
# Debian's package, installed once; each test process makes a cluster of
# its own in a temporary folder with initdb and removes it afterwards (the
# package's own cluster is never started).
INITDB := $(firstword $(wildcard /usr/lib/postgresql/*/bin/initdb))

postgresql:
	$(if $(INITDB),,$(SUDO) apt-get update -qq)
	$(if $(INITDB),,$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql)

# The browser tests (tests/browser.py) drive a real headless Chromium through
# Selenium: Debian's chromium and chromium-driver, installed once (Selenium
# is told where both are and downloads nothing).
CHROMEDRIVER := /usr/bin/chromedriver

$(CHROMEDRIVER):
	$(SUDO) apt-get update -qq
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium chromium-driver

chromium: $(CHROMEDRIVER)

run: $(STAMP)
	$(BIN)/pbem check games.yaml
	$(BIN)/pbem serve games.yaml $(if $(PORT),--port $(PORT)) $(if $(WEBPORT),--web-port $(WEBPORT))

# Two processes share the tests (pytest-xdist); the few that assert how
# fast something happens (marked serial) run afterwards, alone. The longest
# adversarial runs (marked long: the other cells of the crash matrix, the
# full loads, more seeds, more generated mails) are left to `make
# test-all`, which CI runs: `make test` runs a representative cell of each.
#
# The tests' processes (pytest's, and the servers and workers they start)
# keep their compiled modules in __pycache__ even where the environment says
# not to: without them each one compiles every module again (pytest's
# rewriting of the test modules alone: 5 s a process).
NEED := env -u PYTHONDONTWRITEBYTECODE PBEM_NEED_POSTFIX=1 PBEM_NEED_POSTGRES=1 PBEM_NEED_BROWSER=1

test: $(STAMP) $(POSTFIX) postgresql $(CHROMEDRIVER)
	$(NEED) $(BIN)/python -m pytest -n 2 -m 'not serial and not long'
	$(NEED) $(BIN)/python -m pytest -p no:xdist -m serial

# everything: `make test`, then the long runs
test-all: test
	$(NEED) $(BIN)/python -m pytest -n 2 -m 'long and not serial'

lint: $(STAMP)
	$(BIN)/ruff check pbem adjudicator tests bench
	$(BIN)/ruff format --check pbem adjudicator tests bench

bench: $(STAMP) postgresql
	$(BIN)/python bench/officewars.py
	$(BIN)/python bench/ingest.py
	$(BIN)/python bench/web.py
	$(BIN)/python bench/nodes.py
	$(BIN)/python bench/reports.py
	$(BIN)/python bench/implosion.py
	$(BIN)/python bench/territory.py
	$(BIN)/python bench/strategic_sight.py
	$(BIN)/python bench/strategic_war.py
	$(BIN)/python bench/strategic.py
	$(BIN)/python bench/strategic_picture.py
	-$(BIN)/pip install --quiet diplomacy  # for the comparison only; the bench runs without it
	$(BIN)/python bench/empire.py

# the README's pictures of the web pages (docs/screenshots/), taken by the
# browser tests' Chromium
screenshots: $(STAMP) $(CHROMEDRIVER)
	$(BIN)/python docs/screenshots.py

demo: $(STAMP)
	$(BIN)/pbem demo

check: $(STAMP)
	$(BIN)/pbem check games.yaml

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build *.egg-info
