import re
from functools import lru_cache

@lru_cache(maxsize=1)
def dictionary() -> frozenset[str]:
    "English words and names, lower case (zxcvbn's frequency lists): what parts of identifiers and prose are made of."
    from zxcvbn.frequency_lists import FREQUENCY_LISTS as F
    lists = ('english_wikipedia', 'us_tv_and_film', 'female_names', 'male_names', 'surnames', 'passwords')
    # (a word is kept in one list only: `access` is among the passwords)
    return frozenset(w for k in lists for w in F[k] if (len(w) > 1 or w in 'ai') and w.isalpha())

@lru_cache(maxsize=1)
def common_passwords() -> frozenset[str]:
    "The 30,000 most common passwords, lower case (zxcvbn's list): values too guessable to spread as secrets."
    from zxcvbn.frequency_lists import FREQUENCY_LISTS as F
    return frozenset(F['passwords'])

_PARTS = re.compile(r'[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+')

def name_words(name: str) -> list[str]:
    "The words of a name, lower case: `DB_PASSWORD`, `dbPassword`, `db-password` and `db.password` are ['db', 'password']."
    return [w.lower() for w in _PARTS.findall(name)]

# a word of a name that says its value is a credential
SECRET_WORDS = frozenset('''pw pwd pass passwd password passwort passphrase passcode pin psk secret secrets token
    tokens credential credentials cred creds auth apikey authtoken privatekey storepass keypass masterauth requirepass
    key keys sig signature hmac salt bearer cookie dsn mnemonic totp otp'''.split())
# glued to a short prefix (`pgpass`, `dbpassword`), these still name a credential
GLUED = ('password', 'passwd', 'passphrase', 'secret', 'token', 'apikey', 'pass', 'pw', 'pwd')
# a word that, ending a name, says the value is about a credential, not one
NOT_SECRET_LAST = frozenset('''id ids uuid guid url uri urls endpoint host hostname port path paths file files dir
    directory name names ttl timeout expiry expires expiration enabled enable disabled required type types kind mode
    method provider domain length len size count max min version header field fields policy format algorithm alg algo
    scheme strategy level hash hashed digest fingerprint hint prompt label env var regex pattern location region user
    username login email owner issuer audience scope scopes rotation reset changed updated at rules manager service
    server client arn ref prefix suffix store ring board map code cmd command script help text message msg error
    errors validator validation strength complexity rule template example sample placeholder description desc title
    lifetime age window limit retries attempts interval delay duration seconds ms expired valid invalid check verify
    verified generator factory class module config configuration settings options handler storage backend bucket stdin
    table column index counter usage budget total input output encoding charset count id_token_hint schema form
    input button page view controller service test tests spec specs mgmt management accessor policies'''.split())
# a word anywhere in a name that says its value is public (`NEXT_PUBLIC_…`, `publishableKey`, `recaptchaSiteKey`)
PUBLIC_WORDS = frozenset('public publishable anon site'.split())
# two words that together name no credential
NOT_SECRET_PAIRS = frozenset([('public', 'key'), ('primary', 'key'), ('foreign', 'key'), ('sort', 'key'),
    ('partition', 'key'), ('cache', 'key'), ('hash', 'key'), ('range', 'key'), ('row', 'key'), ('lookup', 'key'),
    ('idempotency', 'key'), ('routing', 'key'), ('object', 'key'), ('composite', 'key'), ('unique', 'key'),
    ('map', 'key'), ('dict', 'key'), ('group', 'key'), ('sub', 'key'), ('hot', 'key'), ('auth', 'domain'),
    ('pass', 'through'), ('max', 'tokens'), ('csrf', 'token'), ('next', 'token'), ('page', 'token'),
    ('continuation', 'token'), ('pub', 'key'), ('no', 'auth'), ('foreign', 'keys'), ('primary', 'keys'),
    ('public', 'keys'), ('sort', 'keys')])
# alone, these are too common to say a credential (`key`, `pin`, `pass`); beside another word they do
AMBIGUOUS = frozenset('key keys pin pass auth sig salt cookie hash pw signature'.split())

def _glued(w: str) -> bool:
    "Whether `w` is a short prefix glued to a credential word (`pgpass`, `dbpassword`), not a word (`bypass`)."
    return w not in dictionary() and any(w.endswith(g) and 0 < len(w) - len(g) <= 3 for g in GLUED)

# `key` names a credential only after one of these (`API_KEY`, `signingKey`), or alone in capitals (`KEY=`):
# `queryKey`, `sortKey` and `primary_key` are keys of another kind
KEY_QUALIFIERS = frozenset('''api secret private access signing master encryption encrypt decryption license ssh
    deploy account app application service consumer auth session webhook crypt crypto hmac jwt client subscription
    storage admin root gpg pgp aes rsa sign shared integration server bot cipher otp totp mfa 2fa license personal
    write read ingest ingestion management mgmt publishable sdk dev prod live test stripe openai anthropic aws gcp
    azure twilio sendgrid mailgun slack github gitlab'''.split())

def _key_named(words: list[str]) -> bool:
    "Whether the `key` among `words` is a credential's: right after a word of `KEY_QUALIFIERS`."
    return any(w in ('key', 'keys') and i and words[i - 1] in KEY_QUALIFIERS for i, w in enumerate(words))

