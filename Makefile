# memgate's developer commands. `make test` is the one test command (README, .ci/run).
.PHONY: test test-nbs test-py test-nbval sync-check docs preview

test: test-nbs test-py

# Every notebook's cells (the module notebooks are the library's documentation and unit tests).
test-nbs:
	nbdev-test

# Integration tests and, where analysis notebooks exist, their stored outputs checked with nbval.
test-py:
	python -m pytest tests $(wildcard nbs/2*_*.ipynb) -q

# Fails when nbdev-clean or nbdev-export would change a tracked file.
sync-check:
	nbdev-clean
	nbdev-export
	@git diff --exit-code --stat || { echo "notebooks and library out of sync: run nbdev-clean and nbdev-export, then commit"; exit 1; }
	@test -z "$$(git status --porcelain --untracked-files=normal memgate nbs)" || { git status --short memgate nbs; echo "untracked generated files: commit them"; exit 1; }

# The documentation site needs Quarto (https://quarto.org), which this project cannot install for you.
docs:
	@if command -v quarto >/dev/null 2>&1; then nbdev-docs; else echo "docs: skipped, quarto is not on the PATH (install it from quarto.org, then run make docs)"; fi

preview:
	@if command -v quarto >/dev/null 2>&1; then nbdev-preview; else echo "preview: skipped, quarto is not on the PATH"; fi
