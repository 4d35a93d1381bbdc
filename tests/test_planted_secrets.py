"""Secrets really stay home (issue 18, items 1 and 2): 41 realistic secrets of 30 kinds (none real) planted in Claude
Code and Codex sessions (tool inputs, tool results, past the tool-result cut too, assistant text, wrapped over lines,
split between two records)
run through `ingest` with MEMGATE_RECORD against a recording server; no 12-character piece of any secret may be in
the request bodies, the log, the recording, stdout, stderr, `show` (every format), `export` or `report`."""
import json
from collections import Counter
from synth import cc, write_jsonl
from secret_outputs import every_output, pieces

B64 = 'MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKh'
PEM = '-----BEGIN RSA PRIVATE KEY-----\n' + '\n'.join([B64[:64], B64[64:], B64[::-1][:64]] * 6) + \
      '\n-----END RSA PRIVATE KEY-----'
JWT = ('eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c2VyLTQyIiwicm9sZSI6ImFkbWluIiwiZXhwIjoxOTAwMDAwMDAwfQ.'
       'c2lnbmF0dXJlLXNpZ25hdHVyZS1zaWduYXR1cmUtc2lnbmF0dXJl')
SECRETS = {   # kind: [(the secret, the text it stands in)]
    'private-key': [(PEM, '$ cat ~/.ssh/deploy_key\n{}')],
    'anthropic-key': [('sk-ant-api03-' + 'Qw3rTy7uIo9pAs1dFg5hJk' * 3, 'export ANTHROPIC_API_KEY={}')],
    'openai-key': [('sk-proj-' + 'Zx8cVb6nMq2wEr4tYu7iOp' * 2, 'OPENAI_API_KEY={}'),
                   ('sk-svcacct-' + 'Lk9jHg7fDs5aPo3iUy1tRe' * 2, 'client = OpenAI(api_key="{}")')],
    'stripe-key': [('sk_live_' + '51HqZ8dKx3Lm9Np2Qr5St7Uv', 'STRIPE_SECRET={}'),
                   ('rk_live_' + '51HqZ8dKx3Lm9Np2Qr5Wq4Ez', 'restricted key {} rotated')],
    'aws-access-key': [('AKIA' + 'Z7Q2K9LM3NP8R4TX', 'aws_access_key_id = {}')],
    'aws-secret-key': [('q8Zr3Lm+Wx7Tb2Yv/Kp9Nc4Hs6Jd1Fg5Qa0Ee2Rt', 'aws_secret_access_key = {}')],
    'azure-key': [('Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1ub3BxcnN0dXY=',
                   'DefaultEndpointsProtocol=https;AccountName=shopdata;AccountKey={};EndpointSuffix=core.windows.net')],
    'google-api-key': [('AIza' + 'SyB7dK2mQ9xL4vN8pR3tW6yZ1aC5eG0hJ3k', 'maps key {}')],
    'github-token': [('ghp_' + 'R2d2C3p0B8b8K2s0Y4l3M1a9N6e5W7x1Q4z8',
                      'git remote set-url origin https://x:{}@github.com/o/r'),
                     ('github_pat_' + '11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEF', 'GH_TOKEN={}')],
    'gitlab-token': [('glpat-' + 'Xy7Zq3Wv9Ut5Sr1Qp8On', 'CI_JOB_TOKEN={}')],
    'huggingface-token': [('hf_' + 'QwErTyUiOpAsDfGhJkLzXcVbNmQwErTy', 'huggingface-cli login --token {}')],
    'npm-token': [('npm_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8', '//registry.npmjs.org/:_authToken={}')],
    'pypi-token': [('pypi-AgEIcHlwaS5vcmc' + 'CJDk4ZTc2ZWE3LTQ0YjktNGRmZi1hMjcwLTFmNjI3MjYxNTA4MgACKlsz',
                    'password = {}')],
    'docker-token': [('dckr_pat_' + 'Ab3Cd5Ef7Gh9Ij1Kl3Mn5Op7Qr9', 'docker login -u ci -p {}')],
    'digitalocean-token': [('dop_v1_' + '4f' * 32, 'DIGITALOCEAN_TOKEN={}')],
    'shopify-token': [('shpat_' + 'a1' * 16, 'X-Shopify-Access-Token: {}')],
    'databricks-token': [('dapi' + 'c0ffee12' * 4, 'DATABRICKS_TOKEN={}')],
    'atlassian-token': [('ATATT3' + 'xFfGF0T4a9Bc8De7Fg6Hi5Jk4Lm3No2Pq1Rs0Tu9Vw8Xy7', 'JIRA_API_TOKEN={}')],
    'linear-key': [('lin_api_' + 'Qw3Er5Ty7Ui9Op1As3Df5Gh7Jk9Lz1Xc3Vb5Nm7Q', 'LINEAR_API_KEY={}')],
    'groq-key': [('gsk_' + 'Pq9Rs7Tu5Vw3Xy1Za8Bc6De4Fg2Hi0Jk9Lm7No5Pq3', 'GROQ_API_KEY={}')],
    'sendgrid-key': [('SG.' + 'Ab3Cd5Ef7Gh9Ij1Kl3Mn5O.' + 'Pq7Rs9Tu1Vw3Xy5Za7Bc9De1Fg3Hi5Jk7Lm9No1Pq3Rs',
                      'SENDGRID={}')],
    # (an API key's secret: its SID, SK and 32 hex, is an id the rule file keeps wherever it stands; it was
    # taken here only by a seam that ate the next record's first word)
    'twilio-key': [('q7Lm2Xc9' + 'Vb4Nz8Rt6Yw1Ks5Hd3Jf0Pg', 'twilio api key secret {}')],
    'slack-token': [('xoxb-' + '2745819301-5482910374-Zq8Wx3Lm9Np2Qr5St7Uv', 'SLACK_BOT_TOKEN={}')],
    'slack-webhook': [('hooks.slack.com/services/' + 'T024BE7LD/B08L3HJ9X/Qw3rTy7uIo9pAs1dFg5hJk2l',
                       'curl -X POST https://{} -d @msg.json')],
    'discord-webhook': [('discord.com/api/webhooks/' + '1187654321098765432/Xy7Zq3Wv9Ut5Sr1Qp8OnMl6Kj4Ih2Gf0Ed',
                         'webhook: https://{}')],
    'jwt': [(JWT, 'Cookie: session={}'), (JWT[:50] + '\n    ' + JWT[50:100] + '\n    ' + JWT[100:], 'token:\n    {}')],
    'url-credentials': [('S3cr3tPassw0rd', 'DATABASE_URL=postgres://admin:{}@db.internal:5432/shop'),
                        ('dEpl0y-p4ss', 'git clone https://deploy:{}@git.example.com/shop.git')],
    'mysql-password': [('XyZ123secret', 'mysql -u root -p{} shop < dump.sql')],
    'authorization': [('Zm9vOmJhcjEyMzQ1Njc4OTBxd2VydHk', 'curl -H "Authorization: Basic {}" https://api.example.com')],
    'password': [('Hunter!2024secret', 'password={}'), ('letmein-now-2024', 'DB_PASSWORD={}'),
                 ("Pg!Pass#2024xyz", "PGPASSWORD='{}' psql"),
                 ('GOCSPX-' + 'Ab3Cd5Ef7Gh9Ij1Kl3Mn5Op7', 'client_secret: {}'),
                 ('correct-horse-battery-staple', '"db_password": "{}"')],
}
PLANTED = [(kind, secret, where.format(secret)) for kind, pairs in SECRETS.items() for secret, where in pairs]
SPLIT = [('anthropic-key', 'sk-ant-api03-' + 'Mn4bV6cX8zL0kJ2hG4fD6s' * 2, 30),    # each split between two records:
         ('github-token', 'ghp_' + 'K8s2Y4l3M1a9N6e5W7x1Q4z8R2d2C3p0B8b8', 8)]      # a long first part, a short one
