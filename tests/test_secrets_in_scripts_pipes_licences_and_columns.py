"""Issue 48, rounds 12, 13 and 14's principles: a quoted word of words is a command line; what is piped into a
command that reads its password from stdin is one; a licence's key, an access key's id and a session cookie are
credentials by name; a table's header names its column and a two-cell row its value; a listing's first field is an
id; a property list's entry, an INI's bare words, an account's `user / password`, a code said of what it opens, a value
in groups, a secret's name said in prose are credentials; a found value spreads without the quote around it."""
import json
import pytest
from memgate.words import name_like
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
    # round 13: a property list's entry, macOS's keychain, an INI's bare words, a quoted name's value, groups,
    # an account's pair, a code of what it opens, any Authorization scheme, a URL's one-time code, FCM's key
    ('    <key>PGPASSWORD</key>\n    16→    <string>hJ5OigNre0.ScHeCSK</string>',
     '    <key>PGPASSWORD</key>\n    16→    <string>[REDACTED:config-credential]</string>'),
    ('run: security unlock-keychain -p "El8ri8o2w.RHft" ~/Library/Keychains/login.keychain-db',
     'run: security unlock-keychain -p "[REDACTED:command-credential]" ~/Library/Keychains/login.keychain-db'),
    ('smtp_user = a@b.io\nsmtp_password = amyj hgch gnpf qmcr\nsmtp_port = 587',
     'smtp_user = a@b.io\nsmtp_password = [REDACTED:assigned-credential]\nsmtp_port = 587'),
    ('a senha de app que tá no secret `APPLE_APP_SPECIFIC_PASSWORD` é wnjy-zisy-egbg-gaty – certo?',
     'a senha de app que tá no secret `APPLE_APP_SPECIFIC_PASSWORD` é [REDACTED:prose-credential] – certo?'),
    ('2FA seed: 5F42 OAMS JG7G 4KQ2 7SJ4 2TVC 2P2B W2CC   (webservice)',
     '2FA seed: [REDACTED:prose-credential]   (webservice)'),
    ('계정 paylark_t / 3XK!MKLOuXmiD9 로 받았어요.', '계정 paylark_t / [REDACTED:prose-credential] 로 받았어요.'),
    ('o código do iPhone de testes da QA (o SE vermelho) pra instalar o profile: é 883978',
     'o código do iPhone de testes da QA (o SE vermelho) pra instalar o profile: é [REDACTED:prose-credential]'),
    ('-H "Authorization: OAuth fb67722e-1646-42de-b4fd-e866607f3364" | jq',
     '-H "Authorization: OAuth [REDACTED:authorization]" | jq'),
    ('"GET /magic-link/callback?code=10VH2I-TN9GL2&next=%2Fdashboard HTTP/2.0" 302',
     '"GET /magic-link/callback?code=[REDACTED:url-code]&next=%2Fdashboard HTTP/2.0" 302'),
    # the header's value, and not the URL after it (no literal continued by a command's next word)
    ('curl -H "Authorization: Basic WE9EQ2V2RjBBZExpRkcxODpDUEhFMm9BUmg1N1VNNmtGVHZTcTZSZmsxSlI5NFRwZA==" '
     '"https://api.fivetran.com/v1/groups/quietly_evident/connectors"',
     'curl -H "Authorization: Basic [REDACTED:authorization]" "https://api.fivetran.com/v1/groups/quietly_evident/connectors"'),
    # round 14: a secret's name said in prose, a first column naming its row, Unreal's TEXT(), steamcmd's
    # +login, a BitLocker or a DeepL key's shape, a UUID under a key's name, a password glued to any prefix,
    # a code's digits under its name, four words joined
    ('Looking at the output, IRONSOURCE_SECRET is set to af39ca9899aca710475441c04b936e0cf816912d, which',
     'Looking at the output, IRONSOURCE_SECRET is set to [REDACTED:prose-credential], which'),
    ('| service | value |\n|---|---|\n| LDAP_BIND_PW | `ur4Cc1ikU.gh7Kq2pZm9` |',
     '| service | value |\n|---|---|\n| LDAP_BIND_PW | `[REDACTED:table-credential]` |'),
    ('static const TCHAR* GKeychainPassword = TEXT("lantern-nebula-biscuit-granite11");',
     'static const TCHAR* GKeychainPassword = TEXT("[REDACTED:assigned-credential]");'),
    ('steamcmd +login ironvale_builder MdFTCFQHDsdXozVABu +run_app_build x.vdf +quit',
     'steamcmd +login ironvale_builder [REDACTED:command-credential] +run_app_build x.vdf +quit'),
    ('RECOVERY=706035-457886-160776-421410-398101-619289-016280-447997', 'RECOVERY=[REDACTED:recovery-key]'),
    ('deepl auth key には 5157b4b0-cfea-4de6-b134-dd2cd4e45d5e:fx を',
     'deepl auth key には [REDACTED:recovery-key] を'),
    ('OPSGENIE_KEY=f4a11b3c-3693-4325-94b5-74b1074166d3', 'OPSGENIE_KEY=[REDACTED:assigned-credential]'),
    ("      administratorpassword: 'Glacier#4354ferret',", "      administratorpassword: '[REDACTED:password]',"),
    ('The config hardcodes ALARM_CODE = 23579; better',
     'The config hardcodes ALARM_CODE = [REDACTED:assigned-credential]; better'),
    # round 15: a name said a few words before its copula, Italian's `ora è`, a PSK, a connection string's
    # next field, a random run's name before its value
    ('The user rotated LAB_SFTP_PASSWORD earlier; the value they gave was Xg7pL2mQ9vZ. If it fails',
     'The user rotated LAB_SFTP_PASSWORD earlier; the value they gave was [REDACTED:prose-credential]. If it fails'),
    ('Ho appena reimpostato override_pin, ora è 77115696',
     'Ho appena reimpostato override_pin, ora è [REDACTED:prose-credential]'),
    ('The user rotated WPA2 PSK earlier; the value they gave was fiets-zeilboot-tulp-dijk-95. If',
     'The user rotated WPA2 PSK earlier; the value they gave was [REDACTED:prose-credential]. If'),
    ('"Server=tcp:x;Password=Kx_c$4#?yL0lSqW#Xl.;Encrypt=True;"',
     '"Server=tcp:x;Password=[REDACTED:password];Encrypt=True;"'),
    ('DB_PASSWORD=ab;cd9Xk2', 'DB_PASSWORD=[REDACTED:password]'),
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
    # round 13: a digest's column, a two-cell row's id, a listing's ids, public shapes, a REST path's id,
    # a public key's DER, an event's id, an exit code, a URL after a header
    'NAME             DIGEST            CREATED AT\nGUARDIAN_SECRET  2744462811760064  1m ago',
    '| UUID              | e9320e03-dc80-4038-a878-2f1f7a04431a     |',
    '[ToolResult] jgg24qels8qe\tCard payments\toperational\njdr235cl1b3s\tPayouts (SEPA/Pix)\toperational',
    '+    static let datadogClientToken = "pubc1066f19b6f6da23dc0008d9cbb46db6"',
    '+LAUNCHDARKLY_MOBILE_KEY = mob-2067ced0-7edd-4987-ae06-3c3074ce5832',
    '+SENTRY_DSN = https:/$()/91086ab88186f98e4ca98d12f38d0642@o358468.ingest.de.sentry.io/7077362',
    'Our publishable key is plk_live_pk_aF3smFLGdrJuDmTMYPFPWXQhcI6HfFv0 if that helps.',
    'https://api.sandbox.push.apple.com/3/device/4e45d50c8963c834190ba1f1dd0e3aa068713001d00a4ea17f8b67407b7f405c',
    'curl -s https://api.revenuecat.com/v1/subscribers/%24RCAnonymousID%3A359133e7542144c138167c57ee13f903',
    '`curl -s https://grafana.paylark.io/api/dashboards/uid/zp70zjk2ed24u4`',
    'verificação: `MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEoii0tYuE8MC3K5sUcJ8vhn1Arwa+Vyk0k0rubSYYmgHth2CPNQ'
    '+C0IR9XR9z+6QIwD7xWQkF2ugYSOely6xtbg==`',
    'Stacktrace aus Sentry (Event e333e5273701d405fd73ff5340c4ee4c):', 'the status code is 2001',
    'GET /api?code=200&country_code=US',
    # round 14: a reference's id, a bump's digest, an RSA public key's DER, a pointer, a status code's number
    '(ref: 75w5i2j4jove9xk00troa4wfq5)',
    '[ToolResult] ce5a5ad66550f1e531570fe1278b803517f192fc Fix: bump 5de37b564148c9f44b65273bc65a7ff8',
    'LICENSE_KEY_PUBLIC: MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAKuVngbEU3yv4iEDuAAAA',
    'at 0x7ffee3b8a2c0 in main',
    'status_code = 2001', 'token = "access-token"',
]

