"""Secrets are caught by where they stand (issue 26): 130 secrets none of memgate's earlier corpora held, in every
syntax of assignment, command line, header, URL, credentials file and token family the issue lists, planted in every
place a session holds text (user and assistant text, thinking, tool inputs, tool results, past the tool-result cut,
Codex outputs and arguments as escaped JSON, wrapped over lines, split between two records). No 12-character piece
of any may reach the request bodies, the log, the recording, stdout, stderr, `chunks`, `show` (every format),
`export` or `report`."""
import base64, json, random
from synth import cc, write_jsonl
from secret_outputs import every_output, pieces

RNG = random.Random(26)
ALNUM = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'

def tok(n: int, alphabet: str = ALNUM) -> str:
    "A random token of `n` characters with a digit and a letter in it, as issued ones have (where both can be)."
    while True:
        t = ''.join(RNG.choice(alphabet) for _ in range(n))
        if alphabet.isdigit() or (any(c.isdigit() for c in t) and any(c.isalpha() for c in t)): return t

def pw() -> str: return tok(6) + RNG.choice('!#%*+._-') + tok(5)
def hexs(n: int) -> str: return tok(n, '0123456789abcdef')
def b64(n: int) -> str: return tok(n, ALNUM + '+/')
def basic(user: str) -> str: return base64.b64encode(f'{user}:{pw()}'.encode()).decode()

