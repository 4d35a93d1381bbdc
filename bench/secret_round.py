"""A blind round's figures: of a corpus's planted secrets, how many reach what a run sends; of its look-alikes, how
many are redacted; of the leaks, how many `memgate secrets` names.

    python bench/secret_round.py /work/blind/round1/seed1 [/work/blind/round1/seed2 ...] [--show 20]

A corpus folder holds session files (Claude Code, Codex) and `manifest.json`:
`{"secrets": [{"value", "kind", "where"}], "decoys": [{"value", "kind", "where"}]}`, written by someone who has
not read memgate's rules. What a run sends is every chunk's text (`chunk_project`), as ingest makes them.

A secret leaks when any window of 8 of its characters (all of it, if shorter) stands in what is sent and not in
the corpus's own text with every secret taken out (a window the surroundings also hold tells nothing). Of a URL
with a password (`scheme://user:pass@host/…`, `jdbc:oracle:thin:user/pass@…`, an Oracle Easy Connect string's
`user/pass@//host:1521/SVC`) only the password counts, and of one whose userinfo is a token alone (a Sentry DSN's
key), the token; of a connection string, a cookie or a URL's query, the
fields a credential's word names (`password=`, `Pwd=`, `AccountKey=`, `X-Amz-Signature=`, `token=`,
`JSESSIONID=`); of a URL with neither, its last path segment that holds a digit or 12 characters, else its last (a
webhook's token, not the route's word after it); of a JSON web token, signed or encrypted, all but its header
(alike in every token). Host, port, user, path and database are not the secret: a redactor that takes the password
and keeps the host has kept nothing; nor are an htpasswd line's user and scheme (`ops:{PLAIN}…`). A window counts
only outside the text of every other secret (a seed phrase's `glacier ` sent is its leak, not that of a passphrase
sharing the word). A look-alike is taken when it stood whole (no letter or digit glued to it) in the sessions'
text and no longer does in what is sent. A leak is named when `memgate secrets`' report (all of it) shows its
masked form.
"""
import argparse, json, re, sys
from collections import Counter
from pathlib import Path
from memgate.audit import audit, audit_text
from memgate.chunking import chunk_project
from memgate.projects import load_project

WINDOW = 8

def sent_text(folder: Path, redact: bool = True) -> str:
    "Every chunk's text of the project in `folder`, as a run would send it."
    return '\n'.join(c.text for c in chunk_project(load_project(folder, redact=redact), workers=1))

# (a userinfo holds no `?`: an `@` in a query's password is no userinfo's end,
# `jdbc:postgresql://host:5432/db?user=u&password=+P@lg…`)
USERINFO = re.compile(r'^[a-z][a-z0-9+.:-]*?(?://[^/\s:@]*:|:[^/\s:@]+/)([^@\s?]+)@', re.I)
# (or a token that is all of its userinfo: a Sentry DSN's key, `https://<32 hex>@o1.ingest.sentry.io/7`)
TOKEN_USERINFO = re.compile(r'^[a-z][a-z0-9+.-]*://([A-Za-z0-9_-]{16,})@', re.I)
FIELD = re.compile(r'(?:^|[;\s?&])([A-Za-z_ -]+)=([^;\s&]+)')
# (`sig` and `signature`, not `SignedHeaders`: a signed URL's list of the headers it signed is no credential;
# `appid`, OpenWeatherMap's key, is the query's credential)
CREDENTIAL_WORD = re.compile(r'pass|pwd|secret|key|token|sig(?!n)|signature|credential|auth|sess|^appid$', re.I)
NAME_FIELD = re.compile(r'(?:name|(?<!app)id)$', re.I)
URL = re.compile(r'^[a-z][a-z0-9+.-]*://[^/\s?#]+(/[^?\s#]*)?', re.I)

# (an htpasswd line's user and scheme, `ops:{PLAIN}…`, are not its password)
HTPASSWD = re.compile(r'^[\w.@-]+:\{[A-Z0-9-]+\}(.+)$')
# (nor is a Go driver's DSN's user, protocol and host: `user:pass@tcp(host:3306)/db?…`, no scheme before it)
GO_DSN = re.compile(r'^[^:@\s/]+:([^@\s]+)@(?:tcp|tcp6|udp|unix)\(')
# (nor an Oracle Easy Connect string's user, host, port and service: `user/pass@//host:1521/SERVICE`)
EZCONNECT = re.compile(r'^[\w.$#-]+/([^@\s/]+)@(?://)?[\w.-]+(?::\d+)?/')

# (a JSON web token's header, `eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9`, is alike in every token: its secret is the rest;
# so is an encrypted one's, five parts, its key's part empty where the key is shared: NextAuth's
# `eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0..`, `{"alg":"dir","enc":"A256GCM"}`)
JWT = re.compile(r'^eyJ[A-Za-z0-9_-]+\.([A-Za-z0-9_-]+\.[A-Za-z0-9_-]*'
                 r'|[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$')

PUTTY = re.compile(r'PuTTY-User-Key-File-\d:[\s\S]*?(Private-Lines:[\s\S]*)')

