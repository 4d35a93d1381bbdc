"The analysis notebooks keep their outputs, and nbval catches a changed one."
import json, shutil, subprocess, sys
from pathlib import Path
ROOT = Path(__file__).resolve().parent.parent
ANALYSIS = ['20_gate_discriminating.ipynb', '22_memory_growth.ipynb', '23_what_the_run_learned.ipynb']

def test_analysis_notebooks_keep_outputs_and_are_clean():
    for name in ANALYSIS:
        nb = json.loads((ROOT / 'nbs' / name).read_text())
        code = [c for c in nb['cells'] if c['cell_type'] == 'code']
        assert sum(bool(c['outputs']) for c in code) >= len(code) - 2, name
        assert all(c['execution_count'] is None for c in code), f'{name}: run nbdev-clean'

def nbval(tmp_path, nb):
    "Run nbval on a copy of a notebook in a tree that mirrors the repo (so '../fixtures' resolves)."
    (tmp_path / 'nbs').mkdir()
    (tmp_path / 'fixtures').symlink_to(ROOT / 'fixtures')
    shutil.copy(ROOT / 'conftest.py', tmp_path / 'conftest.py')
    (tmp_path / 'nbs' / 'x.ipynb').write_text(json.dumps(nb))
    return subprocess.run([sys.executable, '-m', 'pytest', '--nbval', '--nbval-current-env', '-p', 'no:cacheprovider',
                           '-q', 'nbs/x.ipynb'],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)

def test_nbval_fails_when_a_stored_output_changes(tmp_path):
    nb = json.loads((ROOT / 'nbs' / '23_what_the_run_learned.ipynb').read_text())
    (tmp_path / 'a').mkdir()
    ok = nbval(tmp_path / 'a', nb)
    assert ok.returncode == 0, ok.stdout[-2000:]
    printed = lambda c: c['cell_type'] == 'code' and any(o.get('name') == 'stdout' for o in c['outputs'])
    cell = next(filter(printed, nb['cells']))
    out = next(o for o in cell['outputs'] if o.get('name') == 'stdout')
    out['text'] = ''.join(out['text']).rstrip('\n') + ' (changed)\n'
    (tmp_path / 'b').mkdir()
    bad = nbval(tmp_path / 'b', nb)
    assert bad.returncode == 1 and '1 failed' in bad.stdout

def test_the_tuning_page_keeps_a_stored_run_of_the_tuner():
    "The docs' tuning page showed code only: its notebook stored no outputs (issue 25)."
    nb = json.loads((ROOT / 'nbs' / '21_tuning.ipynb').read_text())
    out = [o for c in nb['cells'] if c['cell_type'] == 'code' for o in c['outputs']]
    text = ''.join(''.join(o.get('text', '')) for o in out)
    html = ''.join(''.join(o.get('data', {}).get('text/html', '')) for o in out)
    assert 'complete: 8 turns, 4 updates (update-rate 50%)' in text and 'saved infra-root-causes to ' in text
    assert html.count('t=') >= 8, html[:500]            # the turns view: one row per turn
    # stable outputs: no temporary path, so nbval checks it with the analysis notebooks (issue 41)
    assert '/tmp' not in text + html and 'saved infra-root-causes to _scratch-tuning/queries.toml' in text
    assert 'nbs/21_tuning.ipynb' in (ROOT / 'Makefile').read_text().split('ANALYSIS_NBS =')[1].split('test-py:')[0]

def test_no_notebook_leaves_a_temporary_folder_behind():
    "Each notebook run left tmp* folders: a folder a notebook makes is a TemporaryDirectory, removed when it ends."
    for nb in sorted((ROOT / 'nbs').glob('*.ipynb')):
        code = ''.join(''.join(c['source']) for c in json.loads(nb.read_text())['cells'] if c['cell_type'] == 'code')
        assert 'mkdtemp(' not in code.replace('mkdtemp(dir=scratch', ''), nb.name