def _random_name(name: str) -> bool:
    "Whether `name` is no name but a random run (a token's piece before a `=`): its letters and digits change often."
    core = re.sub(r'[^A-Za-z0-9]', '', name)
    kinds = ['d' if c.isdigit() else 'u' if c.isupper() else 'l' for c in core]
    changes = sum(a != b and not (a == 'u' and b == 'l') for a, b in zip(kinds, kinds[1:]))
    return len(core) >= 12 and changes / (len(core) - 1) >= 0.3

def secret_name(name: str,
                alone: bool = False, # a word of `AMBIGUOUS` alone names one too (a flag: `--auth`, `--pass`)
               ) -> bool:
    "Whether a key, variable or flag named `name` holds a credential: a secret word, and no word that says otherwise."
    words = name_words(name)
    if _random_name(name): return False
    if not words or words[-1] in NOT_SECRET_LAST or PUBLIC_WORDS & set(words): return False
    if any(p in NOT_SECRET_PAIRS for p in zip(words, words[1:])): return False
    if len(words) == 1 and words[0] in AMBIGUOUS and not (alone or name.isupper()): return False
    if name.isupper() and words in (['key'], ['keys']): return True
    return _key_named(words) or any((w in SECRET_WORDS and w not in ('key', 'keys')) or _glued(w) for w in words)

def unquote(raw: str) -> tuple[str, list[int]]:
    "A shell word's value (quotes and escapes removed) and, for each of its characters, its index in `raw`."
    out, where, i, q = [], [], 0, ''
    while i < len(raw):
        c = raw[i]
        if c == '\\' and q != "'" and i + 1 < len(raw) and (not q or raw[i + 1] in '"\\$`'):
            i += 1
            out.append(raw[i])
            where.append(i)
        elif c in '\'"' and (not q or c == q): q = '' if q else c
        else:
            out.append(c)
            where.append(i)
        i += 1
    return ''.join(out), where

_SHELL_WORD = re.compile(r'''(?:[^\s'"\\;&|<>()`]|\\.|'[^'\n]*'|"(?:[^"\\\n]|\\.)*")+''')

def shell_words(line: str, start: int = 0) -> list[tuple[str, list[int]]]:
    "Each word of a shell line from `start`: its value, and where each of its characters stands in `line`."
    out = []
    for m in _SHELL_WORD.finditer(line, start):
        v, where = unquote(m[0])
        out.append((v, [m.start() + i for i in where]))
        gap = line[m.end():m.end() + 3].lstrip(' \t')
        if gap[:1] in (';', '&', '|', '>', '<', '`', ')'): break       # the command ends
    return out

# a command's flags and subcommands that take a credential, keyed by (command, flag): 'next' the word after it,
# 'attached' only joined to it (`mysql -pSECRET`: `mysql -p db` asks), 'both' either; an int: that positional word
CREDENTIAL_ARGS = {
    **{(c, '-p'): 'attached' for c in ('mysql', 'mysqldump', 'mysqladmin', 'mysqlimport', 'mariadb',
                                       'mariadb-dump', 'mysqlsh', 'mysqlcheck', '7z', '7za')},
    **{(c, '-P'): 'both' for c in ('sqlcmd', 'bcp', 'zip', 'unzip', 'osql', 'isql')},
    **{(c, '-w'): 'both' for c in ('ldapsearch', 'ldapmodify', 'ldapadd', 'ldapdelete', 'ldappasswd',
                                   'ldapwhoami', 'ldapcompare', 'ldapmodrdn')},
    **{(c, '-p'): 'both' for c in ('sshpass', 'mongo', 'mongosh', 'mongodump', 'mongorestore', 'mongoexport',
                                   'mongoimport', 'cqlsh', 'influx',
                                   'oras login', 'skopeo login', 'buildah login', 'crane auth login', 'regctl',
                                   'docker login', 'podman login', 'nerdctl login', 'helm registry login',
                                   'helm repo add', 'smbclient', 'rabbitmqadmin',
                                   'mosquitto_pub', 'mosquitto_sub', 'xfreerdp', 'vncviewer', 'sqlplus')},
    ('redis-cli', '-a'): 'both', ('keydb-cli', '-a'): 'both', ('openssl', '-k'): 'next',
    ('codecov', '-t'): 'both', ('influx', '-t'): 'both', ('heroku', '-t'): 'next', ('ngrok', '-authtoken'): 'next',
    ('vault', '-token'): 'next', ('consul', '-token'): 'next', ('nomad', '-token'): 'next',
    ('snyk', 'auth'): 0, ('ngrok', 'authtoken'): 0, ('ngrok', 'add-authtoken'): 0, ('vault', 'login'): 0,
    ('rabbitmqctl', 'add_user'): 1, ('rabbitmqctl', 'change_password'): 1, ('redis-cli', 'auth'): 0,
    ('redis-cli', 'AUTH'): 0, ('htpasswd', '-b'): -1, ('htpasswd', '-nb'): -1, ('htpasswd', '-bc'): -1,
    ('htpasswd', '-cb'): -1, ('htpasswd', '-Bb'): -1, ('htpasswd', '-bB'): -1, ('htpasswd', '-nbB'): -1,
    **{('keytool', f): 'next' for f in ('-storepass', '-keypass', '-srcstorepass', '-deststorepass', '-srckeypass',
                                        '-destkeypass', '-new')},
    ('openssl', '-passin'): 'next', ('openssl', '-passout'): 'next', ('openssl', '-pass'): 'next',
}
# flags whose value is `pass:SECRET`, `env:NAME` or `file:PATH` (openssl's)
PASS_ARG = re.compile(r'^(pass|env|file|fd|stdin):')
# a credential in a word: `user:password` (curl -u), `user%password` (smbclient -U), `user/password@db` (Oracle)
USER_PASS = {('lftp', '-u'): ',', ('curl', '-u'): ':', ('curl', '--user'): ':', ('wget', '--user'): None, ('smbclient', '-U'): '%',
             ('http', '-a'): ':', ('httpie', '-a'): ':', ('xh', '-a'): ':', ('mount', '-o'): None}
