"""What blind round 18 found (issue 48), fixed by principle and tested on values and sentences written for this test,
not the round's: a value is judged by its shape and its place in any language, and what only looks like one keeps its
text.

Taken: a run of recovery codes judged together; letters of one case a generator drew; a clause's `user / password`
after its colon; a prose password that starts with a mark; a name after grep's file and line; a query's next
parameters; a password's halves glued by a mark; an alarm's code in Romanian and Ukrainian; a passkey's digits;
an id's name over a generated value; what a command printed of a secret file, quoted again later. Round 19 (a
broadcaster): a network device's typed secret (`key 7 …`), hex of few letters under a key's name, a code given for
the door it opens, in backticks too.
Kept: a certificate pin (`sha256/…`), a host's name, `adb devices`' rows, a placeholder webhook, a publishable key,
a PGP fingerprint and a database's id under their names, a licence's public key, a DNA sequence, a property's name
after grep's line, a branch beside `main`; and a CSV row's serial and MAC beside its password, a digest labelled by
its algorithm, a boot's id, a listing's uuid column, a lockfile's checksums, a host after `=`, a year paid for a
door.
Round 21 (a hospital network): a record's name member names its value member, whatever stands between (App Service
settings, SSM's parameters by their path's last part, a Jenkins parameter's default), both ways: a secret taken, an
id kept; a command after `;` (zsh's history line); SNMP's community; Swahili's, Tagalog's and Arabic's password words
and copulas; markdown's bold around a value; a public prefix before an admin's key; an object of users' passwords;
a stand-in's word inside a generator's run. Kept: a secret store's path to a field, Kubernetes' `$(VAR)` in a URL,
an XML element named for an id, a log's `[trace,span]`, an instrumentation key, the storage emulator's documented
key."""
import pytest
from memgate.chunking import chunk_project
from memgate.projects import load_project
from memgate.redact import redact
from synth import cc, write_jsonl

