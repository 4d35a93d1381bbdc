"""A team's year by month against a server of S slots: periods read at once keep the slots busy (issue 52).

    python bench/periods_at_once.py                  # 12 months x 4 queries, at S = 1, 8 and 32

The project is synthetic (`tests/synth.py`): 12 months of Claude Code sessions. The model is the scripted server on
127.0.0.1, modelling continuous batching: S requests decode at once, each for a time that grows with its prompt
(`BASE_S` plus `PER_KB_S` per KB), and more wait. It says its slots as llama.cpp does (`/props` `total_slots`), so
memgate's defaults follow them: requests in flight up to S, and `--parallel` three times S over the queries.

The ideal is max(total turn time / S, the longest chain of sequential turns): a run's turns (a query over a period)
are sequential, and nothing is faster than the server's slots all busy. Wall is the span from the first request's
arrival to the last answer, and the whole run's time beside it. The logs of each S are compared with those of one
period at a time (`--parallel 1`), but for ids and times. `--speculate` is left at 1: no ask is discarded.
"""
import argparse, json, shutil, sys, tempfile
from pathlib import Path
from common import ROOT, FakeServer, memgate_cmd, run_child
sys.path.insert(0, str(ROOT / 'tests'))
from synth import incident_project  # noqa: E402
from same_logs import normalised  # noqa: E402
from memgate.testing import incident_gate  # noqa: E402

BASE_S, PER_KB_S = 0.02, 0.002
QUERIES = ''.join(f'[q{i}]\nquestion = "Which incidents of kind {i} happened, with cause and fix?"\n' for i in range(4))

def turn_s(body: dict) -> float:
    "How long the scripted server decodes a request: longer for a longer prompt."
    return BASE_S + PER_KB_S * len(body['messages'][-1]['content']) / 1024

def run(proj: Path, out: Path, queries: Path, slots: int, *extra) -> dict:
    "One run by month against a server of `slots`: its wall, the turns' times, and its runs' chains."
    props = dict(default_generation_settings=dict(n_ctx=32768), total_slots=slots)
    with FakeServer(gate=lambda p: incident_gate(p), latency=turn_s, slots=slots, props=props) as s:
        wall, _, code, err = run_child(memgate_cmd('ingest', '--project', proj, '--queries', queries, '--base-url',
                                                   s.url, '--model', 'test-model', '--period', 'month',
                                                   '--log-dir', out, '--quiet', *extra))
        assert code == 0, err
        # each request's time decoding (its slot's), by the run it belongs to
        took = [w['end'] - w['start'] for w in s.work if w['status'] == 'answered']
        span = max(w['end'] for w in s.work) - min(s.arrivals)
    return dict(wall=wall, span=span, total=sum(took), turns=len(took), most=s.most_busy)

def chain_s(out: Path) -> float:
    "The longest chain of sequential turns: the largest sum of one log's turns' times, less their wait for a slot."
    longest = 0.0
    for log in out.rglob('*.jsonl'):
        events = [json.loads(line) for line in log.read_text().splitlines()]
        longest = max(longest, sum(e.get('latency_s', 0.0) - e.get('queue_s', 0.0)
                                   for e in events if e.get('kind') == 'turn'))
    return longest

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--slots', type=int, nargs='+', default=[1, 8, 32])
    ap.add_argument('--incidents', type=int, default=96)
    ap.add_argument('--parallel', help='periods at once (default: memgate\'s, from the slots)')
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp())
    try:
        proj = incident_project(tmp / 'home', months=12, incidents=args.incidents, per_session=2, filler=2)
        queries = tmp / 'queries.toml'
        queries.write_text(QUERIES)
        print(f"12 months x 4 queries; a turn decodes {BASE_S * 1000:.0f} ms + {PER_KB_S * 1000:.0f} ms per KB "
              "of prompt")
        for slots in args.slots:
            out, one = tmp / f's{slots}', tmp / f'one{slots}'
            run(proj, one, queries, slots, '--parallel', '1')
            r = run(proj, out, queries, slots, *(('--parallel', args.parallel) if args.parallel else ()))
            ideal = max(r['total'] / slots, chain_s(out))
            # (each log as one period at a time writes it, against the same server)
            same = normalised(out, tmp / f's{slots}') == normalised(one, tmp / f'one{slots}')
            print(f"S={slots:>2}: {r['turns']} turns, {r['total']:.1f} s of decoding; ideal {ideal:.2f} s; "
                  f"requests from first to last {r['span']:.2f} s = {r['span'] / ideal:.2f}x the ideal "
                  f"(whole run {r['wall']:.2f} s); at most {r['most']} decoding at once; "
                  f"logs {'equal' if same else 'DIFFER from'} the sequential run's")
    finally: shutil.rmtree(tmp)

if __name__ == '__main__': main()