ORACLE = frozenset({'sqlplus', 'expdp', 'impdp', 'rman', 'sqlldr', 'exp', 'imp', 'dgmgrl', 'sql'})
_CALLED = {c for c, _ in CREDENTIAL_ARGS} | {c for c, _ in USER_PASS} | ORACLE
# a command's name, and its name with its subcommand where the table names one (`docker login`)
COMMANDS = frozenset(' '.join(c.split()[:k]) for c in _CALLED for k in range(1, len(c.split()) + 1))
ORACLE_LOGIN = re.compile(r'^[\w$#]+/(?P<pw>[^@\s/]+)(?:@|$)')

_REFERENCE = re.compile(r'''^(?:ENC[\[(].*|\$ANSIBLE_VAULT.*|!vault.*|vault:v\d+:.*|[{(\[$@:].*|.*(?:\$\{|\#\{|\{\{|\$\(|\{[A-Za-z_][\w.]*(?:![rsa])?(?::[^}]*)?\}).*|\$\{?[A-Za-z_]\w*\}?|\$\{.*\}|\$\(.*\)|\{\{.*\}\}|\{%.*%\}|<[^<>]*>|%[A-Za-z_]\w*%|#\{.*\}
    |%\(\w+\)[sd]|\[REDACTED:[^\]]*\].*|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|process\.env\.\w+|env\(\w+\))$''', re.X)
_PLACEHOLDER = re.compile(r'''(?i)^(?:.*(?:x{4,}|\*{3,}|\.{3}|…|<[\w -]+>|example|dummy|placeholder|redacted|changeme
    |change[-_]me|replace[-_]?me|your[-_ ].*|fixme|todo).*|(?:.{0,12}[-_])?(?:x+|0+|1234(?:5678?)?)|my[-_]?(?:secret
    |password|token|key|pass)\w*|(?:some|the|a|test|fake|sample|secret|password|token|key|pass|value|string|none|null
    |nil|true|false|yes|no|on|off|undefined|required|optional|prompt|stdin|env|empty|hidden|masked|sensitive|string
    |default|auto|disabled|enabled|unset|n/a|na|tbd)|-|\*+|\.+)$''', re.X)
_PATH = re.compile(r'''^[a-z][a-z0-9+.-]*://\S*$|^(?:~|\.{1,2})?/[\w.@+~/-]*$|^[A-Za-z]:\\|^[\w.-]+/[\w./-]+\.\w{1,5}$|^[\w.-]+\.(?i:pem|key|json
    |txt|env|ya?ml|toml|crt|cer|p12|pfx|jks|gpg|asc|cfg|conf|ini|pub|der|keystore)$''', re.X)

# why a value in a credential position is kept (`memgate secrets` names each)
KEPT_STAND_IN = 'a placeholder, a reference or a path in a credential position'

def placeholder(v: str) -> bool:
    "Whether `v` stands for a value rather than being one: a reference, a placeholder, a path, a flag, a keyword."
    v = v.strip()
    return (not v or bool(_REFERENCE.match(v) or _PLACEHOLDER.match(v) or _PATH.match(v))
            or v.startswith('-'))

Found = tuple[int, int, str]

def _span(where: list[int], a: int = 0, b: int | None = None, kind: str = 'command-credential') -> Found:
    "A finding over a word's characters `a` to `b`, where they stand in the text."
    b = len(where) if b is None else b
    return where[a], where[b - 1] + 1, kind

def _assigned(v: str, where: list[int], raw: str) -> list[Found]:
    "The credential a word assigns to a secret name (`db.password=x`, `-Dpw=x`, `KEY=x`), to the next `name=`."
    for m in re.finditer(r'([A-Za-z_][\w.-]*)=', v):
        if not secret_name(m[1]): continue
        nxt = re.search(r'[ ,;&](?=[A-Za-z_][\w.-]*=)', v[m.end():])
        b = m.end() + nxt.start() if nxt else len(v)
        value = v[m.end():b]
        if not value: return []
        # unquoted, `x[1]` and `x,` are code (a call's arguments), not a shell's words
        code = raw[where[m.end()] - 1] not in '\'"' and ('[' in value or value.endswith(','))
        return [] if placeholder(value) or code else [_span(where, m.end(), b)]
    return []