TAKEN = [
    ('kody odzyskiwania do konta: 4kq9x-m2pzt r7d8w-qq3nb 9x2kd-h5vtm 0pz7q-wd4kr',
     ['4kq9x-m2pzt', 'r7d8w-qq3nb', '9x2kd-h5vtm', '0pz7q-wd4kr']),
    ('โทเค็นลงทะเบียนอุปกรณ์: QWZXBKJPMRTYVNLHDGSC', ['QWZXBKJPMRTYVNLHDGSC']),
    ('Panel girişi: ops-team / Tk7#pQ2!vR9z — bugün değiştirdim', ['Tk7#pQ2!vR9z']),
    ('Wi-Fi dla gości: GUEST-NET / kwiatekslonce4471\n', ['kwiatekslonce4471']),
    ('konto admin, hasło ?Wq7\'Ke"3Zt9Lm\n', ["?Wq7'Ke\"3Zt9Lm"]),
    ('./config/app.toml:12:smtp_password = "Vr8!kLm2#Qx"\n', ['Vr8!kLm2#Qx']),
    ('curl "https://x.test/cb?token=Ab12Cd34Ef56Gh78Ij&lang=en&sig=Zx9Yw8Vu7Ts6Rq5Po4"',
     ['Ab12Cd34Ef56Gh78Ij', 'Zx9Yw8Vu7Ts6Rq5Po4']),
    ('crypto isakmp key Qw7Rt^y8UiOp1AsDfG2h address 0.0.0.0\n', ['Qw7Rt', 'y8UiOp1AsDfG2h']),
    ('Codul alarmei pentru depozit: 482913\n', ['482913']),
    ('Код сигналізації для воріт 2: 5531907\n', ['5531907']),
    ('[ble]\npairing_passkey = "731902"\n', ['731902']),
    ('    access_key_id = Q81ZPLM3KXT0VWR7ABN2\n', ['Q81ZPLM3KXT0VWR7ABN2']),
    # round 19 (a broadcaster; English, Polish, Turkish, Italian, Portuguese, Korean, German)
    ('tacacs server AAA\n address ipv4 10.1.0.5\n key 7 0822455D0A16544541\n', ['0822455D0A16544541']),
    ('vault_ndi_key: 30518239475910248365718293041a2b\n', ['30518239475910248365718293041a2b']),
    ('(thinking) Codes: 48213977 for the server room door and 602913 for the alarm panel; no dates.',
     ['48213977', '602913']),
    ('- Alarm panel code: `602913`\n', ['602913']),
    # round 20 (a ski-resort group; English, French, Czech, Norwegian, Indonesian, Hungarian, Spanish)
    ('[ToolResult] serial  station  admin_user  admin_password  sha\n'
     'SKD-1  kogel  service  Lawine_2019$qk  14d38f7\nSKD-2  gipfel  service  Pulver#2021!xz  14d38f7\n',
     ['Lawine_2019$qk', 'Pulver#2021!xz']),
    ('[ToolResult] username,role,password\nana.ops,ops,vK3>w@Qz9,Lm\n', ['vK3>w@Qz9,Lm']),
    ('<add key="Kiosk.License" value="ALPG-KS-Q7RT2-M4XK9-ZP3WN-8HV6C" />', ['Q7RT2-M4XK9-ZP3WN-8HV6C']),
    ('snmp-server user mon GRP v3 auth sha Hq3.Kd9_pZ#w priv aes 128 Xw7@nRt2Lm9q\n',
     ['Hq3.Kd9_pZ#w', 'Xw7@nRt2Lm9q']),
    ('\t\t<keyMaterial>p.Qd7!K2xLm^RsTv</keyMaterial>\n', ['p.Qd7!K2xLm^RsTv']),
    ("  command: xcrun altool --upload-app -f a.ipa -u m@x.eu -p 'qwzx-plmo-ikju-nbhy'", ['qwzx-plmo-ikju-nbhy']),
    ('A kunyhó wifi jelszava: Hegy#1987*tz , köszi', ['Hegy#1987*tz']),
    # round 21 (a hospital network; English, Dutch, Swahili, Tagalog, Arabic, Finnish, Japanese, Romanian)
    ('[\n  {\n    "name": "SMTP_PASSWORD",\n    "slotSetting": false,\n    "value": "Kiwi-lamp-482"\n  }\n]',
     ['Kiwi-lamp-482']),
    ('{\n  "Name": "/billing/api/STRIPE_SECRET_KEY",\n  "Type": "SecureString",\n  "Value": "mango river tulip"\n}',
     ['mango river tulip']),
    ('<name>DEPLOY_PASSWORD</name>\n<description>x</description>\n<defaultValue>Qz4-Lp.m_8</defaultValue>',
     ['Qz4-Lp.m_8']),
    ("    3→: 1700000000:0;snmpwalk -v2c -c 'Tulp-rivier-204' core-sw1 1.3.6.1", ['Tulp-rivier-204']),
    ("true;7z a -p'Hond-kat-991' archief.7z data/", ['Hond-kat-991']),
    ('Nenosiri la VPN kwa `gw-2` ni **Simba-mto-58** tafadhali', ['Simba-mto-58']),
    ('PIN ya simu ya zamu ni 550291. Asante', ['550291']),
    ('yung password ng printer sa lobby ay Araw#Buwan27 tapos', ['Araw#Buwan27']),
    ('كلمة مرور الخادم هي Zq8!mN2v ، شكرا', ['Zq8!mN2v']),
    ('NEXT_PUBLIC_SEARCH_ADMIN_KEY=5d0c9f3b2a1e4d7c8b6a5f4e3d2c1b0a', ['5d0c9f3b2a1e4d7c8b6a5f4e3d2c1b0a']),
    ('    12→  "RegisteredUsers": {\n    13→    "radiology": "Kestrel$Harbor42",\n'
     '    14→    "ops": "ops@x.org"\n',
     ['Kestrel$Harbor42']),
    # a stand-in's word a generator drew inside a run by chance (`…QFixMeXI…`) is no stand-in
    ('<AccessKeyId>AKIAZ7Q2MV5RX8TN3KDP</AccessKeyId><SecretAccessKey>Tq7Rk2Mv9Lp4Xw8Zn3Bc6Jd1Hf5Gs0Ya2Ue7Ki4O'
     '</SecretAccessKey>', ['Tq7Rk2Mv9Lp4Xw8Zn3Bc6Jd1Hf5Gs0Ya2Ue7Ki4O']),
    ('max_upload_mb                                   50\n'
     'fastlane_apple_application_specific_password    wqzt-plmk-ajru-hbex\n', ['wqzt-plmk-ajru-hbex']),
    ('[registry]\npassword = reg-Zk8QpLm2WvT7nBxRjC4HsFixMeXd9yUa6KqE3tGw',
     ['Zk8QpLm2WvT7nBxRjC4HsFixMeXd9yUa6KqE3tGw']),
]

