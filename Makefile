# The book's two commands:
#   make book   set up (.venv, locked packages, Graphviz) and build the website into _build/html
#   make test   the same set-up, then every check: unit tests, strict book build, site check,
#               and every chapter run as on Binder (an environment made from binder/ alone)
# Both are idempotent: a second run reinstalls nothing and re-executes only changed chapters.

SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HTML := _build/html

# -W: warnings are errors; -n: nitpicky (every reference must resolve); --keep-going: report
# them all. Cells raise on error (see _config.yml), so a failing cell fails the build too.
JB_STRICT := -W -n --keep-going

# Each stage of `make test` records its seconds in _build/stages.tsv (scripts/stages.py);
# `make test` prints them as a table at the end, also when a stage failed or was interrupted.
STAGES := $(PYTHON) scripts/stages.py
STAGE := $(STAGES) run

.PHONY: book test test-stages lane-book lane-binder setup system-book system-test unit build build-all fresh-cache site-check pdf pdf-check student grade instructor-check check-snapshots binder-test binder-check lock clean help

help:
	@echo "make book        set up and build the website into $(HTML)"
	@echo "make test        set up, then unit tests, strict rebuild of every page, site check"
	@echo "                 (ends with a table of each stage's seconds, from _build/stages.tsv)"
	@echo "make unit        unit tests only (fast loop)"
	@echo "make site-check  check the built site in headless Chromium"
	@echo "make pdf         the book as two PDFs in _build/pdf, instructor and student (after make book)"
	@echo "make pdf-check   build the PDFs if the site changed, then check them"
	@echo "make student     the student edition in _build/student: tasks as stubs, no solutions"
	@echo "make grade SUBMISSION=path [CHAPTER=N] [TESTS=folder]  score a student's folder, task by task"
	@echo "make instructor-check  chapters stand alone, the student edition, the grader"
	@echo "make check-snapshots   every test of chapters 2..N on each chapter N's snapshot (minutes)"
	@echo "make binder-test run every chapter as on Binder (1 CPU, time and memory budgets)"
	@echo "make binder-check JupyterLab (repo2docker's version) with chapter 4 open, in Chromium"
	@echo "make lock        regenerate requirements.txt from requirements.in"
	@echo "make clean       remove the build (keeps .venv and the execution cache)"

book: setup system-book build
	@echo
	@echo "The book is built. Open: file://$(CURDIR)/$(HTML)/index.html"

test:
	@$(STAGES) start; trap '$(STAGES) table' EXIT; $(MAKE) --no-print-directory test-stages

# Two lanes side by side, one per core of this 2-core machine (issue 25): the Binder
# simulation executes its chapters on core 0 alone (taskset -c 0), one at a time, which left
# the other core idle for six minutes. Each lane runs its stages in order; --output-sync
# prints a lane's output in one piece when it ends. The stage table shows when each began.
#   lane-book:   build-all (the site), site-check, pdf-check (both read the site), binder-check
#   lane-binder: unit (and unit-pages), binder-test, instructor-check
# Balanced on a fresh clone's seconds (the table of a run shows them): each lane about 570 s.
# binder-check reads the Binder environment binder-test builds; if it comes first, it waits for
# binder-test's lock, then finds the environment made (scripts/binder_sim.py).
test-stages: setup system-test
	@$(MAKE) --no-print-directory -j2 --output-sync=target lane-book lane-binder
	@echo "All checks passed."

# (Each lane is a make of its own, in order: MAKEFLAGS emptied, so it joins no job server;
# the set-up and the system packages, done before the lanes start, are taken as done.)
# One lane, one core: PyTorch and NumPy's BLAS compute on one thread in the lanes' processes
# (OMP_NUM_THREADS=1), as the book's benchmarks and Binder do, instead of a second thread that
# spins on the core the other lane is using.
LANE = MAKEFLAGS= OMP_NUM_THREADS=1 $(MAKE) --no-print-directory -o setup -o system-test -o system-book

lane-book:
	@$(LANE) build-all site-check pdf-check binder-check

lane-binder:
	@$(LANE) unit binder-test instructor-check

# The lock and the package, installed by uv (pip if uv fails; scripts/install_lock.py). No
# bytecode compiled ahead: Python writes it for each module the first time one of make's
# processes imports it (a fifth of the packages' modules), also where the machine's
# environment says PYTHONDONTWRITEBYTECODE, which would make every process compile them again.
unexport PYTHONDONTWRITEBYTECODE
setup: $(STAMP)

