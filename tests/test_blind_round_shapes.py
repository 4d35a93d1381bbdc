"""Rounds 21 to 25's misses, fixed by principle: each text below is sent as written on its right, to the byte (the
value taken whole, spaces included, the text around it kept), and each look-alike is sent as it is."""
import pytest
from memgate.redact import fetched_secret, redact

TAKEN = [   # (text, what is sent)
    # a diff that makes a secret-named file of one line gives all of it
    ('+++ b/.vault_pass\n@@ -0,0 +1 @@\n+glacier marble pebble tundra8\n',
     '+++ b/.vault_pass\n@@ -0,0 +1 @@\n+[REDACTED:file-credential]\n'),
    # a table's column named by a password's word in the team's language
    ('| Afdeling | Wachtwoord |\n|---|---|\n| 3B | `Ulan-sampaguita-36` |',
     '| Afdeling | Wachtwoord |\n|---|---|\n| 3B | `[REDACTED:table-credential]` |'),
    # an e-mail address, ` / `, a password's shape: a login in any sentence
    ('testitunnus on `qa@example.fi` / Sisu1997# . Kiitos',
     'testitunnus on `qa@example.fi` / [REDACTED:prose-credential] . Kiitos'),
    # XML read by its elements; Jenkins' and Maven's {base64} are credentials
    ('<secret>{AQAAABAAAAAQJ36WTrw2/8/k2w22uZ8u1qrIysN7EonJJaJ/T9E6sdp6jta=}</secret>',
     '<secret>[REDACTED:password]</secret>'),
    ('<hudson.util.Secret>correct horse battery</hudson.util.Secret>',
     '<hudson.util.Secret>[REDACTED:config-credential]</hudson.util.Secret>'),
    # a two-column listing with a rule of dashes is a table (vault kv get)
    ('Key                Value\n---                -----\n'
     'keystore_password  vessel opal thistle outpost\nversion            15',
     'Key                Value\n---                -----\n'
     'keystore_password  [REDACTED:table-credential]\nversion            15'),
    # a connection string's value runs to the next field, spaces and all; never past it
    ('redis:6380,password=outpost trailer pickle dune ramp,ssl=True',
     'redis:6380,password=[REDACTED:command-credential],ssl=True'),
    ('Server=db;User Id=app;Password=correct horse battery;Encrypt=True',
     'Server=db;User Id=app;Password=[REDACTED:command-credential];Encrypt=True'),
    ('redis:6380,password=Xk9vQ2pLm7,ssl=True', 'redis:6380,password=[REDACTED:password],ssl=True'),
    # a cookie's value goes; its name, a word then a hash, stays
    ('Cookie: remember_web_59ba36addc2b2f9401580f014c7f58ea4e30989d=LxvXcpQVFg44Kc58mrT2aDRih9Lzzfx5ejwhIvkk',
     'Cookie: remember_web_59ba36addc2b2f9401580f014c7f58ea4e30989d=[REDACTED:cookie]'),
    # round 23
    # a pair that names its secret apart from its value, a viewer's line numbers or a plan's marks between
    ('    16→            - name: SMTP_PASS\n    17→              value: "tundra\'Copper#489"',
     '    16→            - name: SMTP_PASS\n    17→              value: "[REDACTED:assigned-credential]"'),
    ('    + name  = "DB_PASSWORD"\n    + value = "Señal-glacier2452"',
     '    + name  = "DB_PASSWORD"\n    + value = "[REDACTED:assigned-credential]"'),
    # an XML element named as a credential by its name's attribute, its text the value
    ('<property name="connection.password">0OL7cNtx5vMS^BVDiwXW</property>',
     '<property name="connection.password">[REDACTED:password]</property>'),
    ("<entry key='api.secret'>Zx81kQm2Lp0aQ</entry>", "<entry key='api.secret'>[REDACTED:config-credential]</entry>"),
    # a URL's query: `appid`, one word, is a key's name (OpenWeather's)
    ("curl -s 'https://api.openweathermap.org/data/2.5/weather?q=Lisbon&appid=d0f19bf2ce9361e1de3f77884ea29e63'",
     "curl -s 'https://api.openweathermap.org/data/2.5/weather?q=Lisbon&appid=[REDACTED:command-credential]'"),
    # an SQL INSERT's column list names its rows' values
    ("INSERT INTO creds (provider, secret) VALUES\n     9→  ('ansible', '*r5sSl%Fa]XC)dt7k7RDIAYK'),\n"
     "    10→  ('recovery', 'ldd6r-1fx6k');",
     "INSERT INTO creds (provider, secret) VALUES\n     9→  ('ansible', '[REDACTED:config-credential]'),\n"
     "    10→  ('recovery', '[REDACTED:config-credential]');"),
    # a literal continued on the next line, a viewer's line numbers between
    ('     3→const RAILS_MASTER_KEY = "54a3ccea89" +\n     4→\t"abc1988a68b2e3a0ce356e"',
     '     3→const RAILS_MASTER_KEY = "[REDACTED:password]"'),
    ('| Variable | Value |\n|---|---|\n| `API_TOKEN` | `634a15c31e0be2d2f37cab12` |',
     '| Variable | Value |\n|---|---|\n| `API_TOKEN` | `[REDACTED:table-credential]` |'),
    # a generated password whose first character is a bracket is no code
    ('PASSWORD="(Kd7#p!Rz@2mQ&f"', 'PASSWORD="[REDACTED:password]"'),
    ('{"api_key": "[A000000-00a]{0}"}', '{"api_key": "[REDACTED:assigned-credential]"}'),
    # a login subcommand's token
    ('wandb login de58f0f39444ae66a5e69d5277806a198f2b36e9', 'wandb login [REDACTED:command-credential]'),
    # a password word, `=`, a variable's name: the arguments after it are no password
    ('connect(host=h, password=Xk9vQ2pLm7, port=5432)', 'connect(host=h, password=[REDACTED:password], port=5432)'),
    # JSON written inside a string: its escaped quotes end the value, spaces and all (it took `\"}` too)
    (r'{\"api_key\": \"45cf67a7f7dd438d1f516468a69df8df\"}', r'{\"api_key\": \"[REDACTED:password]\"}'),
    (r'{\"password\": \"correct horse battery staple\"}', r'{\"password\": \"[REDACTED:password]\"}'),
    # a signing key's value of a secret's shape is still taken (lower-case hex: an HMAC's key)
    ('SIGNING_KEY=a3f9c2e17b5d4086f1e2a3b4c5d6e7f8a9b0c1d2', 'SIGNING_KEY=[REDACTED:password]'),
    # round 24
    # a value said first and what it is after it (`as the … credential`), or said as the value of a name
    ('using `63b70816faa8bcfc66440de38de8f65b` as the Hex.pm credential',
     'using `[REDACTED:prose-credential]` as the Hex.pm credential'),
    ('They want RAILWAY_TOKEN set to a418ba1d-322a-4f72-ab66-40c8edecb8ae in staging',
     'They want RAILWAY_TOKEN set to [REDACTED:prose-credential] in staging'),
    ('I added `SVC_PASSWORD` to `.env.local` with the value you provided (`LCkK\\bn29a\\n82#i5HR`).',
     'I added `SVC_PASSWORD` to `.env.local` with the value you provided (`[REDACTED:prose-credential]`).'),
    ('FYI the windows secret is `d09y\\KegIe\\n27%RP9f`', 'FYI the windows secret is `[REDACTED:prose-credential]`'),
    # code continued over a viewer's numbered lines; a Rust reference's type before the `=`
    ('     1→DJANGO_SECRET_KEY = (\n     2→    "django-insecure-=n@bmj=cxg3-njiqm"\n     3→)',
     '     1→DJANGO_SECRET_KEY = (\n     2→    "[REDACTED:assigned-credential]"\n     3→)'),
    ('     1→const dockerhubToken =\n     2→  "dckr_pat_8__sfcz3OV" +\n     3→  "f02hOZB_akiodXr_B";',
     '     1→const dockerhubToken =\n     2→  "[REDACTED:password]" +\n     3→  "[REDACTED:password]";'),
    ('const LDAP_BIND_PW: &str = "nnCZ&A^]Vfz6nbdq(h";',
     'const LDAP_BIND_PW: &str = "[REDACTED:assigned-credential]";'),
    # words joined by dots in config are a passphrase; a Go struct's field runs to the next field's name
    ('env:\n  ANSIBLE_VAULT_PASSWORD: kernel.olive.hickory.ruby.citrus.eagle\n',
     'env:\n  ANSIBLE_VAULT_PASSWORD: [REDACTED:assigned-credential]\n'),
    ('config: {Env:production GpgPassphrase:winter glacier bronze rocket Debug:false}',
     'config: {Env:production GpgPassphrase:[REDACTED:assigned-credential] Debug:false}'),
    # an interactive shell asked for a secret by name prints it; snmpd's community; a code span's `KEY=v`
    (">>> settings.ldap_bind_password\n'VW9p$HDl$$RiuSo`00'",
     ">>> settings.ldap_bind_password\n'[REDACTED:assigned-credential]'"),
    ('rocommunity øresund-366-Ärger¥pQo 10.0.0.0/16', 'rocommunity [REDACTED:config-credential] 10.0.0.0/16'),
    ('use the shared one: `WIFI_PSK=Kayak mesa 18 iris!LAv`', 'use the shared one: `WIFI_PSK=[REDACTED:password]`'),
    # round 25
    # a password's word glued to a prefix (`pgpassword`), said before a particle (`키는`) or a Dutch noun
    ("pgpassword 키는 7g76E'jiZYK4o'372 입니다.", "pgpassword 키는 [REDACTED:prose-credential] 입니다."),
    ("Hier is de pgpassword sleutel: ewmSb'SG8CjfG'773, niet committen.",
     "Hier is de pgpassword sleutel: [REDACTED:prose-credential], niet committen."),
    ('seed phrase = cherry cradle sunset salmon puzzle ivory breeze basket whale glacier mosaic carbon — it',
     'seed phrase = [REDACTED:seed-phrase] — it'),
    ('**Checking keycloak admin password**\n\nThe current value 0rKR?"Lo&AofagDFA`f9f&}Z[p in the env',
     '**Checking keycloak admin password**\n\nThe current value [REDACTED:prose-credential] in the env'),
    # a key folded over lines of one length, a shorter last: one value
    ('8A71E1B852766DE13D95FFE64004\n69F295078B6C7A7B0FE84522CD80\n3D028DAF',
     '[REDACTED:random#442dbec1]\n[REDACTED:random#af3d7a86]\n[REDACTED:random#dd3d113c]'),
    # an array of literals joined; a CI's secret set from the command line; Chinese's `改成`
    ('const secret = [\n  "044d0bb4a3885ad54b22",\n  "d82b4a3e4c"\n].join("");',
     'const secret = [\n  "[REDACTED:assigned-credential]"\n].join("");'),
    ("gh secret set SPLUNK_HEC_TOKEN --body 'F49139C1-8ABF-4559-B894-308D6324A009' --repo x/y",
     "gh secret set SPLUNK_HEC_TOKEN --body '[REDACTED:command-credential]' --repo x/y"),
    ('DEEPGRAM_API_KEY改成135f5753d8c46212491fc4650bfb197d1d49d52a了',
     'DEEPGRAM_API_KEY改成[REDACTED:prose-credential]了'),
]