@pytest.mark.parametrize('text,secrets', TAKEN, ids=[s[0][:14] for _, s in TAKEN])
def test_a_secret_is_taken_by_its_shape_and_its_place_in_any_language(text, secrets):
    out = redact(text)
    assert not [s for s in secrets if s in out], out

KEPT = [
    ('        .add(HOST, "sha256/Qm3xV8pLr2Tz9YwK4nB7cD1fG6hJ0sA5eU+iO/qWXyE=")', 'Qm3xV8pLr2Tz9YwK4nB7cD1fG6hJ0sA5eU'),
    ('endpoint: "q7w3zk9x2mbv4t-ats.iot.eu-west-1.amazonaws.com"', 'q7w3zk9x2mbv4t-ats.iot.eu-west-1.amazonaws.com'),
    ('List of devices attached\nR5CT21QWX9P4NM     device usb:1-1 product:a54 model:SM_A546B\n'
     'HT7K30MZR2V8QB     device usb:1-2 product:a54 model:SM_A546B\n', 'HT7K30MZR2V8QB'),
    ('SLACK_WEBHOOK_URL=https://hooks.slack.com/services/TXXXXXXXX/BXXXXXXXX/XXXXXXXXXXXXXXXXXXXXXXXX',
     'services/TXXXXXXXX/BXXXXXXXX/XXXXXXXXXXXXXXXXXXXXXXXX'),
    ('BRANCH_KEY = key_live_8hq2mz7xk3pv9tw4rn6yc1fd5bg0js2a', 'key_live_8hq2mz7xk3pv9tw4rn6yc1fd5bg0js2a'),
    ('creation_rules:\n  - pgp: 7D3F9A21C4B8E60F5A1D2C3B4E5F6A7B8C9D0E1F', '7D3F9A21C4B8E60F5A1D2C3B4E5F6A7B8C9D0E1F'),
    ('NOTION_ROADMAP_DB=9b2e4f7a1c3d5e6f8a0b1c2d3e4f5a6b', '9b2e4f7a1c3d5e6f8a0b1c2d3e4f5a6b'),
    ('PLAY_LICENSE_PUBLIC_KEY=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAq7Zx3kP9mW2vT8rY4nL6bJ1cF5hD0gS',
     'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAq7Zx3kP9mW2vT8rY4nL6bJ1cF5hD0gS'),
    ('primer: AGATTGTTAGCGTAGATATCCTAGCCG', 'AGATTGTTAGCGTAGATATCCTAGCCG'),
    ('/opt/app/config/security.properties:11:password.policy.minLength=12', 'password.policy.minLength=12'),
    ('branches: main / release-2025.11\n', 'release-2025.11'),
    ('DATABASE_URL=postgres://app:password@localhost:5432/app_dev?sslmode=disable',
     'localhost:5432/app_dev?sslmode=disable'),
    # round 19
    ('hostname,model,serial,mac,admin_user,admin_password\n'
     'enc-1,Encoder X4,MX4303682154,e3:df:a3:c2:0e:6e,admin,V5WLvt71Iq2\n', 'MX4303682154,e3:df:a3:c2:0e:6e,admin,'),
    ('    Hash (md5):             Q2Xw8vBn5tYpLm3KjR7sAg==\n', 'Q2Xw8vBn5tYpLm3KjR7sAg=='),
    ('-- Boot 4f1d9a7c2b8e6f3a0c5d1e9b7a2f4c6d --\n', '4f1d9a7c2b8e6f3a0c5d1e9b7a2f4c6d'),
    ('health status index' + ' ' * 14 + 'uuid' + ' ' * 20 + 'pri rep\n'
     'green  open   articles-2025.10   g8G8VjN1NlTqsJ4A9RHbtv  3   1\n', 'g8G8VjN1NlTqsJ4A9RHbtv'),
    ('SPEC CHECKSUMS:\n  Alamofire: 5c650bcab1bd55580ad38f536afe71a4852e5305\n',
     '5c650bcab1bd55580ad38f536afe71a4852e5305'),
    ('EDGE_HOST=akab-k3m9x2p7q5w8r4t1-z6y3v9b2n5m8c1x4.luna.akamaiapis.net\n',
     'akab-k3m9x2p7q5w8r4t1-z6y3v9b2n5m8c1x4'),
    ('We paid 2024 for the door replacement; port 8080 for the gate service.', '2024'),
    ("  command: xcrun altool --upload-app -f a.ipa -u m@x.eu -p @keychain:AC_PASSWORD", '@keychain:AC_PASSWORD'),
    # round 21: an id a record's name member names, whatever members stand between
    ('[\n  {\n    "name": "AZURE_TENANT_ID",\n    "slotSetting": false,\n'
     '    "value": "0f6c2a1e-5b7d-4c3a-9e8f-1a2b3c4d5e6f"\n  }\n]', '0f6c2a1e-5b7d-4c3a-9e8f-1a2b3c4d5e6f'),
    ('{\n  "name": "GIT_COMMIT",\n  "slotSetting": false,\n  "value": "4f1c9a0e7b2d6c3a8e5f1b9d0c7a2e6f4b8d1c3a"\n}',
     '4f1c9a0e7b2d6c3a8e5f1b9d0c7a2e6f4b8d1c3a'),
    ('{\n  "Name": "/web/NEXT_PUBLIC_SEARCH_KEY",\n  "Type": "String",\n'
     '  "Value": "a81c4e9f2b7d3c6e0f5a8b1d4c7e2f9a"\n}',
     'a81c4e9f2b7d3c6e0f5a8b1d4c7e2f9a'),
    ('the password is **very** important, and make -j4 after cd build;make', '**very**'),
    ('  "RegisteredUsers": {\n    "alice": "admin",\n    "bob": "bob@example.org"\n  },', '"bob@example.org"'),
    ('DB_PASSWORD=changeme-local-only\nAPI_TOKEN=your_fixme_token', 'changeme-local-only'),
    ('  vault.hashicorp.com/agent-inject-secret-db: "secret/data/billing/api/db#password"',
     'secret/data/billing/api/db#password'),
    ('  value: "postgresql://app:$(DB_PASSWORD)@db.internal:5432/app"', '$(DB_PASSWORD)'),
    ('<Error><RequestId>7F3A9C2B1D0E4F58</RequestId><HostId>Qz8vN2pLm4RtY7wK1xB3cD5fG9hJ0sA6eU2iO4qWXyE='
     '</HostId></Error>', 'Qz8vN2pLm4RtY7wK1xB3cD5fG9hJ0sA6eU2iO4qWXyE='),
    ('  <jobId>3e9a1c7f-2b4d-4e8a-9c1f-7d2b5e8a0c3f</jobId>', '3e9a1c7f-2b4d-4e8a-9c1f-7d2b5e8a0c3f'),
    ('12:01:09.331 INFO  [9c2e7a1f4b8d3c6e0a5f2b9d7c1e4a8f,4b8d3c6e0a5f2b9d] o.a.Listener : started',
     '9c2e7a1f4b8d3c6e0a5f2b9d7c1e4a8f'),
    ('"InstrumentationKey=5e1d9c3a-7b2f-4a8e-9d1c-3f7b2a5e8d0c;IngestionEndpoint=https://x.applicationinsights.net/"',
     '5e1d9c3a-7b2f-4a8e-9d1c-3f7b2a5e8d0c'),
    ('- next public docsearch search key: `7c3e9a1f5b2d8c4e6a0f3b7d1c9e5a2f`', '7c3e9a1f5b2d8c4e6a0f3b7d1c9e5a2f'),
    ('"DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uS'
     'RZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;"',
     'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq'),
]

