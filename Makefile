# The course's one front door. `make course` and `make test` set up .venv themselves.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: setup course release grade test lint lab lock clean

# (Re)install when the lock or the project metadata changes; otherwise reuse the environment.
$(STAMP): requirements.txt pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	@touch $@

setup: $(STAMP)

## Execute every lesson into build/ (HTML, executed notebooks, figures) and write build/index.html.
course: release
	$(BIN)/python -m builder --out build

## Regenerate the student versions in release/ from source/ (nbgrader generate_assignment).
release: $(STAMP)
	$(BIN)/python -m grading.release

## Grade submitted/<student>/<assignment>/ in sandboxes: autograded/, feedback/, build/grades.csv, build/grading/.
ASSIGNMENT ?= multihead
grade: $(STAMP)
	$(BIN)/python -m grading --assignment $(ASSIGNMENT) $(if $(STUDENT),--student $(STUDENT))

## Run the whole test suite, notebook executions included (as root it also installs Debian's Chromium
## for the browser tests; elsewhere those tests skip with the reason).
test: $(STAMP)
	@{ command -v chromium >/dev/null && fc-list | grep -qi "noto color emoji"; } || { if [ "$$(id -u)" = 0 ]; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-noto-color-emoji >/dev/null; \
	  else echo "chromium topilmadi: brauzer testlari o'tkazib yuboriladi (sudo apt-get install chromium)"; fi; }
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check helpers builder grading bench tests notebooks source

## JupyterLab for a student, on localhost only, with Jupyter's token.
lab: $(STAMP)
	$(BIN)/jupyter lab --ip=127.0.0.1 --no-browser --ServerApp.root_dir=$(CURDIR)

## Re-resolve requirements.in in a scratch venv and rewrite the lock.
lock:
	rm -rf build/lock-venv && $(PYTHON) -m venv build/lock-venv
	build/lock-venv/bin/python -m pip install --quiet -r requirements.in
	{ echo "# Exact versions for Python 3.11 (CPU). Made from requirements.in by 'make lock'; environment.yml reads this file."; \
	  build/lock-venv/bin/python -m pip freeze --exclude-editable | sed 's/^torch==\(.*\)+cpu$$/torch==\1/'; } > requirements.txt
	rm -rf build/lock-venv

clean:
	rm -rf build
