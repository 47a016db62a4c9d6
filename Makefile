# Two commands from a fresh clone: `make lab` opens the course, `make test` passes the tests.
# Both create the virtual environment on first use (only Python >= 3.11 and make needed).

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
PORT   ?= 8888
START  := notebooks/00_start_here.ipynb
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)
NBVAL  := --nbval --nbval-current-env --nbval-sanitize-with nbval_sanitize.cfg

.PHONY: venv lab lint check tidy test test-sandboxed test-integration test-pythons test-unit test-notebooks test-browser test-hub grading-tools chart-font bench checklist notebooks learner-labs rules glossary translations mutants book clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { \
		echo "The course needs Python >= 3.11; $(PYTHON) is $$($(PYTHON) --version 2>&1)." \
		     "Run e.g. 'make lab PYTHON=python3.12'."; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

lab: $(STAMP)
	$(BIN)/jupyter lab --ip=127.0.0.1 --port=$(PORT) --no-browser $(ROOT_FLAG) \
		--LabApp.default_url=/lab/tree/$(START)

# Lint, format and types over the whole tree: what .ci/run runs first (the fast tests make check adds are make test's,
# which .ci/run runs next, so each suite runs once per Python).
lint: $(STAMP)
	$(BIN)/python -m ruff check .
	$(BIN)/python -m ruff format --check .
	$(BIN)/python -m mypy

# What a maintainer runs before every commit: lint, format, types, then the fast tests (no kernels, no sandboxes)
# on both cores, each property test on a quarter of its examples (tests/examples.py; make test draws them all).
# About 30 s from a clean clone on a quiet 2-core machine; see README, "Developers".
FAST_TESTS := -m "not slow and not sandboxed" -p no:nbval

check: $(STAMP)
	$(BIN)/python -m ruff check .
	$(BIN)/python -m ruff format --check .
	@# mypy runs beside the tests, so a cold cache (a fresh clone) adds little of its time; both must pass
	$(BIN)/python -m mypy & typing=$$!; \
	COURSE_QUICK_PROPERTIES=1 $(BIN)/python -m pytest -q $(FAST_TESTS) -n 2 tests; tests=$$?; \
	wait $$typing; typed=$$?; exit $$((tests || typed))

# The mechanical passes make check asks for: safe lint fixes (import order, unused noqa, ...) and formatting.
tidy: $(STAMP)
	TIDY_PYTHON=$(BIN)/python sh scripts/tidy.sh

# On Python 3.12 and later, ends with the coverage of course_lib and course_grader by the tests that run in pytest's
# own process (pytest-cov, settings in pyproject.toml, measured through sys.monitoring: COVERAGE_CORE=sysmon), and
# fails below its floor; CI measures it in the 3.13 session. On 3.11 coverage.py can only trace every line, which
# makes those tests about 70 % slower, so make test there measures nothing unless asked: make test COVERAGE='$(MEASURE)'.
# The kernels nbval and the grader start are other processes, not measured.
# UNMEASURED runs after it, without coverage: while coverage is active, the checklist's watchdog thread
# (course_lib/checklist/bounds.py, a check run outside the main thread) never lets its check end.
MEASURE := --cov=course_lib --cov=course_grader --cov-report=term
COVERAGE = $(if $(filter 1,$(shell $(BIN)/python -c 'import sys; print(int(sys.version_info >= (3, 12)))')),$(MEASURE))
UNMEASURED := tests/lib/checklist/test_inline_bounds.py::test_the_time_bound_holds_outside_the_main_thread

# On both cores, a file per worker at a time (--dist loadfile), so a notebook's cells share one kernel.
test: $(STAMP) grading-tools chart-font
	COVERAGE_CORE=sysmon $(BIN)/python -m pytest $(NBVAL) $(COVERAGE) -n 2 --dist loadfile -m "not sandboxed and not integration" $(addprefix --deselect ,$(UNMEASURED)) tests notebooks labs
	$(BIN)/python -m pytest -p no:nbval -q $(UNMEASURED)

# The grader end to end in real sandboxes: bubblewrap, a cgroup per sandbox, hostile batches, Gradescope
# dry runs (setup.sh, run_autograder, as root). Kept apart so make test stays short; .ci/run runs both.
test-sandboxed: $(STAMP) grading-tools
	$(BIN)/python -m pytest -m sandboxed tests

# The outside tools end to end on this machine, a minute or more each: real nbgrader releasing the labs and
# autograding submissions, the deploy recipes' own commands (the GitHub workflow's, the Kubernetes jobs'). Kept apart
# so make test stays short; .ci/run runs it. A file per worker, each tool's runs in one.
test-integration: $(STAMP) grading-tools
	$(BIN)/python -m pytest -p no:nbval -n 2 --dist loadfile -m "integration and not sandboxed" tests

# The same suites on every Python the README allows (3.11, 3.12, 3.13), one nox session each
# (see noxfile.py; it finds pyenv's interpreters even when pyenv is not set up in the shell).
# NOX_ARGS picks some, e.g. `make test-pythons NOX_ARGS="-p 3.13"`.
test-pythons: $(STAMP)
	$(BIN)/nox $(NOX_ARGS)

test-unit: $(STAMP) grading-tools
	$(BIN)/python -m pytest tests

test-notebooks: $(STAMP) chart-font
	$(BIN)/python -m pytest $(NBVAL) notebooks labs

# Installs a missing Debian package only after saying what and why: asks on a terminal,
# installs unattended when CI=true or ASSUME_YES=1, otherwise refuses with the command to run.
#   $(ENSURE_DEBIAN_PACKAGE) PACKAGE "WHY (who needs it)" [PROGRAM, default /usr/bin/PACKAGE] ["TYPICAL SIZE"]
ENSURE_DEBIAN_PACKAGE := sh scripts/ensure-debian-package.sh

# course-grade runs every submission in a bubblewrap sandbox (docs/grading.md); the grader's tests need it too.
grading-tools:
	@$(ENSURE_DEBIAN_PACKAGE) bubblewrap "sandboxed grading (course-grade and its tests in make test)" /usr/bin/bwrap "1 small package"

# A Chinese font for the notebooks' charts: with it the Chinese notebooks' chart titles, axes and legends are Chinese
# (course_lib/teaching/chart_font.py tells matplotlib about it); without it they keep English words and still run, so
# nbval passes either way. Installed by the targets that run the notebooks (learner-labs, test, test-notebooks).
chart-font:
	@$(ENSURE_DEBIAN_PACKAGE) fonts-wqy-microhei "the Chinese notebooks' and class report's charts (make learner-labs, make test, course-grade report)" /usr/share/fonts/truetype/wqy "1 package, 2 MB"

# The explorer in a real browser (JupyterLab + Debian's chromium via Playwright; never `playwright install`).
# Installs chromium and a Chinese font when missing (see ENSURE_DEBIAN_PACKAGE); refreshes docs/explorer.png and the
# book's pictures (docs/book-*.png). Not part of `make test`.
test-browser: $(STAMP)
	@$(ENSURE_DEBIAN_PACKAGE) chromium "the browser test (make test-browser)" /usr/bin/chromium "about 130 packages on Debian 12"
	@# A Chinese font, so the book's Chinese pages draw their text (docs/book-lab-zh.png); the check is its folder.
	@$(ENSURE_DEBIAN_PACKAGE) fonts-wqy-microhei "the Chinese pages in the browser test (make test-browser)" /usr/share/fonts/truetype/wqy "1 package, 2 MB"
	@# An emoji font, so the checklist's ✅ and ❌ marks are drawn in docs/checklist-zh.png, not as boxes.
	@$(ENSURE_DEBIAN_PACKAGE) fonts-noto-color-emoji "the checklist's marks in the browser test's pictures (make test-browser)" /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf "1 package, 10 MB"
	COURSE_BROWSER_TEST=1 $(BIN)/python -m pytest -p no:nbval tests/browser -v

# The live lab on a real JupyterHub (tests/hub, issue 46): jupyterhub from the [hub] extra, configurable-http-proxy from
# the npm registry installed into HUB_TOOLS (a local folder, never globally), Debian's chromium for the instructor's
# page. About a minute; not part of `make test`.
HUB_TOOLS := build/hub-tools
PROXY_BIN := $(HUB_TOOLS)/node_modules/.bin/configurable-http-proxy
test-hub: $(STAMP)
	@$(ENSURE_DEBIAN_PACKAGE) chromium "the hub test (make test-hub)" /usr/bin/chromium "about 130 packages on Debian 12"
	@$(ENSURE_DEBIAN_PACKAGE) npm "configurable-http-proxy for the hub test (make test-hub)" /usr/bin/npm "Node.js and npm"
	test -x $(PROXY_BIN) || npm install --prefix $(HUB_TOOLS) --no-audit --no-fund --loglevel=error configurable-http-proxy@5
	COURSE_HUB_TEST=1 CONFIGURABLE_HTTP_PROXY=$(PROXY_BIN) $(BIN)/python -m pytest -p no:nbval tests/hub -v

# The course as a website in build/book (BOOK_DIR): the learner notebooks and labs with their committed outputs,
# the rules and the guides, a search box and launch buttons (book/settings.toml; BOOK_JUPYTERHUB_URL=… overrides);
# in English (BOOK_DIR/en/) and Chinese (BOOK_DIR/zh/: labs/zh, notebooks/zh, docs/zh), built side by side.
# Offline: nothing is executed or downloaded. Publish by copying BOOK_DIR to any static host (.github/workflows/book.yml).
BOOK_DIR ?= build/book
book: $(STAMP)
	$(BIN)/python scripts/build_book.py $(BOOK_DIR)

# docs/rules.md is generated from course_lib/teaching/rules.py (by course_lib/checklist/rules_page.py), docs/zh/rules.md from the
# same table and course_lib/teaching/locale/zh_CN/LC_MESSAGES/rules.po (tests/test_citations.py fails when either is stale).
rules: $(STAMP)
	$(BIN)/python -m course_lib.checklist.rules_page > docs/rules.md
	@mkdir -p docs/zh
	$(BIN)/python -m course_lib.checklist.rules_page --language zh > docs/zh/rules.md

# docs/glossary.md and docs/zh/glossary.md, the chapter's terms and commands beside the course's, are generated from
# the one table in course_lib/teaching/glossary/ (tests/test_glossary.py fails when either page is stale).
glossary: $(STAMP)
	$(BIN)/python -m course_lib.teaching.glossary > docs/glossary.md
	mkdir -p docs/zh
	$(BIN)/python -m course_lib.teaching.glossary --language zh > docs/zh/glossary.md

# Per catalog (one per domain and shipped language, scripts/translations.py): how much is translated, fuzzy,
# missing from it or stale in it; fails unless every catalog is whole (tests/test_translations.py holds the same).
translations: $(STAMP)
	$(BIN)/python scripts/translations.py

checklist: $(STAMP)
	$(BIN)/python -m course_lib.checklist

# What users wait for, each as a ratio to its floor in the same run (README, "Other commands"); about 12 minutes, and 2.5 more for the live lab.
# BENCH_ARGS measures less, e.g. `make bench BENCH_ARGS="--sizes 1000,10000 --notebooks 6"` (--help lists them).
bench: $(STAMP) grading-tools
	@$(ENSURE_DEBIAN_PACKAGE) esbuild "the rows against the chapter's TypeScript reference (make bench bundles its sources)" /usr/bin/esbuild "1 package"
	$(BIN)/python benchmarks/bench.py $(BENCH_ARGS)

clean:
	rm -rf $(VENV) .nox build *.egg-info

notebooks: $(STAMP)
	$(BIN)/python scripts/execute_notebooks.py

# Every notebook is generated from its text source (labs/sources/, notebooks/sources/; docs/notebooks.md): each lab's
# solution and learner versions, and the notebooks without exercises (00, 01, 03), then executed in place.
# scripts/make_learner_labs.py --changed redoes only the notebooks whose source changed.
learner-labs: $(STAMP) chart-font
	$(BIN)/python scripts/make_learner_labs.py

# The learner-bug corpus (tests/mutants) judged in process under 20 seeds, graded once by course-grade in a
# sandboxed batch, and run through each lab's inline checklist: a table per lab of how many mutants each layer
# catches (targets: no mutant keeps full marks under any seed, the checklist catches >= 90 %). MUTANTS_ARGS adds
# options, e.g. `make mutants MUTANTS_ARGS="--seeds 40"`.
mutants: $(STAMP) grading-tools
	$(BIN)/python scripts/mutants.py --seeds 20 $(MUTANTS_ARGS)