@pytest.mark.parametrize('text,kept', KEPT, ids=[k[:14] for _, k in KEPT])
def test_what_only_looks_like_a_secret_keeps_its_text(text, kept):
    assert kept in redact(text), redact(text)

def test_a_printed_secret_file_is_known_everywhere_and_the_file_that_printed_it_stays_named(tmp_path):
    "A password file's content, quoted later in thinking, goes everywhere; the command's path stays."
    bash = lambda i, cmd: cc('assistant', f'2026-01-01T10:00:{i:02d}.000Z',
                             [dict(type='tool_use', id=f't{i}', name='Bash', input=dict(command=cmd))])
    result = lambda i, out: cc('user', f'2026-01-01T10:00:{i + 1:02d}.000Z',
                               [dict(type='tool_result', tool_use_id=f't{i}', content=out)])
    pub, passphrase = 'rT4kZ8mQ2vX7nB1cL9pW3sD6fH0jK5gY8aE2uI4oP1s=', 'lantern-orbit-quartz-7731'
    write_jsonl(tmp_path / 'p' / 'S1.jsonl', [
        bash(0, 'wg genkey | tee /etc/wireguard/privatekey | wg pubkey'), result(0, pub + '\n'),
        bash(2, 'cat ~/.deploy_pass'), result(2, passphrase + '\n'),
        cc('assistant', '2026-01-01T10:00:05.000Z',
           [dict(type='thinking', thinking=f"The deploy pass file holds '{passphrase}'; the peer's key is {pub}.")])])
    sent = '\n'.join(c.text for c in chunk_project(load_project(tmp_path / 'p'), workers=1))
    assert passphrase not in sent and 'lantern-orbit' not in sent and 'cat ~/.deploy_pass' in sent, sent

