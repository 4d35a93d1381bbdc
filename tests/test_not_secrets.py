"""Issue 38: things that are not secrets stay as they are (gitleaks' allowlist conventions), while the secrets beside
them are still taken. Each kept case was redacted before."""
import pytest
from memgate.redact import redact

KEPT = [
    'Tool: mcp__n8n-mcp__n8n_health_check',                                   # an MCP tool's name
    'aws_access_key_id = AKIAIOSFODNN7EXAMPLE',                               # AWS's documented example key
    'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    'OPENAI_API_KEY=sk-...',                                                  # placeholders
    'export API_KEY="sk-..."',
    'use `Authorization: Bearer <token>` here',
    'golang.org/x/text v0.3.7 h1:Zr8Kp2Lm5Nx7Qw1Ty4UbVc6Xd9Se0Rf3Gh6Jk9Lz2M=',  # a go.sum hash
    '{"kty": "EC", "crv": "P-256", "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", '
    '"y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}',                    # a JWK's public members
    'uid: 3f2a9c1e-7b4d-4e8a-9f0c-1a2b3c4d5e6f',                              # UUIDs under ordinary keys
    '"lineage": "0d6c9a3e-4b1f-4c7e-9a2d-5e8f7a6b3c1d"',
    '"shasum": "a94a8fe5ccb19ba61c4c0873d391e987982fbbd3",',                   # npm's lockfile shasum
    'PublicKey = xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=',               # a WireGuard public key
    '  "private_key_id": "4f2a9c1b7d3e5f60718293a4b5c6d7e8f9012345",',        # names a key, as a kid does
    '647a1bedc56a5ae0b3ccdf3fee0b29595b7b6ae6f65d3b9c85733e46fb45e138  dist/cli-linux-amd64',  # sha256sum
    "define( 'build_id', '9b411dd123acc7241ef2db740227e40e' );",              # an id in a call's pair
    '<add key="tenant_id" value="2d947792d707eafd137110aaa0a7c90c2a97153f" />',  # an id in a key/value pair
]

@pytest.mark.parametrize('text', KEPT)
def test_what_is_no_secret_is_sent_as_it_is(text):
    assert redact(text) == text

TAKEN = [
    ('"d": "870MB6gfuTJ4HtUnUvYMyJpr5eUZNP4Bk43bVdj3eAE"', '870MB6gfuTJ4'),   # a JWK's private member
    ('OPENAI_API_KEY=sk-proj-Zr8Kp2Lm5Nx7Qw1Ty4UbVc6Xd9Se0R', 'Zr8Kp2Lm5Nx7'),
    ('aws_access_key_id = AKIAZR8KP2LM5NX7QW1T', 'ZR8KP2LM5NX7'),
    ('Tool: mcp__srv__query\n  api_key: Zr8Kp2Lm5Nx7Qw1Ty4UbVc6X', 'Zr8Kp2Lm5Nx7'),
    ('export API_KEY="sk-Zr8Kp2Lm5Nx7Qw1Ty4UbVc6Xd9..."', 'Zr8Kp2Lm5Nx7'),
    ('HEROKU_API_KEY=3f2a9c1e-7b4d-4e8a-9f0c-1a2b3c4d5e6f', '3f2a9c1e-7b4d'),   # a UUID that is a key
    ('PresharedKey = xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=', 'xTIBA5rboUvn'),   # WireGuard's secret one
    ('TOKEN=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U\nnext_var=1',
     'dozjgNryP4J3'),
]

@pytest.mark.parametrize('text,secret', TAKEN)
def test_the_secrets_beside_them_are_still_taken(text, secret):
    assert secret not in redact(text) and '[REDACTED:' in redact(text)

def test_the_line_after_a_jwt_keeps_its_name():
    jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'
    assert redact(f'TOKEN={jwt}\nnext_var=1') == 'TOKEN=[REDACTED:jwt]\nnext_var=1'