$(STAMP): requirements.txt pyproject.toml scripts/install_lock.py
	@$(STAGE) setup -- $(SHELL) -c 'set -e; \
		test -x $(BIN)/python || $(PYTHON) -m venv $(VENV); \
		$(PYTHON) scripts/install_lock.py $(VENV)'
	@touch $@

system-book:
	@scripts/system-packages.sh dot:graphviz

system-test:
	@$(STAGE) system-packages -- scripts/system-packages.sh dot:graphviz chromium:chromium chromedriver:chromium-driver bwrap:bubblewrap npm:npm pdftotext:poppler-utils

# A stage that passed is not run again while nothing it reads has changed: its key is the
# hash of the repository's files, the environment and, for the site check, the built site
# (scripts/passcache.py key STAGE). PASS_CACHE=0 runs every stage.
passkey = --pass-key '$(BIN)/python scripts/passcache.py key $(1)'

# In two runs: the tests that read the book's pages (they name them: passcache.py page-readers)
# in unit-pages, the others in unit, whose key leaves the pages out, so a change of text does
# not run them again. In that run, a test that opens a page fails (tests/conftest.py).
UNIT_MARKS := not site and not binder and not pdf and not instructor
unit: setup system-book
	@readers="$$($(BIN)/python scripts/passcache.py page-readers)"; \
	$(STAGE) unit $(call passkey,unit) -- env UNIT_WITHOUT_PAGES="$$($(BIN)/python scripts/passcache.py pages)" $(BIN)/python -m pytest -m "$(UNIT_MARKS)" -q $$(printf -- ' --ignore=%s' $$readers) && \
	$(STAGE) unit-pages $(call passkey,unit-pages) -- $(BIN)/python -m pytest -m "$(UNIT_MARKS)" -q $$readers

# jupyter-cache re-executes a chapter when the chapter's own code changes, but not
# when code it imports (code/, bench/, seed/) changes: then the cache is dropped.
CODE_HASH = $(shell find code bench seed tests/optable.py -type f -name '*.py' | sort | xargs cat | sha256sum | cut -c1-16)

fresh-cache:
	@mkdir -p _build
	@if [ "$$(cat _build/.code-hash 2>/dev/null)" != "$(CODE_HASH)" ]; then \
		rm -rf _build/.jupyter_cache _build/.doctrees; echo "$(CODE_HASH)" > _build/.code-hash; fi

# Sphinx skips a build with no changed page, and then copies no changed file of _static;
# a changed stylesheet or script (or extension) needs every page rewritten (--all: each
# links it with its checksum). Executions still come from the cache.
STATIC_HASH = $(shell find _static _ext -type f -not -path '*/__pycache__/*' | sort | xargs cat | sha256sum | cut -c1-16)

# Incremental: Sphinx rewrites only changed pages; jupyter-cache re-executes only
# chapters whose code changed.
build: setup system-book fresh-cache
	@if [ "$$(cat _build/.static-hash 2>/dev/null)" != "$(STATIC_HASH)" ]; then all=--all; fi; \
	set -x; $(STAGE) build --cached-if 'test -d _build/.jupyter_cache' -- \
		scripts/build_book.sh $(BIN)/jupyter-book $$all $(JB_STRICT)
	@echo "$(STATIC_HASH)" > _build/.static-hash

# Every page re-read (so every warning is seen again), executions still from the cache.
build-all: setup system-book fresh-cache
	$(STAGE) build-all --cached-if 'test -d _build/.jupyter_cache' $(call passkey,build-all) -- \
		scripts/build_book.sh $(BIN)/jupyter-book --all $(JB_STRICT)

# The test files that use a marker: `pytest -m site` alone would first collect all 12,000
# tests (a minute) to keep 557 of them.
marked = $(shell grep -l 'mark\.$(1)\b' tests/test_*.py)

# The site check's accessibility audit, axe-core, from the npm registry at the version
# package-lock.json pins (npm ci: exactly the lock; no install scripts run).
AXE := node_modules/axe-core/axe.min.js
$(AXE): package.json package-lock.json
	@scripts/system-packages.sh npm:npm
	npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
	@touch $@

site-check: setup system-test $(AXE)
	$(STAGE) site-check $(call passkey,site-check) -- $(BIN)/python -m pytest -m site -q $(call marked,site)