FILLER = ''.join(f'build step {i}: compiled module {i} in {i % 7} ms\n' for i in range(900))     # 40,000 characters

def sessions(root):
    "A Claude Code and a Codex session holding every planted secret in each kind of place; one past the cut."
    texts = [text for _, _, text in PLANTED]
    claude, codex, ts = [], [], lambda i: f'2026-04-01T10:{i // 60:02d}:{i % 60:02d}.000Z'
    for i, text in enumerate(texts):
        at = i % 4
        if at == 0: claude.append(cc('assistant', ts(i), [dict(type='text', text=f'I found: {text}')]))
        elif at == 1: claude.append(cc('assistant', ts(i), [dict(type='tool_use', id=f't{i}', name='Bash',
                                                                  input=dict(command=text, description='run it'))]))
        elif at == 2: claude.append(cc('user', ts(i), [dict(type='tool_result', tool_use_id=f't{i}', content=text)]))
        else: codex.append(dict(timestamp=ts(i), type='response_item', payload=dict(
            type='function_call_output', call_id=f'c{i}',
            output=json.dumps(dict(output=text, metadata=dict(exit_code=1))))))
    for j, (_, secret, at) in enumerate(SPLIT):             # a tool's output delivered in two parts
        claude.append(cc('assistant', ts(60 + 2 * j), [dict(type='text', text=f'the token is {secret[:at]}')]))
        claude.append(cc('assistant', ts(61 + 2 * j), [dict(type='text', text=f'{secret[at:]} (rotated since)')]))
    long = FILLER[:15_000] + PEM + FILLER + 'password=Hunter!2024secret\n' + FILLER[:300]   # the key's END past the cut
    claude.append(cc('user', ts(80), [dict(type='tool_result', tool_use_id='tlong', content=long)]))
    codex.insert(0, dict(timestamp=ts(0), type='session_meta', payload=dict(id='x', cwd='/home/dev/shop')))
    codex.append(dict(timestamp=ts(81), type='response_item', payload=dict(
        type='function_call', name='shell', call_id='c99',
        arguments=json.dumps(dict(command=['bash', '-lc', texts[0]])))))
    write_jsonl(root / 'claude' / 'S1.jsonl', claude)
    write_jsonl(root / 'codex' / 'rollout-2026-04-01T10-00-00-0001.jsonl', codex)
    return root

def test_no_byte_of_a_planted_secret_leaves_or_is_written(tmp_path):
    kinds = Counter(kind for kind, _, _ in PLANTED + SPLIT)
    assert len(PLANTED + SPLIT) >= 40 and len(kinds) >= 25
    outputs = every_output(sessions(tmp_path / 'sessions'), tmp_path)
    leaks = [(kind, name) for kind, secret, _ in PLANTED + SPLIT for name, text in outputs.items()
             if any(piece in text for piece in pieces(secret))]
    found = Counter()
    for line in ((tmp_path / 'runs').rglob('*.jsonl').__next__()).read_text().splitlines():
        e = json.loads(line)
        if e['kind'] == 'run_end': found = Counter(e.get('redacted', {}))
    print(f"\n{len(PLANTED + SPLIT)} secrets of {len(kinds)} kinds planted; leaks: {len(leaks)}")
    for kind in sorted(kinds): print(f"  {kind:20s} planted {kinds[kind]}  redacted {found.get(kind, 0)}")
    assert leaks == [], leaks
