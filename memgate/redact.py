from __future__ import annotations
import hashlib, json, re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from .rules import default_rules, active_rules, findings, redaction_rules
from .positions import Found, common_passwords, merged, placeholder, plain_word, position_findings, unquote
from .generated import candidates, decodes_harmless, generated, pseudonym, word_share

REDACTOR_VERSION = 6

# a value found spreads to its other mentions only if it could not be an ordinary word
SPREAD_MIN = 12
# and a long random value's halves, split over two lines or messages, by this many characters at a token's edge
HALF = 8

# or this long, with letters, digits and a symbol (`Tulip@99`: no word is written so)
SPREAD_MIN_MIXED = 8

def spreads(value: str) -> bool:
    "Whether a value found in one place is redacted wherever else it stands: long, not digits, no word, no stand-in."
    v = value.strip()
    mixed = bool(re.search('[A-Za-z]', v) and re.search('[0-9]', v) and re.search(r'[^\w\s.-]', v))
    return ((len(v) >= SPREAD_MIN or mixed and len(v) >= SPREAD_MIN_MIXED) and not v.isdigit() and not placeholder(v) and not plain_word(v)
            and v.lower() not in common_passwords() and not re.fullmatch(r'[\w.-]*(?:/[\w.-]+)+/?', v))

_TOKEN_CHAR = re.compile(r'[A-Za-z0-9_+/=-]')

def written_forms(value: str) -> list[str]:
    "`value` as text may write it: itself, URL-encoded, JSON-escaped, shell-escaped (`\\ `, `'\\''`, `\\\"`)."
    from urllib.parse import quote, quote_plus
    forms = [value, quote(value, safe=''), quote(value, safe=':@'), quote_plus(value), json.dumps(value)[1:-1],
             value.replace(' ', '\\ '), value.replace("'", "'\\''"), value.replace('"', '\\"')]
    return list(dict.fromkeys(forms))

@dataclass
class KnownSecrets:
    "Every value a project's rules and credential positions took, by kind: redacted wherever else it stands."
    values: dict[str, str] = field(default_factory=dict)   # value: the kind that took it (never written)
    key: bytes = b''                                         # of the project's pseudonyms

    def __post_init__(self): self._auto = None

    def __getstate__(self): return dict(values=self.values, key=self.key)

    def __setstate__(self, state):
        self.values, self.key, self._auto = state['values'], state['key'], None

    def automaton(self):
        "An Aho-Corasick automaton of the values and of their long halves' edges (built once per process)."
        if self._auto is None:
            import ahocorasick
            auto = ahocorasick.Automaton()
            for v, kind in self.values.items():
                for form in written_forms(v): auto.add_word(form, (form, kind, 0))
                if len(v) >= 2 * HALF + 4 and generated(v):
                    for edge, side in ((v[:HALF], 1), (v[-HALF:], -1)):
                        if not auto.exists(edge) and word_share(edge) < 0.5: auto.add_word(edge, (v, kind, side))
            if len(auto): auto.make_automaton()
            self._auto = auto
        return self._auto

    def digest(self) -> str:
        "What the run records of its index: a keyed hash of its values (never the values), to tell two indexes apart."
        h = hashlib.blake2b(key=self.key[:64] or b'memgate', digest_size=16)
        for v in sorted(self.values): h.update(hashlib.sha256(v.encode()).digest())
        return h.hexdigest()

def _edge_token(text: str, s: int, e: int) -> tuple[int, int]:
    "The whole token around `text[s:e]`."
    while s > 0 and _TOKEN_CHAR.match(text, s - 1): s -= 1
    while e < len(text) and _TOKEN_CHAR.match(text, e): e += 1
    return s, e

def known_findings(known: KnownSecrets | None, text: str) -> list[Found]:
    "(start, end, kind) of each value `known` holds where it stands whole in `text`, and of its halves at an edge."
    if not known or not known.values: return []
    out = []
    for end, (v, kind, side) in known.automaton().iter(text):
        e = end + 1
        s = e - (len(v) if side == 0 else HALF)
        if side == 0:
            # whole: not a part of a longer word
            if (v[0].isalnum() and s > 0 and text[s - 1].isalnum()) or \
               (v[-1].isalnum() and e < len(text) and text[e].isalnum()): continue
            out.append((s, e, kind))
            continue
        a, b = _edge_token(text, s, e)
        piece = text[a:b]
        if len(piece) >= HALF and not plain_word(piece) and ((side == 1 and a == s and v.startswith(piece)) or
                                   (side == -1 and b == e and v.endswith(piece))):
            out.append((a, b, kind))
    return out

@lru_cache(maxsize=4)
def _random_lists(user_sha: str) -> list:
    "The allowlists that keep a random-looking value: memgate's (always) and a user's rule file's."
    user = active_rules()
    lists = default_rules().allowlists + (user.allowlists if user and not user.defaults else [])
    return [a for a in lists if not a.rules or 'random' in a.rules]

