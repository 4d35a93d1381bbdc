"""How much of gitleaks' rule set memgate's redactor takes: random samples of each rule's shape, redacted.

    python bench/gitleaks_shapes.py RULES.toml [--samples 3] [--seed 0] [--write tests/data/gitleaks_shapes.jsonl]

RULES.toml is a rule file in gitleaks' schema (gitleaks' own `config/gitleaks.toml`, for one: it is not shipped
here). For each rule with a regex, random strings its regex matches are made (the regex read by Python's parser,
each choice drawn at random), kept only when the file's own rules report the secret (RE2, its allowlists and
entropy floors) and the secret has 8 characters or more. Each is redacted twice: by memgate's defaults, and with
the file as `--secret-rules`. A rule is fully redacted when none of its samples' secrets is left (no 12-character
piece). `--write` keeps the samples (rule id, text, secret) for tests/test_gitleaks_shapes.py.
"""
import argparse, json, os, random, re, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from memgate.redact import redact  # noqa: E402
from memgate.rules import RULES_ENV, findings, load_rules  # noqa: E402

try: import re._parser as sre_parse          # Python 3.11+
except ImportError: import sre_parse         # noqa: F401

PRINTABLE = [chr(c) for c in range(33, 127)]
WORD = [c for c in PRINTABLE if c.isalnum() or c == '_']

def python_form(pattern: str) -> str:
    "`pattern` (Go RE2) in a form Python's parser reads: inline flags dropped, POSIX classes spelled out."
    p = re.sub(r'\(\?-?[imsU]+\)', '', pattern).replace('(?-i:', '(?:').replace('(?i:', '(?:')
    p = p.replace('[:alnum:]', 'a-zA-Z0-9').replace('[:alpha:]', 'a-zA-Z').replace('[:digit:]', '0-9')
    return p.replace(r'\z', r'\Z')

def _chars(items) -> list[str]:
    "The printable characters a parsed class allows."
    neg, allowed = False, set()
    for op, av in items:
        name = str(op)
        if name == 'NEGATE': neg = True
        elif name == 'LITERAL': allowed.add(chr(av))
        elif name == 'RANGE': allowed.update(chr(c) for c in range(av[0], av[1] + 1) if c < 127)
        elif name == 'CATEGORY': allowed.update(_category(str(av)))
    pool = [c for c in PRINTABLE + [' '] if c not in allowed] if neg else sorted(allowed)
    return [c for c in pool if c not in '\t\r\n\x0b\x0c'] or pool or ['x']

def _category(name: str) -> list[str]:
    "The characters of a class such as `\\w`, `\\d`, `\\s`."
    if 'NOT' in name: return ['-']
    if 'DIGIT' in name: return list('0123456789')
    if 'SPACE' in name: return [' ']
    return WORD

def _gen(tree, rnd: random.Random, groups: dict) -> str:
    "A random string `tree` (a parsed pattern) matches."
    out = []
    for op, av in tree:
        name = str(op)
        if name == 'LITERAL': out.append(chr(av))
        elif name == 'NOT_LITERAL': out.append(rnd.choice([c for c in WORD if ord(c) != av]))
        elif name == 'ANY': out.append('.')          # an unescaped dot is, in these rules, a dot
        elif name == 'IN': out.append(rnd.choice(_chars(av)))
        elif name == 'CATEGORY': out.append(rnd.choice(_category(str(av))))
        elif name == 'BRANCH': out.append(_gen(rnd.choice(av[1]), rnd, groups))
        elif name == 'SUBPATTERN':
            text = _gen(av[-1], rnd, groups)
            if av[0]: groups[av[0]] = text
            out.append(text)
        elif name in ('MAX_REPEAT', 'MIN_REPEAT', 'POSSESSIVE_REPEAT'):
            lo, hi, sub = av
            hi = lo + 4 if hi is sre_parse.MAXREPEAT or hi > lo + 4 else hi
            out.extend(_gen(sub, rnd, groups) for _ in range(rnd.randint(lo, max(lo, hi))))
        elif name == 'GROUPREF': out.append(groups.get(av, ''))
    return ''.join(out)

def samples(rs, rule, raw: str, n: int, rnd: random.Random) -> list[tuple[str, str]]:
    "Up to `n` (text, secret) of the rule's regex's shape that the rule, with its file's allowlists, reports."
    try: tree = sre_parse.parse(python_form(raw))
    except Exception: return []
    got = []
    for _ in range(n * 40):
        text = _gen(tree, rnd, {})
        m = rule.regex.search(text)
        if m is None: continue
        s, e = rule.secret_span(m)
        secret = text[s:e] if s >= 0 else ''
        if len(secret) < 8 or (s, e, rule.id) not in findings(rs, text): continue
        got.append((text, secret))
        if len(got) == n: break
    return got

def leaked(text: str, secret: str) -> bool:
    "Whether any of `secret` is left in redacted `text`: a 12-character piece, or all of a shorter secret."
    if len(secret) <= 12: return secret in text
    return any(secret[i:i + 12] in text for i in range(len(secret) - 11))

def measure(rows, rules_path: str | None) -> tuple[int, list[str]]:
    "(samples that leak, ids of rules not fully redacted) with memgate's defaults, or with `rules_path`."
    if rules_path: os.environ[RULES_ENV] = rules_path
    else: os.environ.pop(RULES_ENV, None)
    bad = {}
    for r in rows:
        if leaked(redact(r['text']), r['secret']): bad[r['rule']] = bad.get(r['rule'], 0) + 1
    return sum(bad.values()), sorted(bad)

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('rules', help="a rule file in gitleaks' schema (gitleaks' config/gitleaks.toml)")
    ap.add_argument('--samples', type=int, default=3)
    ap.add_argument('--seed', type=int, default=0)
    ap.add_argument('--write', help='keep the samples here (JSON lines)')
    a = ap.parse_args()
    import tomllib
    doc = tomllib.loads(Path(a.rules).read_text())
    rs, rnd, rows = load_rules(a.rules), random.Random(a.seed), []
    by_id = {r.id: r for r in rs.rules}
    for raw in doc.get('rules', []):
        if raw.get('id') not in by_id: continue
        for text, secret in samples(rs, by_id[raw['id']], raw['regex'], a.samples, rnd):
            rows.append(dict(rule=raw['id'], text=text, secret=secret))
    n_rules = len({r['rule'] for r in rows})
    print(f"{len(rows)} samples of {n_rules} rules ({len(by_id) - n_rules} rules gave no sample)")
    for label, path in (("memgate's defaults", None), ('with the file as --secret-rules', a.rules)):
        leaks, bad = measure(rows, path)
        print(f"{label}: {n_rules - len(bad)} of {n_rules} rules fully redacted "
              f"({(n_rules - len(bad)) / n_rules:.1%}); {leaks} of {len(rows)} samples leak")
        if bad: print('  not fully redacted:', ' '.join(bad))
    if a.write:
        Path(a.write).write_text(''.join(json.dumps(r) + '\n' for r in rows))
        print(f"wrote {len(rows)} samples to {a.write}")

if __name__ == '__main__':
    main()
