"""Fail when a line of the generated modules is over 120 characters.

ruff checks the code where it is written, in the notebooks. The modules add two things of their own: the module
docstring (from the notebook's `> description` line) and nbdev's `__all__`, which nbdev 3 wraps at 120 characters
after its `__all__ = ` prefix and cannot be told otherwise. This check holds the first to 120 and lets the second be.
"""
import sys
from pathlib import Path

LIMIT = 120

def long_lines(folder='memgate'):
    "`file:line: length` of every line over LIMIT in the modules under `folder`, nbdev's own files and lines aside."
    for f in sorted(Path(folder).glob('*.py')):
        if f.name == '_modidx.py': continue
        for i, line in enumerate(f.read_text(encoding='utf-8').splitlines(), 1):
            if len(line) > LIMIT and not line.startswith('__all__ = ['): yield f"{f}:{i}: {len(line)} characters"

if __name__ == '__main__':
    bad = list(long_lines(*sys.argv[1:]))
    print(*bad, sep='\n')
    sys.exit(f"{len(bad)} lines over {LIMIT} characters" if bad else 0)
