# Two commands set everything up on a fresh machine (Python, pip and gcc are all it needs):
#   make serve   - create .venv, install the app, migrate the SQLite database, serve on port 5000
#   make test    - install the system packages the tests use, the project with every extra, then lint and test
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 0.0.0.0
PORT ?= 5000

.PHONY: serve test lint typecheck pytest system-deps bench train clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The serving install: the app and the camera runtime (onnxruntime + OpenCV), no torch.
.stamp-serve: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[vision]'
	touch $@

# The full install: every extra, torch and Ultralytics included (the test suite runs a training smoke run).
.stamp-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[vision,train,postgres,test]'
	touch $@

serve: .stamp-serve
	$(BIN)/phase10 serve --host $(HOST) --port $(PORT)

system-deps:
	bash .ci/system-deps

lint: .stamp-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: .stamp-test
	$(BIN)/mypy

pytest: .stamp-test system-deps
	bash .ci/with-postgres $(BIN)/python -m pytest $(PYTEST_ARGS)

test: lint typecheck pytest

bench: .stamp-test
	@for b in bench/*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) .stamp-serve .stamp-test .pytest_cache .ruff_cache .mypy_cache