KEPT = [
    'TWILIO_VERIFY_SID=VAe677558735c3c8f7618932d98b43ff79',                  # Twilio's SIDs are ids
    'live_view: [signing_salt: "s1Q7mIWF"],',                                 # Phoenix's salt is no secret
    'pubspec.lock:3:  4d1672415cacc0446a5a6600b353dfbb292260ae45a19a8c3a773888a5dad009',  # a lockfile's digest
    '  container  |        mrn          | status\n-------------+---------------------+-------\n'
    ' FFAU0647068 | 25PLM5X795PF4JZ6RB0 | DONE',                               # a ruled table's column of ids
    '256 SHA256:PrZlYTWfJrj9TL644VwAtrSvTnF/K6wlB/1eb41X380 deploy (ED25519)',   # a fingerprint
    'BROKER_PASSWORD=${env:API_KEY}',                                         # a reference
    'f(a=1, password=db_password, b=2)',                                      # code's arguments
    '<password>${db.password}</password><secret>true</secret>',               # a stand-in, a flag
    # round 23
    "DB_PASSWORD='op://Engineering/Postgres prod/password'",                   # a secret manager's reference
    'ARG KEYVAULT_SECRET_URI=https://fernhill-kv.vault.azure.net/secrets/api-key/6ad65c0870221394b32a57938483992e',
    'SLACK_BOT_TOKEN="xoxb-xxxxxxxxxxxx-xxxxxxxxxxxxx-xxxxxxxxxxxxxxxxxxxxxxxx"',  # runs of x: a stand-in
    'STRIPE_SECRET_KEY=sk_live_••••••••hODs',                                  # a mask
    '# digests: abf3f7b1b4a1ca32a0061409edfa2ac5 940eea4f82f6c6d67a7bfe4e5cfb6dc3 3afa1b1ec0c200b7355eefd3ed6e6629',
    '<string name="app_name">Checkout-Api</string><property name="connection.username">shop</property>',
    'FACEBOOK_APP_ID=123456789012345\nconst appId = "1:1234:web:abcdef"',     # an app's id, written apart
    # a column's name over a value: a CLI's listing (tabs after spaces are one gap), a CSV's header
    'NAME              \tDIGEST                                                          \tCREATED AT\n'
    'SENTRY_DSN        \t04e120711649134d1ab0069b1acb40e0c0ef6974b762ad018ac336a3a89bfb65\t387h ago',
    'name,owner,key_id,created\ndatadog_api_key,oskar,CAT5PX46WY4T6FCV8V0BESADWN,2024-06-18',
    # a YAML list's item names its value (`- name: X⏎ value: …`), a viewer's line numbers between
    '     8→  - name: GPG_KEY_ID\n     9→    value: "47B8687D6955F2E2"',
    # a cache's key: words, then a digest
    'key: gradle-macOS-a991a61e73826a763db616845c3b842f4adda21889c1ef8506fe8e78cafa17ce',
    "INSERT INTO users (name, role) VALUES ('ann', 'admin'), ('bo', 'dev');",
    # a table's column of values beside its column of names: the row's name names the value
    '| Variable | Value | Action |\n|---|---|---|\n| `contenthash` | `634a15c31e0be2d2f37c` | fine |',
    'TWILIO_API_KEY=SK790edc5e41aeeef8de6c8f95817af40a',                       # Twilio's name for its key's SID
    'conn = psycopg2.connect(host=h, password=db_password, port=5432)',       # code's arguments
    'password: "[secure]"',                                                   # a stand-in's word in brackets
    'PASSWORD="(none)"\npassword: (not set)',                                # or in parentheses
    # round 23, after its figures
    '.env.example:43:STRIPE_DOCS_EXAMPLE_KEY=pk_test_TYooMQauvdEDq54NiTphI7jx',  # grep's file and line: no password's
    r'{\"status\": \"OK\", \"results\": [{\"place_id\": \"45cf67a7f7dd438d1f516468a69df8df\"}]}',  # an id, escaped
    # an OpenPGP key's id under git's signing key and a GPG_KEY, in capitals as gpg prints it
    'ARG signingkey=5AA3A5534CB33159\n    signingkey: E92BFF506D62BD77\nGPG_KEY=47B8687D6955F2E2',
    "export signingkey='6164BDC831BA645EDC1C5C19F82FCB5E664486DB'",
    r'SNOWFLAKE_PASSWORD=\"$(op read op://Data/SVC_DBT/password)\" dbt run',  # a command's substitution
    # round 24, after its figures
    'dist/assets/vendor.397661d0ae16d7863e65.css  18.77 kB',                  # a bundler's content hash
    'DB_PASSWORD=secret123-not-real\nAPI_KEY=dummy',                            # stand-ins that say so
    'OPENAI_API_KEY=ref+awsssm://prod/app/openai_api_key',                     # vals' reference
    'use `config.yaml` as the credential file',                               # a credential word on another noun
    # round 25, after its figures
    '- `ARM_SUBSCRIPTION_ID`: `8d97e354-4c87-4bac-b03a-1308da5958fd`',       # an id under an id's name
    '- `OPENAI_API_KEY`: `System.getenv("DB_PASSWORD")`',                    # a lookup is a reference
    '<add key="PublicKey" value="zXkJh9i7o7dPT763R0UzAsl0OMFE4R0qwUq9fUFIEtg=" />',  # a public key
    'withCredentials([usernamePassword(credentialsId: \'kvh-nexus-deploy-creds\', usernameVariable: \'U\')])',
    '3c075a102e19bc39e35a6f4808b2c021108e21ea\n3c075a102e19bc39e35a6f4808b2c021108e21eb',  # a list, not a wrap
]