def test_what_a_command_prints_beside_a_secret_file_is_judged_as_any_text():
    "`cat .env; cat ~/.pgpass`: the password file's line goes, the .env's id and the certificate stay."
    from memgate.redact import redact_seams
    command = 'Tool: Bash\n  command: cat .env; cat ca.pem; cat ~/.pgpass'
    output = ('TENANT_ID=703e45a4-b843-46e1-ba6a-0404f08a05aa\n-----BEGIN CERTIFICATE-----\n'
              'MIIDazCCAlOgAwIBAgIUbPa9yRFWOwyeJa2l\n-----END CERTIFICATE-----\n'
              'db.internal:5432:app:reader:I@iTm2XedWNmoiS+MJ\n')
    sent = redact_seams([command, output])[1]
    assert 'TENANT_ID=703e45a4-b843-46e1-ba6a-0404f08a05aa' in sent
    assert 'MIIDazCCAlOgAwIBAgIUbPa9yRFWOwyeJa2l' in sent
    assert 'I@iTm2XedWNmoiS+MJ' not in sent, sent

def test_the_secret_file_a_command_prints_last_ends_its_output():
    "`a; b; cat ssl_passwords.txt`: its passphrase is the output's last line; what the others printed is kept."
    from memgate.redact import redact_seams
    cmd = ("[Assistant] Tool: Bash\n  command: ssh ops@db1 'sudo cat /etc/hosts; sudo grep -n ssl_password_file "
           "/etc/nginx/nginx.conf; sudo cat /etc/nginx/ssl_passwords.txt'\n  description: TLS passphrase")
    out = "127.0.0.1 localhost\n12:    ssl_password_file /etc/nginx/ssl_passwords.txt;\nmaple quartz ember lantern\n"
    got = redact_seams([cmd, out])[1]
    assert 'maple quartz ember lantern' not in got and got.startswith('127.0.0.1 localhost\n12:    ssl_password_file')
    # a command that goes on after the file (`| wc -l`, `; echo done`) prints something else last: a line of
    # drawn words is still the file's passphrase (round 68: `cat a b .vault_pass; head vault.yml`), the rest kept
    assert redact_seams([cmd.replace("passwords.txt'", "passwords.txt; echo done'"), out + 'done\n'])[1].endswith(
        'ssl_passwords.txt;\n[REDACTED:password]\ndone\n')