@pytest.mark.parametrize('text', KEPT)
def test_a_look_alike_is_sent_as_it_is(text):
    assert redact(text) == text

def test_a_token_column_is_still_judged_random():
    "A header that names no id or digest keeps nothing: a token under TOKEN is pseudonymised."
    sent = redact('NAME     TOKEN\ndeploy   kX9vQ2pLm7RtZZ10aa8Q\n')
    assert 'kX9vQ2pLm7RtZZ10aa8Q' not in sent and sent.startswith('NAME     TOKEN\ndeploy   [REDACTED:random#')

# (a value that reads as a name of words, `a_22array2find22`, is a name wherever it stands: not drawn)
token = st.text(st.sampled_from('abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789_-'), min_size=16,
                max_size=40).filter(lambda v: v[0].isalnum() and v[-1].isalnum() and spreads(v)
                                    and not name_like(v))

@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(token)
def test_a_value_found_in_a_json_string_spreads_without_its_quotes(value):
    "Found under a secret's key in one JSON text, it is taken in another and the quotes around it stay."
    known = KnownSecrets(found_values(json.dumps({'HARBOR_ROBOT_SECRET': value})))
    assert all('"' not in v for v in known.values), known.values
    other = f'  "ROBOT": "{value}",\n  "NEXT": 1'
    sent = redact(other, known=known)
    assert value not in sent and sent.endswith('",\n  "NEXT": 1') and sent.startswith('  "ROBOT": "[REDACTED:')

def test_a_private_keys_der_is_never_taken_for_a_public_ones():
    "Base64 of a PKCS#8 private key (its DER starts with a version) is pseudonymised; a public key's is kept."
    sent = redact('key: MC4CAQAwBQYDK2VwBCIEIJ+DYvh6SEqVTm50DFtMDoQikTmiCqirVv9mWG9qfSnF')
    assert 'MC4CAQAw' not in sent and '[REDACTED:' in sent

def test_a_url_whose_last_segment_looks_made_is_a_doubt_memgate_secrets_names():
    from memgate.positions import URL_LAST, url_doubts
    t = 'curl -fsS https://hc-ping.com/e95b897b-9c75-4b8f-8559-3ee302aa11d8 && see https://x.io/docs/getting-started'
    assert [(t[s:e], why) for s, e, why in url_doubts(t)] == [('e95b897b-9c75-4b8f-8559-3ee302aa11d8', URL_LAST)]
