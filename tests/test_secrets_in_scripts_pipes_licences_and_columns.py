"""Issue 48, round 12's principles: a quoted word of words is a command line; what is piped into a command that reads
its password from stdin is one; a licence's key, an access key's id and a session cookie are credentials by name; a
table's header names its column; a found value spreads without the quote around it."""
import json
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from memgate.redact import KnownSecrets, found_values, redact, spreads

TAKEN = [
    # a command line inside a quoted word: the value, not the rest of the line
    ('bash -lc "SEQCORE_FTP_PASS=\'Cerise-de-Fromage-84\' perl push.pl && echo done"',
     'bash -lc "SEQCORE_FTP_PASS=\'[REDACTED:password]\' perl push.pl && echo done"'),
    ('  command: ["zsh", "-lc", "FTP_PASS=\'Cerise-de-Fromage-84\' perl push.pl /x.tgz && echo ok"]',
     '  command: ["zsh", "-lc", "FTP_PASS=\'[REDACTED:password]\' perl push.pl /x.tgz && echo ok"]'),
    ("docker run -e 'DB_PASSWORD=correct horse battery' postgres",
     "docker run -e 'DB_PASSWORD=[REDACTED:password]' postgres"),
    # sed's pattern is no value; the value after the second KEY= is
    ("sed -i 's/^DB_PASSWORD=.*/DB_PASSWORD=Xk29-pQ77-zz/' .env",
     "sed -i 's/^DB_PASSWORD=.*/DB_PASSWORD=[REDACTED:command-credential]' .env"),
    # piped into a command that reads a password from its input
    ("echo 'qtOH1NQEaO%5CZTJ' | kinit svc_backup@HPC.UNIV.EDU",
     "echo '[REDACTED:command-credential]' | kinit svc_backup@HPC.UNIV.EDU"),
    ("printf '%s' 'Tulip 99 wharf' | sudo -S systemctl restart nginx",
     "printf '%s' '[REDACTED:command-credential]' | sudo -S systemctl restart nginx"),
    # by name: a licence's key or serial, an access key's id whatever its shape, a session cookie
    ('ACTIVATION_SERIAL_NUMBER=4EOQ-L2PKG9QB', 'ACTIVATION_SERIAL_NUMBER=[REDACTED:assigned-credential]'),
    ('AWS_ACCESS_KEY_ID=42B2WA25SWX33BNFWQ2B', 'AWS_ACCESS_KEY_ID=[REDACTED:command-credential]'),
    ('      PHPSESSID: xokwsa85aeviokib7z1s1tq0qh', '      PHPSESSID: [REDACTED:assigned-credential]'),
    ("my $pass = 'Cerise-de-Fromage-84';", "my $pass = '[REDACTED:assigned-credential]';"),
    # a passphrase said after a Japanese password word and its particle
    ('アプリパスワードは wvya xlzw alpd gxsf です', 'アプリパスワードは [REDACTED:prose-credential] です'),
    # words with no function word among them are a passphrase still
    ('"password" => "correct horse battery staple",', '"password" => "[REDACTED:assigned-credential]",'),
]

@pytest.mark.parametrize('text,sent', TAKEN)
def test_a_credential_is_taken_and_nothing_around_it(text, sent):
    assert redact(text) == sent

KEPT = [
    'PASS: 12 tests',                                   # a verdict, not a value
    'パスワードはまだ変更していません',                      # a sentence after the particle
    "echo 'hello world' | wc -w",
    'product_code: ABX-2231', 'serial_number: C02XK1ZNJG5H', 'sessionId: 9b4786d7-a58e-4e26-9a49-869e35fa9008',
    '[ToolResult] run_accession  fastq_md5\nSRR32266431  66f855622733bf59a7202e197e69f94b\n',
    'peer: JT02BRoWo0lMcjvmISC8/BEZPpy3INJw5rhKAsJ8/X8=\n  allowed ips: 10.99.0.7/32',
    'his node is `nodekey:fa3a7917a0667e49ec1001bbb17a9998048481b446b144ed56fcfe59b5e23e54`.',
    "  static const revenueCatKey = 'appl_VC7XMELAqnYqc2fYwVKkiFV6IsJ';",
    'ALGOLIA_SEARCH_KEY=6e41e3ba1f13639ef207cea01c5b8db6',
    '      client_id: cilogon:/client_id/ca1d6f94fbfa8ec087148c77a37cf306',
    '    DB_PASSWORD=TODO_SET_ME', 'API_TOKEN=s3cr3t-placeholder',
    "    STORAGE_SECRET=os.environ['DJANGO_SECRET_KEY']",
    # real Phoenix code (phoenixframework/phoenix): a test's words, a log's mask, a type's spec, code, a
    # tool's default, an armour line with no key after it, an SVG path
    '"password" => "too short",', '  password: "does not match",', '"password" => "[FILTERED]"',
    '$ mix phx.gen.schema Accounts.Superhero superheroes secret_identity:redact password:string:redact',
    '    token: hashed_token,', 'assert {:ok, [%{token: ^hashed_token}]} = x',
    'assert_file("priv/cert/localhost_key.pem", "-----BEGIN RSA PRIVATE KEY-----")',
    '<path fill="#EE7868" d="M0 0h1480v957H0z" />', 'via a "Forgot your password?"-like workflow.',
    'assert user_token.context == "change:current@example.com"', 'tokens = [%{token: "token1"}]',
    '~r/password: "postgres"/,', '# remove the complexity from the password hashing algorithm\\r',
]

@pytest.mark.parametrize('text', KEPT)
def test_a_look_alike_is_sent_as_it_is(text):
    assert redact(text) == text

def test_a_token_column_is_still_judged_random():
    "A header that names no id or digest keeps nothing: a token under TOKEN is pseudonymised."
    sent = redact('NAME     TOKEN\ndeploy   kX9vQ2pLm7RtZZ10aa8Q\n')
    assert 'kX9vQ2pLm7RtZZ10aa8Q' not in sent and sent.startswith('NAME     TOKEN\ndeploy   [REDACTED:random#')

token = st.text(st.sampled_from('abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789_-'), min_size=16,
                max_size=40).filter(lambda v: v[0].isalnum() and v[-1].isalnum() and spreads(v))

@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(token)
def test_a_value_found_in_a_json_string_spreads_without_its_quotes(value):
    "Found under a secret's key in one JSON text, it is taken in another and the quotes around it stay."
    known = KnownSecrets(found_values(json.dumps({'HARBOR_ROBOT_SECRET': value})))
    assert all('"' not in v for v in known.values), known.values
    other = f'  "ROBOT": "{value}",\n  "NEXT": 1'
    sent = redact(other, known=known)
    assert value not in sent and sent.endswith('",\n  "NEXT": 1') and sent.startswith('  "ROBOT": "[REDACTED:')
