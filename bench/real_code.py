"""Redactions per 100 KB of real public code, read in a session as an agent reads it (issue 48's "Real code").

    python bench/real_code.py /work/.mirror/encode+httpx/repo:py /work/.mirror/spf13+cobra/repo:go --show 5

Each argument is a git directory (a clone or a bare mirror) and the extensions of the files to read, after a colon
(`py`, `go,mod`). Every such file of its HEAD (up to 2 MB of them per repository) becomes a Read tool call and its
result in one Claude Code session; the session is chunked as a run chunks it, and every `[REDACTED:…]` in what would
be sent is counted. Code holds no secret of its own: each redaction is one a reviewer would call wrong, unless the
repository ships a real key (the examples show each, masked to its context).
"""
import argparse, json, re, subprocess, sys, tempfile
from pathlib import Path
from memgate.chunking import chunk_project
from memgate.projects import load_project

MOST_BYTES = 2 * 2**20

def files_of(git: Path, exts: list[str]) -> list[tuple[str, str]]:
    "(path, text) of the files of `git`'s HEAD with one of `exts`, up to `MOST_BYTES` in all."
    names = subprocess.run(['git', '--git-dir', str(git), 'ls-tree', '-r', '--name-only', 'HEAD'],
                           capture_output=True, text=True, check=True).stdout.split('\n')
    out, size = [], 0
    for name in sorted(n for n in names if n.rsplit('.', 1)[-1] in exts):
        raw = subprocess.run(['git', '--git-dir', str(git), 'show', f'HEAD:{name}'], capture_output=True).stdout
        try: text = raw.decode('utf-8')
        except UnicodeDecodeError: continue
        if size + len(raw) > MOST_BYTES: break
        out.append((name, text))
        size += len(raw)
    return out

def session(files: list[tuple[str, str]], folder: Path) -> Path:
    "A Claude Code session that reads each of `files`."
    lines = []
    for i, (name, text) in enumerate(files):
        ts = f'2026-01-01T10:{i // 60 % 60:02d}:{i % 60:02d}.000Z'
        call = dict(type='tool_use', id=f'r{i}', name='Read', input=dict(file_path=f'/src/{name}'))
        lines += [dict(type='assistant', uuid=f'a{i}', sessionId='S', timestamp=ts,
                       message=dict(role='assistant', content=[call])),
                  dict(type='user', uuid=f'u{i}', sessionId='S', timestamp=ts,
                       message=dict(role='user', content=[dict(type='tool_result', tool_use_id=f'r{i}',
                                                               content=text)]))]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / 'S.jsonl').write_text(''.join(json.dumps(x) + '\n' for x in lines))
    return folder

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('repos', nargs='+', help='GIT_DIR:ext[,ext]')
    ap.add_argument('--show', type=int, default=3, help='redactions shown per repository, in context')
    args = ap.parse_args()
    total_kb = total_n = 0
    for spec in args.repos:
        git, _, exts = spec.rpartition(':')
        files = files_of(Path(git), exts.split(','))
        with tempfile.TemporaryDirectory() as d:
            project = load_project(session(files, Path(d) / 'p'), tool_result_chars=10**8)
            sent = '\n'.join(c.text for c in chunk_project(project, workers=1))
        found = [m for m in re.finditer(r'\[REDACTED:[^\]]+\]', sent)]
        kb = sum(len(t) for _, t in files) / 1e3
        total_kb, total_n = total_kb + kb, total_n + len(found)
        print(f"{Path(git).parent.name} ({exts}): {len(files)} files, {kb:.0f} KB, {len(found)} redactions, "
              f"{len(found) / (kb / 100):.2f} per 100 KB")
        for m in found[:args.show]:
            print('   ', repr(sent[max(0, m.start() - 70):m.end() + 20]))
    print(f"all: {total_n} redactions in {total_kb:.0f} KB, {total_n / (total_kb / 100):.2f} per 100 KB")

if __name__ == '__main__': sys.exit(main())