# what keeps a random-looking value that decodes to harmless text or a known binary (`memgate secrets` groups by it)
HARMLESS = 'base64 of harmless text, an image or an archive'

def random_review(text: str, key: bytes = b'') -> list[Found]:
    "(start, end, decision) of each random-looking run of `text`: `random#pseudonym`, or what kept it as it is."
    user = active_rules()
    lists, out = _random_lists(user.sha if user else ''), []
    inner = lambda plain: findings(redaction_rules(), plain, decode=False) or position_findings(plain)
    harmless = lambda token: decodes_harmless(token, inner)
    for s, e in candidates(text, harmless):
        value = text[s:e]
        line_start = text.rfind('\n', 0, s) + 1
        line_end = text.find('\n', e)
        before, line = text[line_start:e], text[line_start:len(text) if line_end < 0 else line_end]
        kept = next((a for a in lists if a.allows(value, before, line)), None)
        if kept: out.append((s, e, kept.description or 'an allowlist'))
        elif harmless(value): out.append((s, e, HARMLESS))
        else: out.append((s, e, 'random#' + pseudonym(value, key)))
    return out

def random_findings(text: str, key: bytes = b'') -> list[Found]:
    "(start, end, `random#pseudonym`) of each generated-looking run of `text` no allowlist or known shape keeps."
    return [f for f in random_review(text, key) if f[2].startswith('random#')]

def secret_findings(text: str, known: KnownSecrets | None = None,
                    random: bool = True, # random-looking values too (not across a seam: two records' ends join there)
                   ) -> list[Found]:
    "Every secret of `text`, in the order of precedence: a rule, a value found before, a position, random-looking."
    return merged(findings(redaction_rules(), text), known_findings(known, text), position_findings(text),
                  random_findings(text, known.key if known else b'') if random else [])

def redact(text: str, counts: Counter | None = None, known: KnownSecrets | None = None) -> str:
    "`text` with every secret replaced by `[REDACTED:kind]`, counted by kind into `counts`."
    found = secret_findings(text, known)
    if not found: return text
    out, last = [], 0
    for s, e, kind in found:
        out += [text[last:s], f'[REDACTED:{kind}]']
        last = e
        if counts is not None: counts[kind.split('#')[0]] += 1
    return ''.join(out) + text[last:]

def read_forms(written: str) -> list[str]:
    "What a value written in `written`'s escapes reads as: itself, shell-unquoted, JSON-unescaped, URL-decoded."
    from urllib.parse import unquote as url_decoded
    forms = [written, unquote(f"'{written}'")[0], written.replace('\\"', '"').replace('\\\\', '\\'),
             written.replace('\\ ', ' '), url_decoded(written)]
    return list(dict.fromkeys(forms))

def found_values(text: str) -> dict[str, str]:
    "The values `text`'s rules and credential positions take that `spreads` lets spread, as read: value, kind."
    found = merged(findings(redaction_rules(), text), position_findings(text))
    return {v: kind for s, e, kind in found for v in read_forms(text[s:e]) if spreads(v)}

# how much of each side of a seam is looked at: longer than any token, shorter than a PEM body
SEAM_CHARS = 256
_ENDS_REDACTED = re.compile(r'\[REDACTED:([A-Za-z0-9_.#-]+)\]$')
_MORE_TOKEN = re.compile(r'(?=[A-Za-z_=+/-]*[0-9])[A-Za-z0-9_=+/-]{8,}')

def _across(a: str, b: str, counts: Counter | None, known: KnownSecrets | None) -> tuple[str, str]:
    "`a` and `b` with a secret that spans their seam replaced, its part in `a` by the placeholder, in `b` removed."
    tail, head = a[-SEAM_CHARS:], b[:SEAM_CHARS]
    joined, seam = tail + head, len(tail)
    for s, e, kind in secret_findings(joined, known, random=False):
        if s < seam < e:
            if counts is not None: counts[kind.split('#')[0]] += 1
            return a[:len(a) - seam + s] + f'[REDACTED:{kind}]', b[e - seam:]
    return a, b

def redact_seams(texts: list[str], counts: Counter | None = None, known: KnownSecrets | None = None) -> list[str]:
    "`texts` (a file's records, in order, each redacted already) with the secrets split between two replaced too."
    out = list(texts)
    for i in range(len(out) - 1):
        a, b = out[i], out[i + 1]
        if not a or not b: continue
        if (end := _ENDS_REDACTED.search(a)) and (more := _MORE_TOKEN.match(b)):
            # the rest of a token redacted before the seam
            out[i + 1] = f'[REDACTED:{end[1]}]' + b[more.end():]
        else: out[i], out[i + 1] = _across(a, b, counts, known)
    return out
