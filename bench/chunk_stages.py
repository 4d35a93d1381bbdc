"""Where chunking's time goes, stage by stage: read and parse, render, redact, tokenize, pack; MB/s of each.

    python bench/chunk_stages.py 100 --progress          # 100 MB of Claude Code 2.1-shaped sessions (built once)
    python bench/chunk_stages.py 100 --secret-rules gitleaks.toml   # with a user's rules file as well

Each stage is measured by running the pipeline up to it, in one process, over the same sessions (the files are
read once first, so the page cache holds them for every pass), and taking the difference from the stage before:
no profiler distorts the split. `end to end` is `memgate chunks` itself, in a child process, as a user runs it
(worker processes for a large project).
"""
import argparse, sys, time
from collections import Counter
from common import build, cores, memgate_cmd, run_child, WORK
from memgate.chunking import CHUNK_TOKENS, count_records, pack
from memgate.projects import load_project
from memgate.rules import use_rules
from memgate.reading import json_lines, Warnings
from memgate.claude import CLAUDE_SKIP
from memgate.codex import CODEX_SKIP

def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0

def parse_only(project):
    "Read and parse every line as the readers do, building nothing."
    w = Warnings()
    for s in project.sessions:
        skip = frozenset(CLAUDE_SKIP if s.format == 'claude' else CODEX_SKIP)
        for path in s.files:
            for _ in json_lines(path, w.report(path, s.format), skip): pass

def records(project, secrets: bool):
    "Every session's records: parsed and rendered, redacted if `secrets`."
    project.redact = secrets
    return [project.session_records(s) for s in project.sessions]

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('mb', nargs='?', type=float, default=100)
    ap.add_argument('--progress', action='store_true', help='Claude Code 2.1-style sessions (progress records)')
    ap.add_argument('--secret-rules', metavar='FILE', help="a gitleaks.toml, as memgate's --secret-rules takes it")
    ap.add_argument('--chunk-tokens', type=int, default=CHUNK_TOKENS)
    args = ap.parse_args()
    target = WORK / f"synth-{args.mb:g}mb{'-progress' if args.progress else ''}"
    size = build(target, args.mb, progress=args.progress) / 2**20
    if args.secret_rules: use_rules(args.secret_rules)
    project = load_project(target)
    for s in project.sessions:
        for p in s.files: p.read_bytes()          # into the page cache, for every pass alike
    parse = timed(lambda: parse_only(project))
    render = timed(lambda: records(project, False))
    redacted = []
    redact = timed(lambda: redacted.extend(records(project, True)))
    counted = []
    tokenize = timed(lambda: counted.extend(count_records(rs, args.chunk_tokens) for rs in redacted))
    chunks = Counter()
    packing = timed(lambda: chunks.update(n=sum(len(list(pack(c, args.chunk_tokens))) for c in counted)))
    stages = [('read and parse', parse), ('render', render - parse), ('redact', redact - render),
              ('tokenize', tokenize), ('pack', packing)]
    rules = f" with {args.secret_rules} too" if args.secret_rules else ''
    print(f"{size:.0f} MB of {'Claude Code 2.1-shaped' if args.progress else 'mixed'} sessions, "
          f"{chunks['n']:,} chunks, one process{rules}:")
    for name, s in stages:
        print(f"  {name:15s} {s:6.2f} s  {size / s if s > 0 else float('inf'):7.1f} MB/s  "
              f"{100 * s / sum(x for _, x in stages):4.1f}%")
    total = sum(s for _, s in stages)
    print(f"  {'all stages':15s} {total:6.2f} s  {size / total:7.1f} MB/s   (no redaction: "
          f"{size / (total - stages[2][1]):.1f} MB/s)")
    cmd = ['chunks', '--project', target] + (['--secret-rules', args.secret_rules] if args.secret_rules else [])
    wall, rss, code, err = run_child(memgate_cmd(*cmd))
    if code: sys.exit(err)
    print(f"  end to end (memgate chunks, {cores()} cores): {wall:.2f} s  {size / wall:.1f} MB/s  "
          f"peak RSS {rss:.0f} MB")

if __name__ == '__main__': main()
