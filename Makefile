# The README's commands: `make demo` builds the default dataset, `make test` runs the tests.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
CONFIG ?= configs/smoke.yaml
OUT ?= out/smoke

.PHONY: venv demo test bench clean

venv: $(STAMP)

# Reinstalls only when pyproject.toml changed; the project is installed editable.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip setuptools wheel
	$(BIN)/pip install --quiet -e ".[test,bench]"
	touch $(STAMP)

demo: venv
	$(BIN)/benchfoundry build $(CONFIG) --out $(OUT)

test: venv
	$(BIN)/python -m pytest -q tests

bench: venv
	@set -e; for b in bench/*.py; do echo "== $$b"; $(BIN)/python $$b; done

clean:
	rm -rf $(VENV) out