@pytest.mark.parametrize('text,sent', TAKEN)
def test_a_credential_is_taken_whole_and_nothing_else(text, sent):
    assert redact(text) == sent

@pytest.mark.parametrize('text', KEPT)
def test_a_look_alike_is_sent_as_it_is(text):
    assert redact(text) == text

def test_a_fetching_commands_one_line_of_words_is_its_credential():
    command = "  command: kubectl get secret kafka -o jsonpath='{.data.password}' | base64 -d; echo"
    out = 'tarmac jasmine gantry relay nickel mooring\n'
    assert [out[s:e] for s, e, _ in fetched_secret(command, out)] == ['tarmac jasmine gantry relay nickel mooring']
    # an error's sentence is no credential
    assert fetched_secret(command, 'Error from server (NotFound): secrets "kafka" not found\n') == []

def test_a_random_value_after_a_word_that_is_no_digests_word_is_not_kept():
    "`Heads-up` holds git's HEAD; a 64-hex value after it in prose is no digest (it leaked once)."
    value = 'f4b1fb9d9f60f73f4fd02e345c1edcc8fbb170f7378e8b1fefd391fb6de0f567'
    assert value[:8] not in redact(f'Heads-up: the value {value} is hard-coded')

def test_a_random_value_a_table_names_by_its_row_is_not_kept_as_a_column_of_ids():
    "The row's name names a value in a `Value` column; the column stays a column of values (it leaked once, kept)."
    value = 'LLJFmSAzS8q9E2Cg2J8qEot3i1rX8jLXUCouKMPsQKRTUfq6ewHo'
    table = f'| File | Variable | Value |\n|---|---|---|\n| `config/app.yml` | `BTC_WIF` | `{value}` |'
    assert value[:8] not in redact(table)

def test_a_value_after_a_secrets_name_that_no_position_took_is_named_as_a_doubt(tmp_path):
    "Round 24's passphrase under `pass=` leaked and `memgate secrets` did not name it: no doubt looked past a name."
    from memgate.audit import audit, audit_text
    from memgate.projects import load_project
    from synth import cc, write_jsonl
    text = 'data:\n  bootstrap.txt: |\n    user=admin\n    pass=granite ginger willow cotton\n'
    write_jsonl(tmp_path / 'p' / 'a.jsonl', [cc('user', '2026-01-01T10:00:00.000Z', text, sid='A')])
    report = audit_text(audit(load_project(tmp_path / 'p')), every=True)
    assert 'gran…(28 chars)' in report and "the first value after a secret's name" in report, report
