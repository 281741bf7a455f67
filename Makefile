# Scholar MCP on AWS Lambda: setup · serve · test · lint · build · bench · deploy · doctor
SHELL := /bin/bash
# .python-version selects 3.13.0 (the Lambda runtime) through pyenv when it is there.
PYTHON ?= python3
# sam build runs layer makefiles in scratch folders where .python-version is not found: pin it here.
export PYENV_VERSION ?= $(shell cat .python-version)
export SAM_CLI_TELEMETRY = 0
VENV := .venv
TOOLS := .tools
CHECKOV := .checkov
PY := $(VENV)/bin/python
SAM := $(TOOLS)/bin/sam

.PHONY: setup tools serve test lint build bench deploy clean doctor

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --no-compile --disable-pip-version-check -e '.[aws,gateway,auth,local,dev]'
	touch $@

# SAM CLI and cfn-lint pin their own click/boto3/pydantic: they live in a separate environment.
$(TOOLS)/.installed: tools-requirements.txt
	$(PYTHON) -m venv $(TOOLS)
	$(TOOLS)/bin/pip install -q --no-compile --disable-pip-version-check -r tools-requirements.txt
	touch $@

# checkov pins an old boto3 that SAM cannot share: a third environment.
$(CHECKOV)/.installed: tools-checkov-requirements.txt
	$(PYTHON) -m venv $(CHECKOV)
	$(CHECKOV)/bin/pip install -q --no-compile --disable-pip-version-check -r tools-checkov-requirements.txt
	touch $@

# The three environments install side by side (they share nothing); --no-compile above: a module is compiled when
# first imported, not every module of every package at install (53 s instead of ~150 s from a fresh clone).
setup:
	$(MAKE) -j3 $(VENV)/.installed $(TOOLS)/.installed $(CHECKOV)/.installed

tools: $(TOOLS)/.installed

# `scholar serve` on the local backend (SQLite + files under SCHOLAR_HOME: what you keep survives a restart);
# SCHOLAR_BACKEND=aws make serve runs the embedded AWS stand-in (moto + template.yaml) instead.
serve: $(VENV)/.installed
	$(PY) -m scholar.local serve

# Probe the upstreams real use has not exercised lately (public, or SCHOLAR_UPSTREAM_PROXY_BASE) and print the findings.
doctor: $(VENV)/.installed
	POWERTOOLS_METRICS_DISABLED=true $(PY) -m scholar.local doctor --network

# The suite runs in TEST_WORKERS processes (pytest-xdist), a whole test file per worker at a time, so a module's or
# a package's servers start once per worker; many tests wait on loopback I/O, so workers may outnumber the cores.
# TEST_WORKERS=0 runs it in this one process.
# Files go out in collection order (--no-loadscope-reorder; xdist sends the largest first otherwise): tests/e2e/isolated/
# must run before the package's own modules on a worker, whose package-scoped server would still be running.
# Three on this 2-core machine: a third of a test's time is spent waiting on loopback, so a third worker fills it (from
# a fresh clone: 602 s of pytest with 3, 642 s with 2).
TEST_WORKERS ?= 3
test: setup
	SCHOLAR_TOOLS_BIN=$(abspath $(TOOLS))/bin $(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder --durations=25

# mypy is the project venv's (the dev extra pins it with the stubs): [tool.mypy] in pyproject.toml says what it checks.
lint: $(VENV)/.installed $(TOOLS)/.installed $(CHECKOV)/.installed
	$(SAM) validate --lint --template template.yaml
	$(TOOLS)/bin/cfn-lint template.yaml
	$(CHECKOV)/bin/checkov -f template.yaml --framework cloudformation --skip-download --quiet --compact
	$(TOOLS)/bin/ruff check shared functions tests benchmarks
	$(PY) -m mypy --cache-dir .cache/mypy

# The .pyc step runs the project's own Python: a fresh clone needs the venv first.
build: $(VENV)/.installed $(TOOLS)/.installed
	$(SAM) build --template template.yaml
	$(PY) -m compileall -q --invalidation-mode unchecked-hash .aws-sam/build

bench: $(VENV)/.installed
	$(PY) -m benchmarks

deploy: build
	$(SAM) deploy --config-env $${ENV:-dev}

clean:
	rm -rf $(VENV) $(TOOLS) $(CHECKOV) .aws-sam