def _credential(v: str, where: list[int], a: int, cmd: str | None, flag: str) -> list[Found]:
    "The credential in word `v` from character `a`: after `user:` where the flag takes both, after `pass:`."
    if (sep := USER_PASS.get((cmd, flag), '')) and sep in v[a:]: a = v.index(sep, a) + 1
    elif m := PASS_ARG.match(v[a:]):
        if m[1] != 'pass': return []
        a += m.end()
    return [_span(where, a)] if a < len(v) and not placeholder(v[a:]) else []

_SEPARATOR = re.compile(r'[;&|()`]')

def segments(line: str) -> list[list[tuple[str, list[int]]]]:
    "The simple commands of a shell line, each a list of its words (value, where each character stands)."
    out, cur, last = [], [], 0
    for m in _SHELL_WORD.finditer(line):
        if _SEPARATOR.search(line, last, m.start()) and cur:
            out.append(cur)
            cur = []
        cur.append(unquote(m[0]))
        cur[-1] = (cur[-1][0], [m.start() + i for i in cur[-1][1]])
        last = m.end()
    return out + [cur] if cur else out

_FLAG = re.compile(r'^(-{1,2})([A-Za-z][\w.-]*)(=)?')

def flag_parts(v: str, cmd: str | None) -> tuple[str, int, bool] | None:
    "(flag, where its value starts in `v`, whether the flag's name names a credential) of a flag word, else None."
    if not (m := _FLAG.match(v)): return None
    long = m[1] == '--' or (cmd, m[1] + m[2]) in CREDENTIAL_ARGS or (len(m[2]) > 1 and secret_name(m[2], True))
    if long: return m[1] + m[2], m.end(), len(m[2]) > 1 and secret_name(m[2], True)
    return v[:2], 2, False

def _command_findings(words: list[tuple[str, list[int]]], raw: str) -> list[Found]:
    "The credentials one simple command gives: by (command, flag), by a flag's name, by position, by assignment."
    out, cmd, i = [], None, 0
    while i < len(words):
        v, where = words[i]
        nxt = words[i + 1] if i + 1 < len(words) else None
        how = CREDENTIAL_ARGS.get((cmd, v))
        if (base := v.rsplit('/', 1)[-1]) in COMMANDS: cmd = base
        elif cmd and f'{cmd} {v}' in COMMANDS: cmd = f'{cmd} {v}'
        elif isinstance(how, int):
            at = len(words) - 1 if how < 0 else i + 1 + how
            if i < at < len(words) and not placeholder(words[at][0]): out.append(_span(words[at][1]))
            i = max(i, at)
        elif f := flag_parts(v, cmd):
            flag, a, named = f
            how = CREDENTIAL_ARGS.get((cmd, flag))
            takes = named or (cmd, flag) in USER_PASS
            if a < len(v) and (takes or how in ('both', 'attached')): out += _credential(v, where, a, cmd, flag)
            elif a == len(v) and nxt and (takes or how in ('next', 'both')):
                if not nxt[0].startswith('-'): out += _credential(*nxt, 0, cmd, flag)
                i += 1
            elif '=' in v: out += _assigned(v, where, raw)
        elif cmd in ORACLE and (o := ORACLE_LOGIN.match(v)) and not placeholder(o['pw']):
            out.append(_span(where, o.start('pw'), o.end('pw')))
        elif '=' in v: out += _assigned(v, where, raw)
        i += 1
    return out

# a line worth reading as a command: a command of the table, a flag or a name that may name a credential
_COMMAND_GATE = re.compile(r'(?i)(?:^|[\s/"\'`(])(?:' + '|'.join(sorted({re.escape(c.split()[0]) for c in COMMANDS}, key=len,
    reverse=True)) + r')\s|-[\w.-]*(?:pass|pw|token|secret|key|auth|cred|pin|psk|sig)|(?:pass|pw|token|secret|key|auth|cred|pin|psk|sig)[\w.-]*=')

# a line's number as a file viewer shows it (`cat -n`, an agent's Read: `    12→`): not part of what the line says
LINE_NUMBER = re.compile(r'^[ \t]*\d+(?:→|\t)')

def command_findings(text: str) -> list[Found]:
    "(start, end, kind) of each credential the command lines of `text` give in a credential position."
    out, at = [], 0
    # a continued line is read with its continuation (the same length: places stay)
    joined = text.replace('\\\n', '  ').replace('\\\r\n', '   ')
    for line in joined.split('\n'):
        line = LINE_NUMBER.sub(lambda m: ' ' * len(m[0]), line)
        if _COMMAND_GATE.search(line):
            out += [(s + at, e + at, k) for seg in segments(line) for s, e, k in _command_findings(seg, line)]
        at += len(line) + 1
    return out

