# The two commands of the README. Each does all of its own set-up: a virtualenv with the Python
# dependencies, and (on first use) Solr's artifacts from Maven Central for the local node.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: experiment test wheel-check setup check-tools lint bench bench-quick accuracy accuracy-quick clean

experiment: setup
	$(BIN)/neardup experiment restaurants

test: setup
	$(BIN)/ruff check .
	$(BIN)/pytest -ra

# The package as a user gets it: the wheel built from the sdist, installed into a fresh virtualenv
# outside the checkout, runs the restaurant experiment and the README's Python examples against a
# Solr it starts itself from the packaged launcher (.ci/wheel_check.py says more).
wheel-check: setup
	$(BIN)/python .ci/wheel_check.py

setup: check-tools $(VENV)/.installed

check-tools:
	@command -v $(PYTHON) >/dev/null || { echo "neardup needs Python >= 3.10 ($(PYTHON))"; exit 1; }
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 10))' \
	  || { echo "neardup needs Python >= 3.10; $(PYTHON) is older"; exit 1; }
	@if [ -z "$$NEARDUP_SOLR_URL" ]; then \
	  command -v java >/dev/null || { echo "the local Solr node needs Java 17 (or set NEARDUP_SOLR_URL)"; exit 1; }; \
	  command -v mvn >/dev/null || { echo "the local Solr node needs Maven (or set NEARDUP_SOLR_URL)"; exit 1; }; \
	fi

# The kernel is optional (no C compiler: the numpy path); a kernel built before is removed first,
# so that a source that no longer compiles is not answered by a stale binary, and said.
$(VENV)/.installed: pyproject.toml setup.py neardup/_kernel.c
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	rm -f neardup/_kernel*.so
	$(BIN)/pip install -q -e '.[test,plot,bench,data,repair,scale,spark]'
	@$(BIN)/python -c 'import neardup.sign.kernel as k; k.compiled() or print("make: the C kernel did not build (no C compiler, or neardup/_kernel.c does not compile): neardup runs on its numpy path")'
	touch $@

bench: setup
	$(BIN)/python -m benchmarks.run --mode full

bench-quick: setup
	$(BIN)/python -m benchmarks.run --mode quick

# The accuracy suite (benchmarks/accuracy): labelled datasets, neardup's defaults against the
# best exact all-pairs similarity (in memory), and the real two-source tasks of
# ../shared/datasets/er linked through the CLI (a Solr: NEARDUP_SOLR_URL or the local node).
# The quick subset is CI's (D1 of the tasks); the full run rewrites benchmarks/accuracy/RESULTS.md.
accuracy: setup
	$(BIN)/python -m benchmarks.accuracy

accuracy-quick: setup
	$(BIN)/python -m benchmarks.accuracy --quick

clean:
	-$(BIN)/neardup solr stop
	rm -rf $(VENV) out .neardup build dist neardup.egg-info solr_config/launcher/target
