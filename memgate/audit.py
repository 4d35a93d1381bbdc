from __future__ import annotations
import re
from pathlib import Path
from collections import Counter
from dataclasses import dataclass, field
from .terminal import plural, visible
from .positions import assignment_findings
from .redact import random_review, secret_findings
from .sources import Warnings, session_records
from .projects import Project

EXAMPLES = 3                       # examples shown per kind of secret, and per group of doubts
CONTEXT = 40                       # characters shown on each side of a placeholder
_PLACEHOLDER = re.compile(r'\[REDACTED:([A-Za-z0-9_.#-]+)\]')
_TOKEN_CHAR = re.compile(r'[A-Za-z0-9+_=/-]')

def masked(value: str) -> str:
    "What a report shows of a value it judged: its first four characters and its length, never the rest."
    return f"{value[:4]}…({len(value)} chars)"

def _context(text: str, s: int, e: int) -> str:
    "The text around `text[s:e]` (a placeholder) on one line, for an example."
    a, b = max(0, s - CONTEXT), min(len(text), e + CONTEXT)
    # a token at an edge is shown masked, not cut
    while a > 0 and _TOKEN_CHAR.match(text, a - 1): a -= 1
    while b < len(text) and _TOKEN_CHAR.match(text, b): b += 1
    return visible(('…' if a else '') + text[a:b].replace('\n', ' ⏎ ') + ('…' if b < len(text) else ''))

@dataclass
class Audit:
    "What redaction does to a project's text, and each doubt it had: values pseudonymised, values kept and why."
    project: str
    files: int = 0
    records: int = 0
    redacted: Counter = field(default_factory=Counter)
    examples: dict = field(default_factory=dict)       # kind: up to EXAMPLES texts in context
    # group (`random#…` pseudonyms; what kept a value): {masked value: [where, ...]}
    pseudonyms: dict = field(default_factory=dict)
    kept: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        "The audit as `--format json` prints it: every doubt, each value masked with where it stands."
        return dict(project=self.project, files=self.files, records=self.records,
                    redacted={k: dict(count=n, examples=self.examples.get(k, [])) for k, n in self.redacted.items()},
                    pseudonymised=[dict(value=v, where=w) for v, w in self.pseudonyms.items()],
                    kept={g: [dict(value=v, where=w) for v, w in vals.items()] for g, vals in self.kept.items()})

def _note(book: dict, value: str, where: str):
    "Note that `value` stands at `where` (each value once, all its places)."
    book.setdefault(masked(value), []).append(where)

def _doubtful(value: str) -> bool:
    "Whether a value kept in a credential position could be a credential after all: text, not a URL or a reference."
    return len(value) >= 6 and value[0] not in '[{($<%' and '://' not in value and not value.startswith('/')

def audit(project: Project) -> Audit:
    "Read `project` as a run would and say what is redacted, what is pseudonymised and what is kept, and where."
    out = Audit(project.name)
    known = project.known_secrets()
    for s in project.sessions:
        for r in project.session_records(s):
            out.records += 1
            for m in _PLACEHOLDER.finditer(r.text):
                seen = out.examples.setdefault(m[1].split('#')[0], [])
                if len(seen) < EXAMPLES: seen.append(_context(r.text, *m.span()))
        # the same records unredacted: each value judged, and where it stands
        for r in session_records(s, Warnings(), project.tool_result_chars, False):
            where = visible(f"{Path(r.source).name} at {r.ref or '?'}")
            kept: list = []
            assignment_findings(r.text, kept)
            taken = secret_findings(r.text, known, random=False)
            for a, b, why in random_review(r.text, known.key) + [k for k in kept if _doubtful(r.text[k[0]:k[1]])]:
                # inside what a rule or a position takes: no doubt
                if any(s0 < b and a < e0 for s0, e0, _ in taken): continue
                value = r.text[a:b]
                if why.startswith('random#'): _note(out.pseudonyms.setdefault(why, {}), value, where)
                else: _note(out.kept.setdefault(why, {}), value, where)
    out.files, out.redacted = len(project.warnings.files), project.warnings.redacted
    return out

def _group(name: str) -> str:
    "An allowlist's description as a group's heading: its first clause."
    return re.split(r'[:;(]', name)[0].strip()[:90]

def audit_text(a: Audit, every: bool = False) -> str:
    "The audit as `memgate secrets` prints it: a screen of groups, each with a few examples; `every`: all of them."
    n, show = sum(a.redacted.values()), (None if every else EXAMPLES)
    lines = [f"{a.project}: {plural(a.files, 'file')}, {plural(a.records, 'record')}: "
             f"{plural(n, 'secret')} would be redacted" + (f", of {plural(len(a.redacted), 'kind')}" if a.redacted else '')]
    for kind, count in a.redacted.most_common():
        lines.append(f"  {kind}  {count}")
        lines += [f"      {x}" for x in a.examples.get(kind, [])]
    names = sorted(a.pseudonyms.items())
    lines.append(f"pseudonymised: {plural(len(names), 'random-looking value')} (each sent as [REDACTED:random#…], "
                 "the same value under the same name)" if names else "pseudonymised: none")
    lines += [f"      {p}  {v}  in {', '.join(w[:2])}" for p, vals in names[:show] for v, w in vals.items()]
    if show is not None and len(names) > show: lines.append(f"      … {len(names) - show} more (--all lists them)")
    kept = sum(len(v) for v in a.kept.values())
    lines.append(f"kept: {plural(kept, 'value')} that looked random or stood where a credential stands, sent as they "
                 "are, by what kept them" if kept else "kept: no value that looked random")
    for group, vals in sorted(a.kept.items(), key=lambda g: -len(g[1])):
        lines.append(f"  {_group(group)}  {len(vals)}")
        items = list(vals.items())
        lines += [f"      {v}  in {', '.join(w[:2])}" for v, w in items[:show]]
        if show is not None and len(items) > show: lines.append(f"      … {len(items) - show} more (--all lists them)")
    return '\n'.join(lines)