# a name, then what assigns it or gives its default: `=`, `:`, `:=`, `=>`, `||`, `??`, `?:`, `,` (a pair, a
# lookup's default), `.unwrap_or(`, `.getOrElse(`, ...; a type annotation between (`password: str = "…"`)
_NAMED = re.compile(r'''(?P<q>["'`]?)(?P<name>[A-Za-z_$@][\w.$@-]{0,80}?(?:::[A-Za-z_]\w*)*)(?P=q)(?P<close>\s*[\])]{1,2})?
    (?P<sep>[ \t]*(?:(?<=\w):[ \t]*[A-Za-z_][\w.\[\]<>|, ]{0,30}?[ \t]*=(?!=)|:=|=>|\?\?=?|\|\|=?|\?:|(?<![=!<>])=(?!=)
    |(?<=[\w"'`\]]):(?!:)|(?<=["'`])[ \t]+:(?!:)|(?<=\w)[ \t]+(?=["'])|,|\.(?:unwrap_or(?:_else)?|or_else|getOrElse|get_or|orElse|or|default)\((?:\|_?\w*\|)?)[ \t]*)''', re.X)
# what may wrap a literal (`String::from("…")`, `@"…"`, `r"…"`, `Some("…")`)
_WRAP = re.compile(r'''(?:(?:String::from|new\s+String|Some|str|String|Secret|SecretStr|SecureString|bytes|b|r|u|f
    |rb|br|@|&|\$|b64decode|base64\.b64decode)\(?|\()*''', re.X)
_LITERAL = re.compile(r'''"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`[^`\n]*`''')
# a literal's continuation: `"a" "b"`, `"a" + "b"`, `"a" +⏎ "b"`, `"a" .. "b"`, `"a" . "b"`
_MORE = re.compile(r'''[ \t]*(?:\+|\.\.?|&|<>|\|\|)?[ \t]*\\?(?:\r?\n[ \t]*(?:\+|\.\.?|&)?[ \t]*)?(?="|')''')
# unquoted, a value is code when it is a name, an attribute, a call, a subscript, a type or a keyword
_CODE = re.compile(r'''^[!&*]*[A-Za-z_$@][\w$@]*(?:(?:\.|::|->|\?\.)[A-Za-z_$@][\w$@]*)*!?(?:\(.*|\[.*|<.*>|\{.*|\s*(?:\?\?|\|\||&&|\?|or|and|if)\s.*)?
    [?!;,)]*$|^\d+(?:\.\d+)*[a-z]{0,3}[;,]?$''', re.X)
_TYPES = frozenset('str string bool boolean int integer number any object none null nil true false undefined'.split())
_LINE_START = re.compile(r'(?:[ \t]*\d+(?:→|\t))?[-+]?[ \t]*(?:export[ \t]+|set[ \t]+|-[ \t]+|\$env:|setenv[ \t]+|ENV[ \t]+|ARG[ \t]+)?$')

def _quoted(text: str, at: int) -> tuple[int, int] | None:
    "The span of the text of the literal at `at` (several literals joined by concatenation: their whole)."
    if not (m := _LITERAL.match(text, at)): return None
    s, e = m.start() + 1, m.end() - 1
    while (more := _MORE.match(text, m.end())) and (nxt := _LITERAL.match(text, more.end())):
        m, e = nxt, nxt.end() - 1
    return s, e

def _block(text: str, at: int, indent: int) -> tuple[int, int] | None:
    "The span of a YAML block scalar's lines (`key: |`, `key: >-`): those indented more than its key."
    line_end = text.find('\n', at)
    if line_end < 0: return None
    end, pos = line_end, line_end + 1
    while pos < len(text):
        nl = text.find('\n', pos)
        nl = len(text) if nl < 0 else nl
        line = text[pos:nl]
        if line.strip() and len(line) - len(line.lstrip(' ')) <= indent: break
        end, pos = nl, nl + 1
    return (line_end + 1, end) if end > line_end else None

def _unquoted(text: str, at: int, whole_line: bool) -> tuple[int, int]:
    "The span of an unquoted value: to the end of its line in a config line (comments off), else of its token."
    if whole_line:
        e = text.find('\n', at)
        e = len(text) if e < 0 else e
        if (c := re.search(r'[ \t]+(?:#|//|;)[ \t]', text[at:e])): e = at + c.start()
    else:
        m = re.compile(r'[^\s,;)\]}"\'`<>]+').match(text, at)
        e = m.end() if m else at
    while e > at and text[e - 1] in ' \t\r,;': e -= 1
    return at, e

# where a secret-named name may stand: one of its words (or a glued one) in any case
_SECRET_WORD = re.compile('(?i)' + '|'.join(sorted(SECRET_WORDS | set(GLUED), key=len, reverse=True)))
_NAME_CHAR = re.compile(r'[\w.$@:-]')

# a name made of words (`access_token`, `DigestAuth`): a literal that names, rather than is, a value
_NAME_LIKE = re.compile(r'^_*(?:[a-z][a-z0-9]*(?:[_.-][a-z0-9]+)+|(?:[A-Z][a-z]+){2,}|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)$')

def name_like(v: str) -> bool:
    "Whether `v` is a name made of words (`access_token`, `DigestAuth`, `DB_PASSWORD`): it names a value."
    return bool(_NAME_LIKE.match(v)) and all(w in dictionary() or len(w) <= 3 for w in name_words(v))

