# Arbor — developer entry points. GNU make.
#   make run    create .venv, install, start Arbor      (ARGS="..." passes arguments to arbor)
#   make test   the whole suite, headless               (PYTEST_ARGS="..." passes arguments to pytest)
#   make bench  benchmarks/run_all.py                   (BENCH_ARGS="...")
#   make lint   ruff + mypy --strict on the package + import-linter layer contracts
#   make package        PyInstaller one-folder bundle dist/arbor/ (launcher dist/arbor/arbor)
#   make test-package   build the bundle and check it runs with a clean environment (slow tests)
#   make clean  remove .venv and caches

PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed

ARGS ?=
PYTEST_ARGS ?=
# Test processes (pytest-xdist): one per core. PYTEST_WORKERS=0 runs the suite in this process.
PYTEST_WORKERS ?= auto
BENCH_ARGS ?=

.DEFAULT_GOAL := help
.PHONY: help setup system-deps run test test-package package bench lint soak clean

help:
	@echo "make run     install (first time) and start Arbor; ARGS='...' is passed to arbor"
	@echo "make test    run the test suite headless (QT_QPA_PLATFORM=offscreen); PYTEST_ARGS='...'"
	@echo "make bench   run the benchmarks (benchmarks/run_all.py); BENCH_ARGS='...'"
	@echo "make lint    ruff check, mypy --strict desktop_app, lint-imports (layer contracts)"
	@echo "make package       build the self-contained bundle dist/arbor/ (PyInstaller, one folder)"
	@echo "make test-package  build the bundle and run its screenshot with env -i (slow; not in make test)"
	@echo "make soak    two Arbor writers and a pi-style writer on one file for 60 s (tools/soak.py)"
	@echo "make setup   system libraries for Qt + $(VENV) with the project and dev tools"
	@echo "make clean   remove $(VENV) and caches"

system-deps:
	@PYTHON='$(PYTHON)' bash packaging/system-deps.sh

# Re-installs only when pyproject.toml changes. system-deps is order-only: it always runs first
# (python3-venv may be needed to create the venv) but never forces a reinstall by itself.
$(STAMP): pyproject.toml | system-deps
	@test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --upgrade pip
	$(VENV)/bin/python -m pip install -e '.[dev]'
	@touch $@

setup: system-deps $(STAMP)

# Without a display (a headless server, CI, ssh without -X) Arbor runs on a virtual X display so it
# still starts; use `arbor screenshot` to see it, or run with a real display.
run: setup
	@if [ "$$(uname)" = Linux ] && [ -z "$${DISPLAY:-}" ] && [ -z "$${WAYLAND_DISPLAY:-}" ] && command -v xvfb-run >/dev/null; then \
		echo "No display found: starting Arbor on a virtual display (xvfb-run). Set DISPLAY to see the window."; \
		xvfb-run -a $(VENV)/bin/arbor $(ARGS); \
	else \
		$(VENV)/bin/arbor $(ARGS); \
	fi

# The whole suite runs with plain asserts: pytest's assertion rewriting costs each worker ~10 s of
# CPU before the first test (issue 23). Tests that failed run once more with it, for the values.
test: setup
	@QT_QPA_PLATFORM=offscreen $(VENV)/bin/python -m pytest -m "not slow" -n $(PYTEST_WORKERS) --assert=plain $(PYTEST_ARGS) || { \
	  echo "== the tests that failed, once more with pytest's assertion details =="; \
	  QT_QPA_PLATFORM=offscreen $(VENV)/bin/python -m pytest -m "not slow" -n $(PYTEST_WORKERS) --last-failed --last-failed-no-failures none $(PYTEST_ARGS); \
	  exit 1; }

# The bundle: Python, Qt and its plugins, tiktoken data, pygraphviz's Graphviz, the sample session, the
# icon and packaging/arbor.desktop, in dist/arbor/. Runs from any folder with a clean environment.
package: setup
	$(VENV)/bin/pyinstaller --noconfirm --clean --log-level WARN --distpath dist --workpath build/pyinstaller packaging/arbor.spec
	@du -sh dist/arbor

# Builds the bundle (the slow-marked tests do it) and runs it under `env -i`.
test-package: setup
	QT_QPA_PLATFORM=offscreen $(VENV)/bin/python -m pytest -m slow tests/packaging $(PYTEST_ARGS)

bench: setup
	$(VENV)/bin/python benchmarks/run_all.py $(BENCH_ARGS)

# Not part of `make test`: two `arbor ask` writers and a pi-style writer on one file for 60 s.
soak: setup
	$(VENV)/bin/python tools/soak.py --seconds 60

lint: setup
	$(VENV)/bin/ruff check desktop_app tests benchmarks
	$(VENV)/bin/mypy desktop_app
	$(VENV)/bin/lint-imports

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis build dist *.egg-info
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
