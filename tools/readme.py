"""Write README.md from nbs/index.ipynb, the landing page of the docs site and the README's source.

`nbdev-readme` does this through Quarto; this script does the same for machines without Quarto:
markdown cells verbatim, visible code cells as fenced Python blocks. `make readme` runs it, and
`make sync-check` (run by .ci/run) calls it with `--check`, which fails when README.md and the notebook
drift apart.
"""
import json, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

def render(nb_path=ROOT / 'nbs' / 'index.ipynb') -> str:
    parts = []
    for cell in json.loads(Path(nb_path).read_text(encoding='utf-8'))['cells']:
        src = ''.join(cell['source']).strip('\n')
        if not src or src.lstrip().startswith('#| hide'): continue
        # the notebook's images are in nbs/: the README is read from the repository's root
        if cell['cell_type'] == 'markdown': src = src.replace('](images/', '](nbs/images/')
        parts.append(src if cell['cell_type'] == 'markdown' else f'```python\n{src}\n```')
    return '\n\n'.join(parts) + '\n'

if __name__ == '__main__':
    out = ROOT / 'README.md'
    text = render()
    if '--check' in sys.argv:
        sys.exit(0 if out.read_text(encoding='utf-8') == text else 'README.md is out of date: run make readme')
    out.write_text(text, encoding='utf-8')
    print('wrote', out)
