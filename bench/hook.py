"""What a session-end hook adds: `memgate ingest --resume` over the bundled project (nothing new since the last run,
then one new session), and `memgate sync` of AGENTS.md, each timed as a child process, with the keyword baseline.

    python bench/hook.py
"""
import shutil, tempfile
from pathlib import Path
from common import ROOT, memgate_cmd, run_child

def main():
    "Time the hook's commands in a scratch folder (said, and removed at the end)."
    work = Path(tempfile.mkdtemp(prefix='memgate-hook-'))
    print(f"working in {work}, removed at the end")
    sessions, runs, agents = work / 'sessions', work / 'runs', work / 'AGENTS.md'
    src = sorted((ROOT / 'fixtures' / 'transcripts').rglob('*.jsonl'))
    (sessions / 'old').mkdir(parents=True)
    for f in src[:-1]: shutil.copy(f, sessions / 'old' / f.name)
    ingest = lambda *extra: memgate_cmd('ingest', '--project', sessions, '--model', 'keyword-baseline',
                                        '--log-dir', runs, '--quiet', *extra)
    first = run_child(ingest())
    print(f"first ingest of {len(src) - 1} sessions (4 queries): {first[0]:.2f}s (exit {first[2]})")
    sync = memgate_cmd('sync', '--log-dir', runs, '--agents-md', agents)
    rows = []
    for what, cmd in [('ingest --resume, nothing new', ingest('--resume')), ('sync AGENTS.md (first)', sync),
                      ('sync AGENTS.md (unchanged)', sync)]:
        rows.append((what, *run_child(cmd)))
    shutil.copy(src[-1], sessions / src[-1].name)          # the session that just ended
    rows.append(('ingest --resume, one new session', *run_child(ingest('--resume'))))
    rows.append(('sync AGENTS.md (after it)', *run_child(sync)))
    for what, wall, rss, code, err in rows:
        tail = f"  {err.strip()[:80]}" if code else ''
        print(f"{what:36s} {wall:6.2f}s  peak {rss:5.0f} MB  exit {code}{tail}")
    hook = rows[0][1] + rows[2][1]
    print(f"a hook with nothing new (resume + sync): {hook:.2f}s; with one new session: {rows[3][1] + rows[4][1]:.2f}s")
    shutil.rmtree(work)

if __name__ == '__main__': main()