# The book as two PDFs, printed from the built site by headless Chromium (scripts/book_pdf.py):
# book-instructor.pdf with every solution open, book-student.pdf without any, in _build/pdf.
# Each page reprinted only when its content hash changed (_build/pdf/pages).
pdf: setup system-test
	@test -f $(HTML)/index.html || { echo "No built site in $(HTML): run make book first." >&2; exit 1; }
	$(BIN)/python scripts/book_pdf.py

# Builds the PDFs first unless they were made from the site as it is, reprinting only the
# pages whose content hash changed, then reads them back (tests/test_pdf.py). Not run again
# when it passed on the same PDFs with the same test (book_pdf.py --check-key).
pdf-check: setup system-test
	$(STAGE) pdf-check --pass-key '$(BIN)/python scripts/book_pdf.py --check-key' -- \
		$(BIN)/python -m pytest -m pdf -q tests/test_pdf.py

# The student edition (scripts/student_edition.py): every task of tests/tasks.py a stub that
# names it, the chapters without solutions, the tests, a README for students.
student: setup
	$(BIN)/python scripts/student_edition.py _build/student

# A student's folder graded with the book's task tests, on its own code, in a sandbox
# (bubblewrap: no repository, no network, time limits; scripts/grade.py): a table per task,
# "total: N / M points", and _build/grades/<folder>.json and .csv.
grade: setup
	@test -n "$(SUBMISSION)$(SUBMISSIONS)" || { echo "usage: make grade SUBMISSION=path | SUBMISSIONS=folder [CHAPTER=N] [TESTS=folder]" >&2; exit 2; }
	@scripts/system-packages.sh bwrap:bubblewrap
	$(BIN)/python scripts/grade.py $(if $(SUBMISSIONS),--submissions "$(SUBMISSIONS)","$(SUBMISSION)") $(if $(CHAPTER),--chapter $(CHAPTER)) $(if $(TESTS),--tests "$(TESTS)")

# Chapters stand alone (the package cut after each chapter passes its tests), the student
# edition leaks no solution and fails every task with its own message, the grader scores
# the reference, the edition and a wrong submission as it should.
# Each check runs pytest in its own process on its own copy: INSTRUCTOR_JOBS of them at once
# (pytest-xdist): 3 on this 2-core machine, so that while one waits out a grader's time limit
# (a submission that hangs) the other two keep both cores busy. Each process (and PyTorch in
# it) on one thread: three workers already share two cores, and PyTorch's second thread only
# spun waiting for work (45 s of CPU of 296 here, 22 s of the stage's 155).
INSTRUCTOR_JOBS ?= 3
instructor-check: setup
	@scripts/system-packages.sh bwrap:bubblewrap
	$(STAGE) instructor-check $(call passkey,instructor-check) -- env OMP_NUM_THREADS=1 $(BIN)/python -m pytest -m instructor -q -n $(INSTRUCTOR_JOBS) tests/test_student_edition.py

# Every test of chapters 2 to N on the snapshot after chapter N, for every N (a few
# minutes; not part of make test, which runs chapter N's tests on snapshot N).
check-snapshots: setup
	$(BIN)/python scripts/snapshot.py --test

# Binder without Docker (scripts/binder_sim.py): an environment from binder/ alone in
# .binder-sim/venv (built once, a few minutes; rebuilt when binder/ changes), postBuild, then
# every student notebook executed on one CPU with time and memory budgets.
binder-test: setup
	$(STAGE) binder-test --cached-if 'cd scripts && ../$(BIN)/python -c "import sys, binder_sim as b; s = b.VENV / \".binder-sim-key\"; sys.exit(not (s.exists() and s.read_text() == b.env_key()))"' $(call passkey,binder-test) -- \
		$(BIN)/python -m pytest -m binder -q $(call marked,binder)

# JupyterLab from that environment, chapter 4 open in headless Chromium: the engine's code
# shown, solutions collapsed; screenshot in .binder-sim/lab-ch04.png.
binder-check: setup system-test
	$(STAGE) binder-check $(call passkey,binder-check) -- $(BIN)/python scripts/binder_lab_check.py

lock:
	rm -rf /tmp/toygrad-lock-venv
	$(PYTHON) -m venv /tmp/toygrad-lock-venv
	/tmp/toygrad-lock-venv/bin/pip install --quiet -r requirements.in
	{ sed -n '1,3p' requirements.txt; /tmp/toygrad-lock-venv/bin/pip freeze; } > requirements.txt.new
	mv requirements.txt.new requirements.txt

clean:
	rm -rf $(HTML) _build/jupyter_execute _build/.doctrees