def _value_at(text: str, at: int, name_at: int, sep: str) -> tuple[int, int] | None:
    "The span of the value assigned at `at` to the name at `name_at` (quoted, a block, a config line's rest or a token)."
    lit = _WRAP.match(text, at).end()
    if text[lit:lit + 1] in ('"', "'", '`'):
        span = _quoted(text, lit)
        return None if span and name_like(text[span[0]:span[1]]) else span
    if sep.strip() in (',', '||', '??', '?:') or '(' in sep: return None
    line_start = text.rfind('\n', 0, name_at) + 1
    starts = bool(_LINE_START.match(text[line_start:name_at]))
    if starts and re.match(r'[|>][-+]?[ \t]*(?:\n|$)', text[at:at + 4]):
        return _block(text, at, name_at - line_start)
    # config text (.env, YAML, properties: a name that starts its line, `KEY=v`, `key: v`): the rest of the line
    config = starts and (sep.strip() == ':' or '=' in sep and ' =' not in sep)
    s, e = _unquoted(text, at, config)
    value = text[s:e]
    first = re.match(r'[\w$@]*', value)[0]
    if first.lower() in _TYPES or (first[:1].isupper() and re.match(r'\w+(?:<|\[\]|\?|$)', value)
                                    and not config): return None
    # code: a name, an attribute, a call; in config text a bare word is text
    if _CODE.match(value) and not (config and re.fullmatch(r'[\w-]+', value)): return None
    return s, e

def assignment_findings(text: str,
                        kept: list | None = None, # gets (start, end, why) of each value such a key holds that is kept
                       ) -> list[Found]:
    "(start, end, kind) of each value assigned to a secret-named key or variable, in any syntax, whole as it is delimited."
    out, done = [], -1
    for w in _SECRET_WORD.finditer(text):
        a = w.start()
        if a < done: continue
        while a > 0 and _NAME_CHAR.match(text, a - 1): a -= 1
        if a > 0 and text[a - 1] in '"\'`': a -= 1
        if not (m := _NAMED.match(text, a)) or m.end('name') < w.end(): continue
        name = m['name'].rstrip(':')
        if not (secret_name(name.rsplit('.', 1)[-1].rsplit('::', 1)[-1]) or secret_name(name)): continue
        if m['sep'].strip() == ',' and not (m['q'] and re.search(r'[_A-Z]', name) and not name[:1].isupper()
                                            or name.isupper()): continue
        span = _value_at(text, m.end(), m.start('name'), m['sep'])
        done = m.end()
        if span and span[1] > span[0] and not placeholder(text[span[0]:span[1]]):
            out.append((*span, 'assigned-credential'))
            done = span[1]
        elif span and span[1] > span[0] and kept is not None: kept.append((*span, KEPT_STAND_IN))
    return out

# a pair that names its secret apart from its value: `<add key="DbPassword" value="…"/>`, Kubernetes' env list
# (`- name: DB_PASSWORD⏎  value: …`), `{"name": "API_TOKEN", "value": "…"}`, `--build-arg`-style `Name=X,Value=Y`
_PAIR = re.compile(r'''(?i)\b(?:key|name|id|variable|param(?:eter)?)["']?[ \t]*[=:][ \t]*["']?(?P<name>[\w.-]{2,80})["']?
    [ \t]*,?[ \t]*(?:\r?\n[ \t]*)?-?[ \t]*["']?(?:value|secret|default)["']?[ \t]*[=:][ \t]*''', re.X)
# a config file's directive: `requirepass X` (redis.conf), `masterauth X`, `password X` alone on a line
_DIRECTIVE = re.compile(r'(?m)^[ \t]*(?P<name>[a-z][\w-]{2,40})[ \t]+(?P<v>"[^"\n]+"|\S+)[ \t]*$')
# a password hash file's line (.htpasswd, shadow): what follows the user is the hash, a secret too
_HASHED = re.compile(r'(?m)^[\w.@-]+:(?P<v>\$(?:apr1|2[abyx]?|[156]|y)\$\S+|\{SHA\}\S+|\{SSHA\}\S+)')

# Oracle's EZConnect login anywhere (a JDBC URL, a tool's argument): user/password@//host:port/service
_EZCONNECT = re.compile(r'(?<![\w/.])[A-Za-z][\w$#]*/(?P<v>[^\s@/\'"]{3,})@(?://)?[\w.-]+:\d+/\w+')

def pair_findings(text: str) -> list[Found]:
    "(start, end, kind) of secrets a config file holds by its form: name and value pairs, directives, hashed lines."
    out = []
    for m in _PAIR.finditer(text):
        if secret_name(m['name']) and (span := _value_at(text, m.end(), m.start(), '=')):
            if span[1] > span[0] and not placeholder(text[span[0]:span[1]]): out.append((*span, 'assigned-credential'))
    for m in _DIRECTIVE.finditer(text):
        v = m['v'].strip('"')
        if secret_name(m['name']) and not placeholder(v) and not plain_word(v):
            out.append((*(m.span('v') if not m['v'].startswith('"') else (m.start('v') + 1, m.end('v') - 1)),
                        'config-credential'))
    out += [(*m.span('v'), 'password-hash') for m in _HASHED.finditer(text)]
    out += [(*m.span('v'), 'config-credential') for m in _EZCONNECT.finditer(text) if not placeholder(m['v'])]
    return out

