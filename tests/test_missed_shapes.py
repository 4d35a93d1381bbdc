"""Issue 38: secret shapes the rules missed, or cut short, are taken whole now; the text around them stays."""
import base64
import pytest
from memgate.redact import redact

SHAPES = [   # (text, the secret in it)
    ('REDIS_URL=rediss://:Zr8Kp2Lm5Nx7Qw1T@cache.example.com:6380/0', 'Zr8Kp2Lm5Nx7Qw1T'),   # empty user
    ('redis-cli -u rediss://:Zr8Kp2Lm5Nx7Qw1T@cache.example.com:6380', 'Zr8Kp2Lm5Nx7Qw1T'),
    ('curl -H "Authorization: SSWS 00Zr8Kp2Lm5Nx7Qw1Ty4UbVc6Xd9Se0Rf3Gh6Jk9L" https://x.okta.com/api',
     '00Zr8Kp2Lm5Nx7Qw1Ty4UbVc6Xd9Se0Rf3Gh6Jk9L'),                                         # Okta
    ('psk="Zr8Kp2Lm5Nx7Qw1T"', 'Zr8Kp2Lm5Nx7Qw1T'),
    ('bot token is 1234567890:AAZr8Kp2Lm5Nx7Qw1Ty4UbVc6Xd9Se0Rf3Gh', 'AAZr8Kp2Lm5Nx7Qw1Ty4UbVc6Xd9Se0Rf3Gh'),
    ('the mailgun key is key-3ax6xnjp29jd6fds4gc373sgvjxteol0 ok', '3ax6xnjp29jd6fds4gc373sgvjxteol0'),
    ('the key lsv2_pt_0123456789abcdef0123456789abcdef_0123456789 works', '0123456789abcdef0123456789abcdef'),
    ('pinecone pcsk_4Zr8Kp_Lm5Nx7Qw1Ty4UbVc6Xd9Se0Rf3Gh6Jk9LzAbCdEfGh', 'Lm5Nx7Qw1Ty4UbVc6Xd9Se0Rf3Gh'),
    ('use dp.st.prd.Zr8Kp2Lm5Nx7Qw1Ty4UbVc6Xd9Se0Rf3Gh6Jk9LzAb here', 'Zr8Kp2Lm5Nx7Qw1Ty4UbVc6Xd9Se0Rf3Gh6Jk9LzAb'),
    ('notion ntn_123456789012Zr8Kp2Lm5Nx7Qw1Ty4UbVc6Xd9Se0Rf3Gh6Jk9',
     '123456789012Zr8Kp2Lm5Nx7Qw1Ty4UbVc6Xd9Se0Rf3Gh6Jk9'),
    ("mysql -u root -p'Zr8K\"p2Lm5Nx7Qw1T' db", 'p2Lm5Nx7Qw1T'),                              # past the "
    # a token cut by a hard wrap in one tool result: its second line goes too
    ('Created token:\nexport GH_TOKEN=ghp_Zr8Kp2Lm5Nx7Qw1Ty4UbVc6Xd9Se0Rf3Gh6Jk9LzAbCdEfGh\nIjKlMnOp7Q\ndone',
     'IjKlMnOp7Q'),
    # base64 of a URL with a password, under a Kubernetes Secret's data
    ('kind: Secret\ndata:\n  DATABASE_URL: ' + base64.b64encode(b'postgres://app:Zr8Kp2Lm5Nx7Qw1T@db:5432/app').decode(),
     base64.b64encode(b'postgres://app:Zr8Kp2Lm5Nx7Qw1T@db:5432/app').decode()),
]

@pytest.mark.parametrize('text,secret', SHAPES)
def test_a_missed_shape_is_taken_whole(text, secret):
    got = redact(text)
    assert '[REDACTED:' in got and not any(secret[i:i + 6] in got for i in range(len(secret) - 5)), got

@pytest.mark.parametrize('text', ['see http://localhost:8080/x and git@github.com:org/repo.git', 'key-value store',
                                  'the psk field is documented', 'mysql -u root -p db',
                                  'kind: Secret\ndata:\n  PORT: NTQzMg==\n  HOST: ZGIuaW50ZXJuYWw=',
                                  'export GH_TOKEN=$(gh auth token)  # a long line that ends in a plain word\nthen'])
def test_what_only_looks_like_them_stays(text):
    assert redact(text) == text
