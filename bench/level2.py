"""Incidents a person can still read after a year of sessions: one memory over everything, against a memory per month
and their consolidation at level 2.

    python bench/level2.py                 # 12 months, 240 planted incidents, in a temporary folder removed after

The project is synthetic (`tests/synth.py`): Claude Code sessions spread over the months, each incident a unique id
with a cause and a fix, among log noise. The model is the scripted server on 127.0.0.1 with a careful model's habits
(`memgate.testing.incident_gate`): at level 1 it writes every incident it reads into memory as one line (the budget
refuses what is over, as it refuses a real model's); at level 2 it merges period memories line by line while the
memory stays within its budget. "Reachable" counts the incidents present in some memory `memgate mcp` lists (and
`memgate show` prints): the one memory of the plain run; the period memories and the level-2 memory of the other.
"""
import argparse, re, sys, tempfile
from pathlib import Path
from common import ROOT, FakeServer, memgate_cmd, run_child
sys.path.insert(0, str(ROOT / 'tests'))
from synth import incident_project  # noqa: E402
from memgate.recall import memories  # noqa: E402
from memgate.log import stats  # noqa: E402
from memgate.testing import incident_gate  # noqa: E402

QUESTION = '[incidents]\nquestion = "Which incidents happened, and for each its cause and fix?"\n'

def level_aware(prompt: str) -> str:
    "Level 1: every incident read goes into memory; level 2: merged while within the budget."
    return incident_gate(prompt, 1024 if '[Memory of period ' in prompt else None)

def ids(text: str | None) -> set[str]: return set(re.findall(r'INC-\d{4}', text or ''))

def run(server, proj: Path, logs: Path, queries: Path, *args) -> None:
    wall, _, code, err = run_child(memgate_cmd('ingest', '--project', proj, '--queries', queries, '--base-url',
                                               server.url, '--model', 'test-model', '--log-dir', logs, '--quiet',
                                               *args))
    assert code == 0, err

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--months', type=int, default=12)
    ap.add_argument('--incidents', type=int, default=240)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix='memgate-level2-') as d:
        d = Path(d)
        print(f"working in {d} (removed at the end)")
        proj = incident_project(d / 'home', args.months, args.incidents)
        queries = d / 'queries.toml'
        queries.write_text(QUESTION)
        planted = {f'INC-{i:04d}' for i in range(args.incidents)}
        with FakeServer(gate=level_aware) as s:
            run(s, proj, d / 'one', queries)
            one_calls = len(s.requests)
            run(s, proj, d / 'monthly', queries, '--period', 'month')
            period_calls = len(s.requests) - one_calls
            run(s, proj, d / 'monthly', queries, '--consolidate', '--period', 'month', '--resume')
            l2_calls = len(s.requests) - one_calls - period_calls
        one = memories(d / 'one')
        monthly = memories(d / 'monthly')
        top = [m for m in monthly if m['level'] == 2]
        refused = lambda ms: sum(stats(m['log']).budget_exceeded for m in ms)
        reach_one = ids(' '.join(m['memory'] or '' for m in one)) & planted
        reach_monthly = ids(' '.join(m['memory'] or '' for m in monthly)) & planted
        print(f"{len(planted)} incidents planted over {args.months} months, {len(list(proj.glob('*.jsonl')))} "
              f"sessions ({sum(p.stat().st_size for p in proj.glob('*.jsonl')) / 2**20:.1f} MB)")
        print(f"one level-1 run over everything: {len(reach_one)} reachable ({len(reach_one) / len(planted):.0%}), "
              f"{refused(one)} updates refused for the budget, {one_calls} model calls")
        print(f"--period month + level 2: {len(reach_monthly)} reachable ({len(reach_monthly) / len(planted):.0%}) "
              f"in {len(monthly) - len(top)} period memories and the level-2 memory; the level-2 memory alone holds "
              f"{len(ids(top[0]['memory']) & planted)}; {refused(monthly)} updates refused for the budget; "
              f"{period_calls} calls at level 1, {l2_calls} added by level 2")
        print(f"ratio: {len(reach_monthly) / max(1, len(reach_one)):.1f}x the incidents reachable, for "
              f"{(period_calls + l2_calls) / one_calls:.2f}x the model calls")

if __name__ == '__main__': main()
