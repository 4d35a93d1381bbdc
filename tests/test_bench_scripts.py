"The bench scripts say what they write and leave nothing behind (issue 25: load_runs left 181 MB unannounced)."
import subprocess, sys
from pathlib import Path
from conftest import ROOT
from helpers import clean_env

def test_load_runs_says_what_it_writes_and_removes_it(tmp_path):
    r = subprocess.run([sys.executable, ROOT / 'bench' / 'load_runs.py', '--logs', '2', '--turns', '5'],
                       capture_output=True, text=True, timeout=120, env=clean_env(TMPDIR=str(tmp_path)))
    assert r.returncode == 0, r.stderr
    first, *rest = r.stdout.splitlines()
    assert first.startswith('writing 2 logs x 5 turns (about 0 MB) into ') and first.endswith(', removed at the end')
    folder = Path(first.split(' into ')[1].removesuffix(', removed at the end'))
    assert folder.parent == tmp_path and not folder.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith('memgate-bench-')]
    assert rest[0].startswith('  2/2 logs written, ')
    assert rest[-1].startswith('load_runs: 18 events, 10 turns, 2 runs in ')

def test_the_sigint_bench_counts_each_try_once_and_leaves_nothing(tmp_path):
    r = subprocess.run([sys.executable, ROOT / 'bench' / 'sigint.py', '--tries', '3', '--seed', '1'],
                       capture_output=True, text=True, timeout=300, env=clean_env(TMPDIR=str(tmp_path)))
    assert r.returncode == 0, r.stderr
    head, *rows = r.stdout.splitlines()
    assert head.startswith("3 tries, SIGINT at a random instant of the first 1 s after memgate's entry point ran "
                           "(seed 1), ")
    counts = {row.split()[0]: int(row.split()[1]) for row in rows[:6]}
    assert list(counts) == ['clean', 'ignored', 'noisy', 'killed', 'other', 'late'], r.stdout
    assert counts['clean'] + counts['late'] == 3 and rows[6:] == [], r.stdout     # none of another kind to show
    assert not [p for p in tmp_path.iterdir() if p.name.startswith('memgate-bench-')]