def secret_parts(value: str) -> list[str]:
    "The parts of `value` that are the secret: a URL's password or tokens, a connection string's credentials."
    if m := JWT.match(value): return [m[1].lstrip('.')]
    # (a PuTTY key file's public lines are its public key: its private lines are the secret)
    if m := PUTTY.match(value): return [m[1]]
    if m := (USERINFO.match(value) or TOKEN_USERINFO.match(value) or GO_DSN.match(value)
             or HTPASSWD.match(value) or EZCONNECT.match(value)):
        return [m[1]]
    fields = FIELD.findall(value)
    # (a field that names the key, `SharedAccessKeyName=RootManageSharedAccessKey`, holds its name, not it)
    # (a field's name is its last word: `SharedAccessSignature sr=` is the resource's, not a signature)
    names = [(k.split()[-1] if k.split() else k, v) for k, v in fields]
    if creds := [v for k, v in names if CREDENTIAL_WORD.search(k) and not NAME_FIELD.search(k)]: return creds
    if (m := URL.match(value)) and not fields and m[1]:
        # (its last segment with a digit or of a token's length: `/ingest/<token>/events`' route word is none)
        segments = m[1].strip('/').split('/')
        token = lambda g: re.search(r'\d', g) or len(g) >= 12
        return [next((g for g in reversed(segments) if token(g)), segments[-1])]
    return [value]

def windows(value: str) -> list[str]:
    "The windows of `value`'s secret parts whose presence counts as a leak."
    out = []
    for part in secret_parts(value):
        w = min(WINDOW, len(part))
        out += [part[i:i + w] for i in range(len(part) - w + 1)]
    return out

def leaked(value: str, out: str, background: str) -> bool:
    "Whether some window of `value` is in `out` that the surroundings (`background`) do not also hold."
    if len(value) < WINDOW:
        # (a value shorter than a window, a PIN's 4 digits, is sent only as a token of its own: inside a
        # UUID or a timestamp it is that id's digits)
        token = re.compile(r'(?<![A-Za-z0-9])' + re.escape(value) + r'(?![A-Za-z0-9])')
        return bool(token.search(out)) and not token.search(background)
    return any(w in out and w not in background for w in windows(value))

def measure(folder: Path) -> dict:
    "The round's figures for one corpus folder."
    man = json.loads((folder / 'manifest.json').read_text())
    raw, out = sent_text(folder, redact=False), sent_text(folder)
    # (of a URL or a connection string, only its secret parts: its host and its dates stay surroundings)
    background = raw
    for s in sorted((p for x in man['secrets'] for p in secret_parts(x['value'])), key=len, reverse=True):
        background = background.replace(s, '\x00')
    # (a stand-in's own hash, `[REDACTED:random#4b3390f1]`, is no part of what was sent of a value: a
    # 3-digit code is in one by chance)
    shown = re.sub(r'\[REDACTED:[^\]\n]*\]', '\x01', out)
    leaks = [s for s in man['secrets'] if leaked(s['value'], shown, background)]
    # (a window another secret's own text holds, sent as it leaked, is that secret's leak, not this one's:
    # `glacier ` of a seed phrase sent is no window of a restic passphrase that was taken)
    parts = sorted({p for x in man['secrets'] for p in secret_parts(x['value'])}, key=len, reverse=True)
    def alone(s: dict) -> str:
        own = secret_parts(s['value'])
        text = shown
        for p in parts:
            if not any(o in p for o in own): text = text.replace(p, '\x00')
        return text
    leaks = [s for s in leaks if leaked(s['value'], alone(s), background)]
    # (a look-alike stands whole where no letter or digit is glued to it: one inside a secret, the start of
    # a webhook's id or of a device token, is that secret's)
    whole = lambda v, text: re.search(r'(?<![A-Za-z0-9])' + re.escape(v) + r'(?![A-Za-z0-9])', text)
    present = [d for d in man['decoys'] if whole(d['value'], raw)]
    taken = [d for d in present if not whole(d['value'], out)]
    report = audit_text(audit(load_project(folder)), every=True)
    named = [s for s in leaks if any(f"{v[:4]}…({len(v)} chars)" in report or v in report
                                     for v in [s['value'], *secret_parts(s['value'])])]
    return dict(folder=str(folder), secrets=len(man['secrets']), leaks=leaks, decoys=len(present), taken=taken,
                named=named)

def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('folders', nargs='+', type=Path)
    p.add_argument('--show', type=int, default=0, help='list this many leaks and taken look-alikes per folder')
    args = p.parse_args(argv)
    for f in args.folders:
        r = measure(f)
        nl, nt = len(r['leaks']), len(r['taken'])
        print(f"{f}: {nl} of {r['secrets']} secrets leak ({nl / max(1, r['secrets']):.1%}); "
              f"{nt} of {r['decoys']} look-alikes taken ({nt / max(1, r['decoys']):.1%}); "
              f"secrets names {len(r['named'])} of {nl} leaks")
        kinds = Counter(s['kind'] for s in r['leaks'])
        print('   leaks by kind:', ', '.join(f'{k} {n}' for k, n in kinds.most_common(15)))
        # (a corpus may describe a place as a dict or a list: shown as text)
        for s in r['leaks'][:args.show]:
            said = 'named  ' if s in r['named'] else 'unnamed'
            print('   LEAK ', said, s['kind'], '|', s['value'][:60], '|', str(s['where'])[:80])
        for d in r['taken'][:args.show]: print('   TAKEN', d['kind'], '|', d['value'][:60], '|', str(d['where'])[:80])

if __name__ == '__main__': sys.exit(main())
