# One definition of "green": CI (.ci/run) and people both use these targets.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cksum pyproject.toml | cut -d' ' -f1)

.PHONY: demo test lint typecheck docs unit browser ocr bench fuzz native clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,speech]'
	rm -f $(VENV)/.installed-* && touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/open-notebook demo

lint: $(STAMP)
	$(BIN)/ruff format --check src tests bench docs
	$(BIN)/ruff check src tests bench docs

typecheck: $(STAMP)
	$(BIN)/mypy

# The documentation site, from docs/ into site/ (git-ignored). Strict: a broken link or anchor, a
# page missing from the nav or a setting without a description fails the build. The reference
# pages (CLI, HTTP API, settings) are generated from the code by docs/hooks/reference.py. The
# build date is the last commit's, so the same commit builds the same site.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 SOURCE_DATE_EPOCH=$$(git log -1 --format=%ct 2>/dev/null || echo 0) \
		$(BIN)/mkdocs build --strict --quiet

# Debian's Chromium for tests/web, installed with apt-get when missing (CI runs as root).
browser:
	bash .ci/browser

# Debian's tesseract-ocr (+ eng, fra, spa) and DejaVu fonts for OCR and its tests (tests/ingest).
ocr:
	bash .ci/ocr

# Two workers, one per core; a module runs whole on one worker, so a module's model or notebook
# is built once (a session fixture, once per worker).
unit: $(STAMP) browser ocr
	$(BIN)/pytest -n 2 --dist loadscope

test: lint typecheck docs unit

# llama.cpp built for this machine's CPU, over the prebuilt wheel (about 6 minutes on 2 idle
# cores; a failed build leaves the prebuilt one in use). See .ci/native-llm.
native: $(STAMP)
	bash .ci/native-llm $(VENV)

bench: $(STAMP) ocr
	$(BIN)/python -m bench.run_all

fuzz: $(STAMP)
	$(BIN)/python -m pip install --quiet schemathesis==4.32.5
	$(BIN)/python -m bench.fuzz_api

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache site
