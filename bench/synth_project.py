"""A large synthetic project built from the bundled real sessions: copy k of each session gets fresh ids.

    python bench/synth_project.py --mb 100 --dir /tmp/memgate-bench     # prints the folder it built (or reused)

Every UUID in a copy (session id, record uuids and parents, the file name) is replaced by one derived from the copy
number, consistently within the copy, so the copies are distinct sessions of one project, as a long-lived project's
are. The sizes of lines do not change. The chunk-identity test and every bench script build projects with this.
"""
import argparse, hashlib, json, re
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / 'fixtures' / 'transcripts'
_UUID = re.compile(rb'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}')

def fresh_ids(data: bytes, copy: int) -> bytes:
    "`data` with every UUID replaced by one derived from (copy, the UUID): the same UUID gets the same new one."
    def new(m):
        h = hashlib.sha256(b'%d:' % copy + m.group()).hexdigest()
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}".encode()
    return _UUID.sub(new, data)

def with_progress(data: bytes, copies: int = 3) -> bytes:
    "A Claude Code 2.1-style session: each user and assistant line followed by `copies` progress records quoting it."
    out = []
    for line in data.splitlines(keepends=True):
        out.append(line)
        obj = json.loads(line)
        if obj.get('type') not in ('user', 'assistant'): continue
        for i in range(copies):
            out.append(json.dumps(dict(parentUuid=obj.get('uuid'), sessionId=obj.get('sessionId'), type='progress',
                                       data=dict(type='agent_progress', message=obj), toolUseID=f'toolu_{i}',
                                       timestamp=obj.get('timestamp'))).encode() + b'\n')
    return b''.join(out)

def build(target: Path, mb: float, sources: Path = FIXTURES, progress: bool = False) -> int:
    "Fill `target` with fresh-id copies of the sessions under `sources` until it holds `mb` MB; returns its bytes."
    files = sorted(sources.rglob('*.jsonl'))
    if progress: files = [f for f in files if 'claude' in f.parts[-2]]
    done = target / '.complete'
    if done.exists(): return int(done.read_text())
    size, copy = 0, 0
    while size < mb * 2**20:
        for f in files:
            data = fresh_ids(f.read_bytes(), copy)
            if progress: data = with_progress(data)
            d = target / f'{copy // 100:04d}'
            d.mkdir(parents=True, exist_ok=True)
            name = fresh_ids(f.name.encode(), copy).decode()
            (d / (name if name != f.name else f'{copy:05d}-{name}')).write_bytes(data)
            size += len(data)
        copy += 1
    done.write_text(str(size))
    return size

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--mb', type=float, default=100)
    ap.add_argument('--dir', default='/tmp/memgate-bench')
    ap.add_argument('--progress', action='store_true',
                    help='Claude Code sessions only, 3 progress records after each message (as 2.1 writes them)')
    args = ap.parse_args()
    target = Path(args.dir) / f"synth-{args.mb:g}mb{'-progress' if args.progress else ''}"
    size = build(target, args.mb, progress=args.progress)
    print(f"{target}  {size / 2**20:.0f} MB")

if __name__ == '__main__': main()