def plain_word(v: str) -> bool:
    "Whether `v` is an ordinary word, or words joined by `-` or `_` (`reset-by-admin`): said of a password, not one."
    parts = re.split(r'[-_]', re.sub(r"['’]s?$", '', v.lower()))
    return all(p.isalpha() and (p in dictionary() or len(p) <= 2) for p in parts) and any(len(p) > 2 for p in parts)

# the word for a password in prose, in 30 languages, with their abbreviations (lower case)
PASSWORD_WORDS = ('password passwort passwd passphrase passcode kennwort contraseña contrasena clave mot de passe mdp '
    'senha palavra-passe wachtwoord hasło haslo şifre sifre parola пароль heslo jelszó jelszo lösenord losenord '
    'passord adgangskode kodeord salasana κωδικός סיסמה كلمة المرور كلمة السر पासवर्ड パスワード 密码 密碼 口令 비밀번호 '
    'mật khẩu mat khau kata sandi kata laluan parolă parola lozinka geslo slaptažodis parool pw passwd pin').split()
# multi-word ones joined back
_PHRASES = ['mot de passe', 'palavra-passe', 'كلمة المرور', 'كلمة السر', 'mật khẩu', 'mat khau', 'kata sandi',
            'kata laluan']
_SAYS = (r'(?:is|is\s+now|was|are|=|:|：|es|era|ist|lautet|war|est|était|é|è|e|jest|to|je|on|er|är|ar|é agora|'
         r'ahora es|jetzt|now|set\s+to|changed\s+to|was\s+set\s+to|became|это|—|->|→|は|是|为|為|는|은|là|adalah|'
         r'este|je|yra|olarak|olsun|=>)')
_PROSE = re.compile(r'(?i)(?<![A-Za-z0-9/.])(?:' + '|'.join(sorted(map(re.escape, set(PASSWORD_WORDS) | set(_PHRASES)),
    key=len, reverse=True)) + r')(?![\w-])')
_SAYS_RE = re.compile(r'(?i)[ \t]*(?:' + _SAYS + r')(?![\w])[ \t]*[:：]?|[ \t]*[:：=]')
_PROSE_TOKEN = re.compile(r'''[ \t]*(`[^`\n]{3,80}`|"[^"\n]{3,80}"|'[^'\n]{3,80}'|«[^»\n]{3,80}»|“[^”\n]{3,80}”|「[^」\n]{3,80}」
    |\([^()\s]{6,80}\)|[^\s`"'«“「(](?:[^\s"]|"(?![,:}\]]))*)''', re.X)

def _random_enough(v: str) -> bool:
    "Whether an unquoted value said in prose without `is` or `:` looks like a credential: a digit or symbol in a non-word."
    return (len(v) >= 6 and not plain_word(v) and bool(re.search(r'[A-Za-z]', v)) and not re.search(r'[:=]["\']', v)
            and bool(re.search(r'\d|[^\w./\'’-]', v)))

# what an unquoted password said in prose does not start with (a path, a mention, a closing bracket, punctuation)
_NOT_FIRST = '/.@#&)]}>,;:='

def _prose_value(text: str, t) -> tuple[int, int, bool]:
    "(start, end, quoted) of a prose token's value: inside its quotes, else without its closing punctuation."
    s, e = t.span(1)
    quoted = t[1][0] in '`"\'«“「('
    if quoted: return s + 1, e - 1, True
    while e > s and text[e - 1] in '.,;:!?)]}>\'"': e -= 1
    return s, e, False

def _said(text: str, at: int) -> tuple[int, int] | None:
    "The password said after a password word that ends at `at`: after its `is` or `:`, or next to it looking random."
    # a flag follows: a command line's words (`aws ecr get-login-password --region …`), not prose
    if re.match(r'[ \t]+--?[A-Za-z]', text[at:at + 4]): return None
    # right after its word, a value that looks random is the password (`root pw xY7!kk22 on the old box`)
    if text[at:at + 1] in (' ', '\t') and (t := _PROSE_TOKEN.match(text, at)) and not _SAYS_RE.match(text, at):
        s, e, quoted = _prose_value(text, t)
        v = text[s:e]
        if _random_enough(v) and not placeholder(v) and '[REDACTED' not in v and (quoted or v[:1] not in _NOT_FIRST):
            return s, e
    pos, says = at, None
    # a copula or a colon within a few words says what follows is the password (`a senha do Wi-Fi é …`)
    for _ in range(8):
        if m := _SAYS_RE.match(text, pos):
            says = m.end()
            break
        if not (t := _PROSE_TOKEN.match(text, pos)): break
        pos = t.end()
    pos = says or at
    for words in range(3):
        while m := _SAYS_RE.match(text, pos): pos = m.end()
        if not (t := _PROSE_TOKEN.match(text, pos)): return None
        s, e, quoted = _prose_value(text, t)
        v, pos = text[s:e], t.end()
        if '[REDACTED' in v: continue
        if not quoted and (v[:1] in _NOT_FIRST or '(' in v or '[' in v): return None
        if quoted and re.search(r'(?i)pass|pw', v): return None
        if says and not words and (re.fullmatch(r'\d{4,12}', v) or not (placeholder(v) or plain_word(v) or len(v) < 4
                                                                      or _CODE.match(v))): return s, e
        if _random_enough(v) and not placeholder(v): return s, e
        # without `is`, the password stands next to its word, or one word on (`the admin password earlier (…)`)
        if not says and words: return None
    return None

