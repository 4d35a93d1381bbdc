# memgate's developer commands. `make test` is the one test command (README, .ci/run).
.PHONY: test lint test-nbs test-py sync-check docs preview analysis-nbs outputs readme

test: lint test-nbs test-py

# The house style (rules in pyproject.toml): pyflakes, lines within 120, no statements chained with `;`.
LINTED = nbs memgate tests tools bench conftest.py
lint:
	ruff check $(LINTED)
	python tools/line_length.py

# Every notebook's cells (the module notebooks are the library's documentation and unit tests).
test-nbs:
	nbdev-test

# Integration tests, and the analysis notebooks' stored outputs checked with nbval (see conftest.py), a process
# per core; a file's tests stay in one process (a notebook's cells share one kernel).
ANALYSIS_NBS = nbs/20_gate_discriminating.ipynb nbs/21_tuning.ipynb nbs/22_memory_growth.ipynb nbs/23_what_the_run_learned.ipynb \
               nbs/24_gate_quality.ipynb nbs/25_cheap_gate.ipynb
test-py:
	python -m pytest tests $(ANALYSIS_NBS) --nbval --nbval-current-env -q -n auto --dist loadfile

# Fails when nbdev-clean or nbdev-export would change a tracked file.
sync-check:
	nbdev-clean
	nbdev-export
	@git diff --exit-code --stat || { echo "notebooks and library out of sync: run nbdev-clean and nbdev-export, then commit"; exit 1; }
	@test -z "$$(git status --porcelain --untracked-files=normal memgate nbs)" || { git status --short memgate nbs; echo "untracked generated files: commit them"; exit 1; }
	python tools/readme.py --check

# README.md is generated from nbs/index.ipynb (nbdev-readme does the same through Quarto).
readme:
	python tools/readme.py

# The documentation site, into _docs/: with Quarto on the PATH as nbdev builds it (nbdev-docs), else the same pages
# from nbdev's processed notebooks rendered by Sphinx + MyST-NB (tools/docs.py). Either way, processing errors and
# Sphinx warnings fail it, and then every internal link is checked and no page may load anything from the network.
docs:
	@if command -v quarto >/dev/null 2>&1; then nbdev-docs && python tools/docs.py --check-only; \
	else python tools/docs.py --check; fi

# Serve _docs/ on http://127.0.0.1:8000 (nbdev-preview re-renders as you edit, where Quarto is installed).
PORT ?= 8000
preview:
	@if command -v quarto >/dev/null 2>&1; then nbdev-preview; \
	else test -f _docs/index.html || $(MAKE) docs; python -m http.server $(PORT) --bind 127.0.0.1 --directory _docs; fi

# Re-run the module notebooks (00-18: each has a module) as nbdev-test does and keep their outputs, so the docs show values under the
# examples. nbdev-clean keeps outputs (it drops execution counts and metadata), so the sync check still holds.
outputs:
	nbdev-test --save --file-re '^[01][0-9][a-z]?_'
	nbdev-clean
	nbdev-export

# Re-run the analysis notebooks in place after changing fixtures/runs or the analysis module, keeping outputs.
analysis-nbs:
	cd nbs && for nb in $(notdir $(ANALYSIS_NBS)); do jupyter nbconvert --to notebook --execute --inplace $$nb; done
	nbdev-clean
