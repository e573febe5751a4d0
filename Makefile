# Prefill — the two commands a newcomer needs are `make run` and `make test`.
# Everything else here is what those two depend on; each step re-runs only when its inputs change.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
HOST   ?= 127.0.0.1
PORT   ?= 8000
# The suite runs on every core (pytest-xdist); `make test PYTEST_ARGS=tests/search` runs one folder in one process.
PYTEST_ARGS ?= -n auto

PY_STAMP   := $(VENV)/.installed
NODE_STAMP := node_modules/.installed
VENDOR     := static/vendor/htmx.min.js
FONTS      := static/vendor/fonts/.installed
PYODIDE    := static/vendor/pyodide/.installed
EDITOR     := static/vendor/editor/editor.js

.PHONY: run test lint format deps check bench bench-load clean lock

run: deps
	$(BIN)/prefill db upgrade
	$(BIN)/prefill serve --host $(HOST) --port $(PORT)

test: deps
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/prefill content check
	$(BIN)/python -m pytest $(PYTEST_ARGS)

deps: $(PY_STAMP) $(VENDOR) $(FONTS) $(PYODIDE) $(EDITOR)

# -qq: errors only (one -q still prints pip's warnings and setuptools' editable-install banner).
$(PY_STAMP): pyproject.toml requirements.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -qq --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install -qq --disable-pip-version-check -c requirements.lock -e '.[dev]'
	touch $@

$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

# Front-end packages come from npm at build time; static/vendor is not committed.
$(VENDOR): $(NODE_STAMP)
	mkdir -p static/vendor
	cp node_modules/htmx.org/dist/htmx.min.js static/vendor/htmx.min.js
	mkdir -p static/vendor/swagger-ui
	cp node_modules/swagger-ui-dist/swagger-ui-bundle.js node_modules/swagger-ui-dist/swagger-ui.css \
		static/vendor/swagger-ui/

# Self-hosted fonts (Latin subsets, woff2) from npm. The file names carry the package version, so
# the server may let browsers cache them for a year (app/web/assets.py).
$(FONTS): $(NODE_STAMP)
	mkdir -p static/vendor/fonts
	cp node_modules/@fontsource-variable/inter/files/inter-latin-wght-normal.woff2 \
	  static/vendor/fonts/inter-latin-wght-normal.v$$(node -p "require('@fontsource-variable/inter/package.json').version").woff2
	cp node_modules/@fontsource/ibm-plex-mono/files/ibm-plex-mono-latin-400-normal.woff2 \
	  static/vendor/fonts/ibm-plex-mono-latin-400-normal.v$$(node -p "require('@fontsource/ibm-plex-mono/package.json').version").woff2
	touch $@

# Pyodide (CPython for WebAssembly) runs the exercises in the reader's browser, in a Web Worker.
# Only the runtime and the standard library: exercises use no other package.
# Its folder is named by the package version (the files inside keep the names Pyodide loads them
# by), so the server may let browsers cache the 13 MB for a year (app/web/assets.py).
$(PYODIDE): $(NODE_STAMP)
	rm -rf static/vendor/pyodide
	v=$$(node -p "require('pyodide/package.json').version") && \
	mkdir -p static/vendor/pyodide/v$$v && \
	cd node_modules/pyodide && cp pyodide.mjs pyodide.mjs.map pyodide.asm.mjs pyodide.asm.wasm \
		python_stdlib.zip pyodide-lock.json ../../static/vendor/pyodide/v$$v/
	touch $@

# The exercise editor: CodeMirror 6 from npm, bundled by esbuild from frontend/editor.js.
$(EDITOR): $(NODE_STAMP) frontend/editor.js
	mkdir -p static/vendor/editor
	node_modules/.bin/esbuild frontend/editor.js --bundle --minify --format=iife \
		--target=es2020 --legal-comments=none --log-level=warning --outfile=$@

lint: deps
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: deps
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

check: deps
	$(BIN)/prefill content check

bench: deps
	$(BIN)/python bench/bench_sizing.py

# Load against a real server with wrk (Debian's wrk package); see docs/benchmarks.md.
bench-load: deps
	$(BIN)/python bench/bench_load.py

# Re-pin the Python dependency set after changing pyproject.toml.
lock: $(PY_STAMP)
	$(BIN)/python -m pip freeze --exclude-editable --disable-pip-version-check | grep -v '^prefill' > requirements.lock

clean:
	rm -rf $(VENV) node_modules static/vendor .pytest_cache .ruff_cache