def prose_findings(text: str) -> list[Found]:
    "(start, end, kind) of each password said in prose, in any of `PASSWORD_WORDS`' languages, quoted or not."
    out = []
    for m in _PROSE.finditer(text):
        # inside a name: only an environment variable's (`set DB_PASSWORD to …`), not code's (`password_hash`)
        if text[m.start() - 1:m.start()] == '_' and not m[0].isupper(): continue
        span = _said(text, m.end())
        # a PIN is its digits
        if span and (m[0].lower() != 'pin' or re.fullmatch(r'\d{4,8}', text[span[0]:span[1]])):
            out.append((*span, 'prose-credential'))
    return out

def merged(*layers: list[Found]) -> list[Found]:
    "Findings of several finders as one, in order: where two overlap, their union, named by the earlier layer's."
    flat = sorted((s, e, i, k) for i, found in enumerate(layers) for s, e, k in found if e > s)
    out: list[list] = []
    for s, e, i, k in flat:
        if out and s < out[-1][1]:
            last = out[-1]
            last[1] = max(last[1], e)
            if i < last[2]: last[2:] = [i, k]
        else: out.append([s, e, i, k])
    return [(s, e, k) for s, e, _, k in out]

_TABLE_SEP = re.compile(r'^[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*(?:\|[ \t]*:?-{3,}:?[ \t]*)+\|?[ \t]*$')
_CELL = re.compile(r'[^|]+')

_CSV_CELL = re.compile(r'[ \t]*(?:"(?:[^"]|"")*"|[^,]*)')

def _cells(line: str, sep: str = '|') -> list[tuple[int, int]]:
    "The spans of a table row's cells (a CSV's quoted cells whole), their spaces and backticks or quotes trimmed."
    parts = line.split(sep)
    if sep != '|':
        parts, at = [], 0
        while at <= len(line):
            m = _CSV_CELL.match(line, at)
            parts.append(m[0])
            at = m.end() + 1
    out, at = [], 0
    for part in parts:
        s, e = at, at + len(part)
        while s < e and line[s] in ' \t`"\'': s += 1
        while e > s and line[e - 1] in ' \t`"\'': e -= 1
        out.append((s, e))
        at += len(part) + 1
    return out

def _row_findings(line: str, at: int, header: list[str], sep: str) -> list[Found]:
    "The credentials of one table row: cells under a secret-named column, a value beside a secret-named name."
    cells = _cells(line, sep)
    if len(cells) != len(header): return []
    names = [i for i, h in enumerate(header) if set(name_words(h)) & {'name', 'names', 'key', 'keys', 'variable',
                                                                      'variables', 'var', 'vars', 'env', 'setting'}]
    values = [i for i, h in enumerate(header) if set(name_words(h)) & {'value', 'values', 'current'}]
    out = []
    for i, (s, e) in enumerate(cells):
        v = line[s:e]
        pair = names and i in values and secret_name(line[slice(*cells[names[0]])], True)
        if (secret_name(header[i], True) or pair) and not placeholder(v) and not plain_word(v) and e > s:
            out.append((s + at, e + at, 'table-credential'))
    return out

def table_findings(text: str) -> list[Found]:
    "(start, end, kind) of each credential in a table: a markdown table's or a CSV's column named for a secret."
    out, lines, at = [], text.split('\n'), 0
    starts = []
    for line in lines:
        starts.append(at)
        at += len(line) + 1
    i = 0
    while i < len(lines) - 1:
        line = LINE_NUMBER.sub(lambda m: ' ' * len(m[0]), lines[i])
        nxt = LINE_NUMBER.sub(lambda m: ' ' * len(m[0]), lines[i + 1])
        md = '|' in line and _TABLE_SEP.match(nxt)
        csv = not md and line.count(',') >= 1 and re.fullmatch(r'[ \t]*[\w. -]+(?:,[\w. -]+)+[ \t]*', line)
        header = [line[s:e].strip().lower() for s, e in _cells(line, '|' if md else ',')]
        if not (md or csv) or not any(secret_name(h, True) or 'value' in name_words(h) for h in header):
            i += 1
            continue
        j = i + (2 if md else 1)
        while j < len(lines):
            row = LINE_NUMBER.sub(lambda m: ' ' * len(m[0]), lines[j])
            if md and '|' not in row or csv and len(_cells(row, ',')) != len(header): break
            out += _row_findings(row, starts[j], header, '|' if md else ',')
            j += 1
        i = j
    return out

def position_findings(text: str) -> list[Found]:
    "(start, end, kind) of each credential `text` holds by position: on a command line, assigned, in a pair, a table or prose."
    return merged(command_findings(text), pair_findings(text), table_findings(text), assignment_findings(text),
                  prose_findings(text))
