"""Make the committed run logs under fixtures/runs/ (the analysis notebooks' data) with a real `memgate ingest`.

    python tests/make_fixture_runs.py

Runs the installed `memgate ingest` over the real sessions in fixtures/transcripts/:
- fixtures/runs/scripted/: every shipped query against the scripted OpenAI-compatible server of the tests,
  driven by `selective_gate` below (a deterministic stand-in for a model: a gate that opens on strong
  evidence, parse failures, budget overflows and exit-gate signals included, so every plot has something to show);
- fixtures/runs/baseline/: the same queries with the offline keyword baseline;
- fixtures/recordings/scripted-infra.jsonl: a recording of the first 8 turns of infra-root-causes,
  which the tuner notebook replays;
- fixtures/ablation/{gated,ungated}/: infra-root-causes with `rewriting_gate` (a model that, like MemAgent's,
  rewrites its candidate on every chunk but says yes only on strong evidence), with the update gate on and off.
  `python tests/make_fixture_runs.py ablation` makes only these.
- fixtures/pregated/: infra-root-causes read again with a pregate fitted on a scripted run's log, at recall 0.5
  and δ 0.5 (the 31 bundled chunks certify no more), so that some chunks are skipped: the views' examples of
  skipped turns. `python tests/make_fixture_runs.py pregated` makes only these.
The logs are data: regenerate them only on purpose, then re-run the analysis notebooks.
"""
import os, shutil, subprocess, sys, tempfile, time, threading
from pathlib import Path
from memgate.testing import FakeServer
from memgate.parser import gate_response
from memgate.prompt import prompt_parts
from memgate.domain import count_tokens, sha256_text
from memgate.domain import templates_dir
from memgate.queries import load_queries

ROOT = Path(__file__).resolve().parent.parent
LATENCY = True                                                # tests/same_logs.py turns the sleep off
KEYWORDS = {q.question: q.keywords for q in load_queries(templates_dir() / 'queries.toml').values()}
seen = {}
lock = threading.Lock()

def selective_gate(prompt: str) -> str:
    question = prompt[prompt.index('<problem> ') + 10:prompt.index(' </problem>')]
    memory, section = prompt_parts(prompt)
    key = sha256_text(prompt)
    byte = int(key[:2], 16)
    with lock: attempt = seen[key] = seen.get(key, 0) + 1
    if LATENCY: time.sleep(0.05 + byte / 255 * 0.3)          # a latency that varies by prompt
    if byte < 12 or (byte < 28 and attempt == 1): return "Sure! This section looks relevant to the problem."
    prev = '' if memory == 'No previous memory' else memory
    words = [k for k in KEYWORDS.get(question, ()) if k.lower() in section.lower()]
    hit = lambda line: any(k.lower() in line.lower() for k in words) and len(line.strip()) > 20
    lines = [l.strip()[:220] for l in section.splitlines() if hit(l)]
    enough = count_tokens(prev) > 700
    if len(words) < 3 or not lines:
        return gate_response(False, prev or 'No previous memory', exit=enough,
                             think=f"only {len(words)} signals; nothing new for the question")
    new = (prev + '\n' if prev else '') + '\n'.join(f'- {l}' for l in lines[:3])
    return gate_response(True, new, exit=enough, think=f"found {', '.join(words[:4])}: worth keeping")

def rewriting_gate(prompt: str) -> str:
    "Always folds the chunk's keyword lines into the candidate; <check>yes only with 3+ keyword signals."
    question = prompt[prompt.index('<problem> ') + 10:prompt.index(' </problem>')]
    memory, section = prompt_parts(prompt)
    prev = '' if memory == 'No previous memory' else memory
    words = [k for k in KEYWORDS.get(question, ()) if k.lower() in section.lower()]
    lines = [l.strip()[:160] for l in section.splitlines() if any(k.lower() in l.lower() for k in words)
             and len(l.strip()) > 20]
    new = (prev + '\n' if prev else '') + '\n'.join(f'- {l}' for l in lines[:2]) if lines else prev
    return gate_response(len(words) >= 3 and bool(lines), new or 'No previous memory', think=f"{len(words)} signals")

def ablation(root: Path):
    "The gated and ungated runs of `rewriting_gate` over infra-root-causes."
    shutil.rmtree(root, ignore_errors=True)
    with FakeServer(gate=rewriting_gate, models=('rewriting-gate',)) as s:
        for mode in ('on', 'off'):
            ingest('--base-url', s.url, '--model', 'rewriting-gate', '--query', 'infra-root-causes', '--gate', mode,
                   '--log-dir', str(root / ('gated' if mode == 'on' else 'ungated')))

def pregated(root: Path):
    "infra-root-causes read without a pregate, then with one fitted on that log: chunks it scores low are skipped."
    shutil.rmtree(root, ignore_errors=True)
    seen.clear()                      # the runs before asked other prompts, or these
    with tempfile.TemporaryDirectory() as tmp, FakeServer(gate=selective_gate, models=('scripted-gate',)) as s:
        run = ('--base-url', s.url, '--model', 'scripted-gate', '--query', 'infra-root-causes')
        ingest(*run, '--log-dir', tmp)
        scorer = str(Path(tmp) / 'scorer.json')
        memgate('pregate', 'fit', str(Path(tmp) / 'transcripts' / 'infra-root-causes.jsonl'),
                '--project', str(ROOT / 'fixtures' / 'transcripts'), '--out', scorer)
        seen.clear()                  # the model answers the second run as it did the first
        ingest(*run, '--pregate', scorer, '--recall', '0.5', '--delta', '0.5', '--audit-seed', '1',
               '--log-dir', str(root))

def memgate(*args, **env):
    cmd = [sys.executable, '-m', 'memgate.cli', *args]
    r = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, **env})
    print(r.stdout, r.stderr.splitlines()[-1] if r.stderr else '')
    assert r.returncode == 0, r.stderr

def ingest(*args, **env):
    memgate('ingest', '--project', str(ROOT / 'fixtures' / 'transcripts'), *args, **env)

if __name__ == '__main__':
    if sys.argv[1:] == ['ablation']: sys.exit(ablation(ROOT / 'fixtures' / 'ablation'))
    if sys.argv[1:] == ['pregated']: sys.exit(pregated(ROOT / 'fixtures' / 'pregated'))
    runs, rec = ROOT / 'fixtures' / 'runs', ROOT / 'fixtures' / 'recordings'
    shutil.rmtree(runs, ignore_errors=True)
    shutil.rmtree(rec, ignore_errors=True)
    rec.mkdir(parents=True)
    with FakeServer(gate=selective_gate, models=('scripted-gate',)) as s:
        ingest('--base-url', s.url, '--model', 'scripted-gate', '--log-dir', str(runs / 'scripted'))
        seen.clear()
        ingest('--base-url', s.url, '--model', 'scripted-gate', '--query', 'infra-root-causes', '--limit', '8',
               '--log-dir', str(rec / 'runs'), MEMGATE_RECORD=str(rec / 'scripted-infra.jsonl'))
        shutil.rmtree(rec / 'runs')
    ingest('--model', 'keyword-baseline', '--log-dir', str(runs / 'baseline'))
    ablation(ROOT / 'fixtures' / 'ablation')
    pregated(ROOT / 'fixtures' / 'pregated')
