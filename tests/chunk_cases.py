"""Inputs whose chunks must never change: every bundled session, the synthetic layouts, odd text, a generated project.

    python tests/chunk_cases.py     # rewrite fixtures/expected/chunk_shas.json (only when a change is meant)

Each case is (project path, chunk_tokens, tool_result_chars, redact); the file keeps, for each case, every chunk's
index, sha and token count as the chunker made them when the file was written.
"""
import json, random, sys, tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / 'bench'), str(ROOT / 'tests')]
from synth import claude_20_session, claude_21_session, codex_session, cc, write_jsonl  # noqa: E402
from synth_project import build  # noqa: E402

EXPECTED = ROOT / 'fixtures' / 'expected' / 'chunk_shas.json'
TRANSCRIPTS = ROOT / 'fixtures' / 'transcripts'

def odd_session(root: Path) -> Path:
    "Text that strains the chunker: long lines, emoji, CJK, digits, base64, trailing blanks, calls with results."
    rng, rows = random.Random(13), []
    pieces = ['🙂', '漢字', '0123456789', 'QUJDRA==' * 3, ' ', '\n', '\t', 'word ', '.', '\n\n  ', "'s", '```']
    for i in range(400):
        ts = f'2026-05-01T10:{i // 60:02d}:{i % 60:02d}.000Z'
        text = ''.join(rng.choice(pieces) for _ in range(rng.choice([1, 5, 60, 900, 4000])))
        if i % 3 == 0:
            rows.append(cc('assistant', ts, [dict(type='tool_use', id=f'c{i}', name='Bash', input=dict(command=text))]))
            rows.append(cc('user', ts, [dict(type='tool_result', tool_use_id=f'c{i}', content=text[::-1])]))
        else: rows.append(cc('user' if i % 2 else 'assistant', ts, text if i % 2 else [dict(type='text', text=text)]))
    return write_jsonl(root / 'odd' / 'odd.jsonl', rows)

def cases(tmp: Path) -> dict[str, tuple]:
    "Every case, by name, with the files it needs built under `tmp`."
    synth = tmp / 'synth'
    layouts = [claude_21_session(synth / 'claude'), claude_20_session(synth / 'claude'), codex_session(synth / 'codex')]
    big = tmp / 'generated'
    build(big, 4)
    out = {}
    for f in sorted(TRANSCRIPTS.rglob('*.jsonl')):
        for size in (5000, 1200): out[f'{f.name}@{size}'] = (f, size, 16_000, True)
    out['transcripts@5000'] = (TRANSCRIPTS, 5000, 16_000, True)
    out['transcripts@800/2000/plain'] = (TRANSCRIPTS, 800, 2000, False)
    for p in layouts: out[f'layout-{p.name}@5000'] = (p, 5000, 16_000, True)
    out['odd@5000'] = (odd_session(tmp), 5000, 16_000, True)
    out['odd@700'] = (tmp / 'odd', 700, 16_000, True)
    out['generated-4mb@5000'] = (big, 5000, 16_000, True)
    return out

def chunk_table(spec) -> list[list]:
    "[index, sha, tokens] of every chunk of one case."
    from memgate.chunking import chunk_project
    from memgate.projects import load_project
    path, size, cap, redact = spec
    return [[c.index, c.sha, c.tokens] for c in chunk_project(load_project(path, cap, redact), size)]

if __name__ == '__main__':
    with tempfile.TemporaryDirectory() as d:
        table = {name: chunk_table(spec) for name, spec in cases(Path(d)).items()}
    lines = [f"{json.dumps(name)}: [\n" + ',\n'.join(map(json.dumps, rows)) + ']' for name, rows in table.items()]
    EXPECTED.write_text('{\n' + ',\n'.join(lines) + '\n}\n')
    print(f"{EXPECTED}: {len(table)} cases, {sum(map(len, table.values()))} chunks")
