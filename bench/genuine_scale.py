"""The bundled genuine sessions copied until a project is N MB, each copy's texts made its own: what reading
real sessions costs, where the synthetic projects repeat their texts (and so find each one's secrets once).

    python bench/genuine_scale.py 20          # a 20 MB project: the first request, cold and warm; `memgate chunks`

Each copy of `fixtures/transcripts` gets new session ids and a `[copy K]` mark before every long text, so no text
is the same as another copy's. "Cold" runs with an empty cache (`XDG_CACHE_HOME` in a new folder): the project's
secrets are found before the first request, in every file. "Warm" runs again with that cache: only the lines
that held values are read again before it.
"""
import argparse, json, os, random, shutil, sys, tempfile, time, uuid
from pathlib import Path
from common import ROOT, WORK, FakeServer, cores, memgate_cmd, run_child

def marked(obj, k: int):
    "`obj` (a session line) with each text of 20 characters or more starting `[copy k] `."
    if isinstance(obj, dict): return {key: marked(v, k) for key, v in obj.items()}
    if isinstance(obj, list): return [marked(v, k) for v in obj]
    return f"[copy {k}] {obj}" if isinstance(obj, str) and len(obj) > 20 and ' ' in obj else obj

def build(target: Path, mb: float) -> Path:
    "A project of about `mb` MB of copies of the bundled sessions (built once, then reused)."
    if (target / 'done').exists(): return target
    shutil.rmtree(target, ignore_errors=True)
    files, size, k = sorted((ROOT / 'fixtures' / 'transcripts').rglob('*.jsonl')), 0, 0
    while size < mb * 2**20:
        for f in files:
            sid = str(uuid.UUID(int=random.Random(f"{f.name}{k}").getrandbits(128)))
            out = target / f.parent.name / f"{f.stem}-{k}.jsonl"
            out.parent.mkdir(parents=True, exist_ok=True)
            lines = []
            for line in f.read_text().splitlines():
                try: obj = json.loads(line)
                except ValueError: continue
                if 'sessionId' in obj: obj['sessionId'] = sid
                lines.append(json.dumps(marked(obj, k), ensure_ascii=False))
            out.write_text('\n'.join(lines) + '\n')
            size += out.stat().st_size
        k += 1
    (target / 'done').write_text('')
    return target

def first_request(proj: Path, env: dict) -> float:
    "Seconds from starting `memgate ingest` to its first model request."
    out = Path(tempfile.mkdtemp())
    with FakeServer(latency=0.1) as s:
        start = time.monotonic()
        _, _, code, err = run_child(memgate_cmd('ingest', '--project', proj, '--base-url', s.url, '--model',
                                                'test-model', '--limit', '1', '--log-dir', out, '--quiet'), env=env)
        first = s.arrivals[0] - start if s.arrivals else float('nan')
    shutil.rmtree(out)
    assert code == 0, err
    return first

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('mb', nargs='?', type=float, default=20)
    args = ap.parse_args()
    proj = build(WORK / f'genuine-{args.mb:g}mb', args.mb)
    cache = Path(tempfile.mkdtemp())
    env = dict(os.environ, XDG_CACHE_HOME=str(cache))
    cold, warm = first_request(proj, env), first_request(proj, env)
    shutil.rmtree(cache)
    chunks = []
    for _ in ('cold', 'warm'):
        wall, rss, code, err = run_child(memgate_cmd('chunks', '--project', proj), env=env)
        assert code == 0, err
        chunks.append((wall, rss))
    shutil.rmtree(cache, ignore_errors=True)
    print(f"{args.mb:g} MB of genuine sessions, each copy's texts its own ({cores()} cores):\n"
          f"  first model request: cold {cold:.2f} s, warm {warm:.2f} s\n"
          f"  memgate chunks: cold {chunks[0][0]:.1f} s ({args.mb / chunks[0][0]:.1f} MB/s), "
          f"warm {chunks[1][0]:.1f} s ({args.mb / chunks[1][0]:.1f} MB/s), peak RSS {max(r for _, r in chunks):.0f} MB")

if __name__ == '__main__':
    sys.exit(main())