PEM_BODY = '\n'.join(b64(64) for _ in range(8))
PLACES = [   # (what it is, the text it stands in, the secret); the secret is put in where {} is
    # assignments to a secret-named key, in every syntax
    ('.env', 'REDIS_PASS={}', pw()), ('.env', 'API_TOKEN={}', tok(32)), ('.env', 'SIGNING_KEY={}', tok(40)),
    ('.env', 'DB_PASS={}', pw()), ('.env', 'SECRET_KEY_BASE={}', hexs(64)), ('.env', 'SESSION_SECRET={}', tok(24)),
    ('export', 'export STRIPE_WEBHOOK_SECRET={}', tok(32)), ('export', 'export AUTH_TOKEN="{}"', tok(40)),
    ('export', "export PGPASSWORD='{}'", pw()), ('json', '{{"token": "{}", "user": "ci"}}', tok(36)),
    ('json', '{{"key": "{}"}}', tok(32)), ('json', '"client_secret": "{}",', tok(35)),
    ('json', '{{"password":"{}"}}', pw()), ('json', '{{"refresh_token": "{}"}}', tok(48)),
    ('escaped json', '"{{\\"api_key\\": \\"{}\\", \\"model\\": \\"x\\"}}"', tok(40)),
    ('escaped json', '{{\\"db_password\\":\\"{}\\"}}', pw()),
    ('yaml', 'api key: {}', tok(32)), ('yaml', '  password: {}', pw()), ('yaml', '  secret: "{}"', tok(30)),
    ('yaml', 'auth_token: {}', tok(40)), ('toml', 'token = "{}"', tok(40)), ('toml', 'webhook_secret = "{}"', tok(32)),
    ('ini', 'password = {}', pw()), ('ini', 'secret_access_key={}', b64(40)),
    ('xml', '<password>{}</password>', pw()), ('xml', '<apiKey>{}</apiKey>', tok(32)),
    ('html attribute', '<div data-api-key="{}"></div>', tok(32)),
    ('xml attribute', '<add key="Token" value="{}"/>', tok(36)),
    ('python', 'password = "{}"', pw()), ('python', 'client = Client(api_key="{}")', tok(40)),
    ('python', "headers = {{'X-Api-Token': '{}'}}", tok(32)), ('js', "const token = '{}';", tok(40)),
    ('js', 'apiKey: "{}",', tok(39)), ('go', 'password := "{}"', pw()), ('go', 'secretKey := "{}"', tok(40)),
    ('php', "'password' => '{}',", pw()), ('ruby', 'config.secret_key = "{}"', hexs(64)),
    ('ruby', ':auth_token => "{}"', tok(32)), ('header', 'X-Api-Key: {}', tok(32)),
    ('header', 'Ocp-Apim-Subscription-Key: {}', hexs(32)), ('cookie', 'Cookie: session={}', tok(40)),
    ('cookie', 'Set-Cookie: sessionid={}; Path=/; HttpOnly', tok(32)),
    ('query', 'GET https://api.example.com/v1/items?token={}&page=2', tok(32)),
    ('query', 'https://graph.example.com/me?access_token={}', tok(48)),
    ('url-encoded', 'body: user%3Dci%26password%3D{}%26x%3D1', tok(16)),
    ('azure sas', 'https://acct.blob.core.windows.net/c/f?sv=2022-11-02&sr=b&sig={}%3D', b64(43)),
    ('userinfo', 'git clone https://deploy:{}@git.example.com/shop.git', tok(20)),
    ('userinfo token', 'git remote add origin https://{}@github.com/o/r.git', hexs(40)),
    ('userinfo', 'DATABASE_URL=postgres://app:{}@db.internal:5432/app', tok(24)),
    # credentials on command lines
    ('curl -u', 'curl -u admin:{} https://ci.example.com/api/json', pw()),
    ('curl --user', 'curl --user "bot:{}" https://x.example.com', tok(20)),
    ('docker login', 'docker login -u ci -p {} ghcr.io', tok(36)),
    ('sshpass', 'sshpass -p {} ssh deploy@10.0.0.5', pw()), ('mysql -p', "mysql -u root -p'{}' shop", pw()),
    ('mysql --password', 'mysqldump --password {} shop > dump.sql', pw()),
    ('aws configure', 'aws configure set aws_session_token {}', b64(120)),
    ('curl -b', 'curl -b sessionid={} https://app.example.com/me', tok(32)),
    ('--token', 'vercel deploy --token {} --prod', tok(24)), ('--api-key', 'tool sync --api-key {}', tok(32)),
    ('--password', 'wget --password {} ftp://files.example.com/a', pw()),
    ('helm', 'helm registry login registry.example.com -u bot -p {}', tok(32)),
    ('pip', 'pip install --index-url https://ci:{}@pypi.example.com/simple shop', tok(24)),
    ('npm', 'npm config set //registry.npmjs.org/:_authToken={}', tok(36)),
    ('gh', 'GH_TOKEN={} gh pr list', 'ghp_' + tok(36)),
    ('authorization', "curl -H 'Authorization: Bearer {}' https://api.example.com", tok(40)),
    ('authorization', 'Authorization: token {}', tok(40)), ('bearer', 'use Bearer {} for the call', tok(40)),
    ('basic', 'curl -H "Authorization: Basic {}" https://x.example.com', basic('admin')),
    # credentials files
    ('.netrc', 'machine api.heroku.com login me@example.com password {}', tok(36)),
    ('.netrc', 'machine github.com\n  login bot\n  password {}', tok(40)),
    ('.pgpass', 'db.internal:5432:shop:admin:{}', pw()),
    ('kubeconfig', '    client-key-data: {}', b64(120)), ('kubeconfig', '    token: {}', tok(50)),
    ('docker config', '{{"auths": {{"ghcr.io": {{"auth": "{}"}}}}}}', basic('ci')),
    ('.npmrc', '_auth={}', basic('npm')), ('aws credentials', 'aws_secret_access_key = {}', b64(40)),
    ('aws credentials', 'aws_session_token = {}', b64(100)),
    ('env dump', 'AWS_SESSION_TOKEN={}', b64(140)), ('env dump', 'VAULT_TOKEN={}', 'hvs.' + tok(90)),
    ('env dump', 'DB_PASS={}', pw()), ('.env', 'MYSQL_ROOT_PASSWORD={}', pw()),
    ('json', '"apiSecret": "{}"', tok(32)), ('--client-secret', 'az login --client-secret {} --tenant t', tok(34)),
    ('query', 'https://maps.example.com/api?key={}&q=x', tok(39)), ('php', "putenv('API_SECRET={}');", tok(32)),
    ('gcp key json', '{{"type": "service_account", "private_key": "{}"}}',
     '-----BEGIN PRIVATE KEY-----\\n' + b64(64) + '\\n' + b64(64) + '\\n-----END PRIVATE KEY-----\\n'),
    ('private key', '{}', '-----BEGIN RSA PRIVATE KEY-----\n' + PEM_BODY + '\n-----END RSA PRIVATE KEY-----'),
    ('openssh key', '{}', '-----BEGIN OPENSSH PRIVATE KEY-----\n' + PEM_BODY + '\n-----END OPENSSH PRIVATE KEY-----'),
    ('pgp key', '{}', '-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n' + PEM_BODY + '\n=' + tok(4) +
     '\n-----END PGP PRIVATE KEY BLOCK-----'),
    ('cut key', '$ head -c 400 key.pem\n{}', '-----BEGIN EC PRIVATE KEY-----\n' + PEM_BODY[:300]),
    # tokens of a known shape
    *[('known prefix', 'the key is {} now', t) for t in (
        'sk-ant-api03-' + tok(80), 'sk-proj-' + tok(64), 'ya29.' + tok(80), 'whsec_' + tok(32), 'hvs.' + tok(24),
        'AKIA' + tok(16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'), 'ghp_' + tok(36), 'github_pat_' + tok(60),
        'glpat-' + tok(20), 'xoxb-' + '2745819301-' + tok(24), 'npm_' + tok(36), 'hf_' + tok(34),
        'dop_v1_' + hexs(64), 'SG.' + tok(22) + '.' + tok(43), 'AIza' + tok(35), 'GOCSPX-' + tok(28),
        'shpat_' + hexs(32), 'lin_api_' + tok(40), 'dckr_pat_' + tok(27), 'gsk_' + tok(52), 'sk_live_' + tok(24),
        'pypi-AgEIcHlwaS5vcmc' + tok(60), 'glsa_' + tok(32) + '_' + hexs(8), 'xapp-1-A' + tok(10, '0123456789') +
        '-1234567890-' + hexs(64), 'rk_live_' + tok(24), 'sntrys_' + tok(60))],
    ('jwt', 'id_token: {}', 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ' + tok(60) + '.' + tok(86)),
    # wrapped over two lines: the second line must go too
    ('wrapped', 'OPENAI_API_KEY=\n  {}', 'sk-proj-' + tok(40) + '\n  ' + tok(20) + '7' + tok(20)),
]
SPLIT = [('sk-ant-api03-' + tok(60), 30), ('ghp_' + tok(36), 9), ('token=' + tok(40), 20)]   # across two records
FILLER = ''.join(f'build step {i}: compiled module {i} in {i % 7} ms\n' for i in range(900))

def sessions(root):
    "Every planted secret in some place of a Claude Code or a Codex session, one past the tool-result cut."
    claude, codex = [], [dict(timestamp='2026-04-01T10:00:00.000Z', type='session_meta',
                              payload=dict(id='x', cwd='/home/dev/shop'))]
    ts = lambda i: f'2026-04-01T1{1 + i // 3600}:{i // 60 % 60:02d}:{i % 60:02d}.000Z'
    for i, (_, where, secret) in enumerate(PLACES):
        text, at = where.format(secret), i % 7
        if at == 0: claude.append(cc('user', ts(i), f'please fix it: {text}'))
        elif at == 1: claude.append(cc('assistant', ts(i), [dict(type='text', text=f'I found: {text}')]))
        elif at == 2: claude.append(cc('assistant', ts(i), [dict(type='thinking', thinking=f'maybe {text}',
                                                                      signature='x')]))
        elif at == 3: claude.append(cc('assistant', ts(i), [dict(type='tool_use', id=f't{i}', name='Bash',
                                                                  input=dict(command=text, description='run'))]))
        elif at == 4: claude.append(cc('user', ts(i), [dict(type='tool_result', tool_use_id=f't{i}', content=text)]))
        elif at == 5: codex.append(dict(timestamp=ts(i), type='response_item', payload=dict(
            type='function_call_output', call_id=f'c{i}', output=json.dumps(dict(output=text, metadata={})))))
        else: codex.append(dict(timestamp=ts(i), type='response_item', payload=dict(
            type='function_call', name='shell', call_id=f'c{i}',
            arguments=json.dumps(dict(command=['bash', '-lc', text])))))
    for j, (secret, at) in enumerate(SPLIT):
        claude.append(cc('assistant', ts(500 + 2 * j), [dict(type='text', text=f'the value is {secret[:at]}')]))
        claude.append(cc('assistant', ts(501 + 2 * j), [dict(type='text', text=f'{secret[at:]} (rotated)')]))
    past = PLACES[0][1].format(PLACES[0][2])
    claude.append(cc('user', ts(600), [dict(type='tool_result', tool_use_id='tl', content=FILLER + past)]))
    write_jsonl(root / 'claude' / 'S1.jsonl', claude)
    write_jsonl(root / 'codex' / 'rollout-2026-04-01T10-00-00-0001.jsonl', codex)
    return root

def test_secrets_are_caught_by_where_they_stand_in_every_place_and_output(tmp_path):
    secrets = [s for _, _, s in PLACES] + [s for s, _ in SPLIT]
    assert len(secrets) >= 120
    outputs = every_output(sessions(tmp_path / 'sessions'), tmp_path)
    named = [(what, where) for what, where, _ in PLACES] + [('split', s) for s, _ in SPLIT]
    leaks = sorted({(what, where, name) for (what, where), secret in zip(named, secrets)
                    for name, text in outputs.items() if any(p in text for p in pieces(secret))})
    print(f"\n{len(secrets)} secrets planted in {len({w for w, _ in named})} kinds of place; leaks: {len(leaks)}")
    assert leaks == [], leaks
