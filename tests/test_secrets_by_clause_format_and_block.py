"""Issue 48, rounds 16 and 17's principles: a PIN's digits a few words on in their clause, and each item of its list;
a password's word, its qualifier (`for X (…)`, `для`, `cho`, `för`), then a colon or a copula; inflected and
passphrase words in more languages; a value said before its word (`X — that's the password`); recovery codes in
Russian; formats that hold a credential by position (a modem's `AT+CPIN`, X12's ISA, EDIFACT's UNB, RouterOS's SNMP
community); PowerShell's `-Name X -Value Y`; a setter named for a secret; a block or section named for credentials;
a table row with a `|` inside its password; a session id that is a random run. Kept: a password manager named as
the place of a password, a VIN or a UPS number whose check digit holds, a digest after its word, a session id that
is a UUID, an EDI segment's fields."""
import pytest
from memgate.redact import redact

TAKEN = [
    ('vendor just sent the new password for MyGeotab (api-export@norrhamn-logistics.com): cargo.meadow.963',
     'vendor just sent the new password for MyGeotab (api-export@norrhamn-logistics.com): [REDACTED:prose'
     '-credential]'),
    ('Mã PIN thẻ doanh nghiệp để tải dữ liệu tachograph là 845270. Mã PIN thẻ nhiên liệu: xe 31 → 4410, x'
     'e 44 → 0732. Bạn thêm',
     'Mã PIN thẻ doanh nghiệp để tải dữ liệu tachograph là [REDACTED:prose-credential]. Mã PIN thẻ nhiên '
     'liệu: xe 31 → [REDACTED:prose-credential], xe 44 → [REDACTED:prose-credential]. Bạn thêm'),
    ('ПИН-код карты предприятия для выгрузки тахографа: 395245. ПИН-коды топливных карт: машина 31 → 3906'
     ', машина 44 → 4512.',
     'ПИН-код карты предприятия для выгрузки тахографа: [REDACTED:prose-credential]. ПИН-коды топливных к'
     'арт: машина 31 → [REDACTED:prose-credential], машина 44 → [REDACTED:prose-credential].'),
    ('Fuel card PINs: truck 31 → 8348, truck 44 → 6093. can you add them',
     'Fuel card PINs: truck 31 → [REDACTED:prose-credential], truck 44 → [REDACTED:prose-credential]. can'
     ' you add them'),
    ("(thinking) E-imza PIN'i (248279) ve portal şifresi script'e gömülmemeli.",
     "(thinking) E-imza PIN'i ([REDACTED:prose-credential]) ve portal şifresi script'e gömülmemeli."),
    ('E-imza kartının PIN kodu da 954770. Vergi no: 5982113575.',
     'E-imza kartının PIN kodu da [REDACTED:prose-credential]. Vergi no: 5982113575.'),
    ('Mật khẩu VNACCS (Xk2!pq9Z) và mã PIN token (262191) là bí mật',
     'Mật khẩu VNACCS ([REDACTED:prose-credential]) và mã PIN token ([REDACTED:prose-credential]) là bí mật'),
    ('Логин в личный кабинет декларанта: nhl_broker, пароль: вокзал.погрузчик 504. Пришёл СМС-код 674510,'
     ' успеешь зайти?',
     'Логин в личный кабинет декларанта: nhl_broker, пароль: [REDACTED:prose-credential]. Пришёл СМС-код '
     '[REDACTED:prose-credential], успеешь зайти?'),
    ('Leverantören skickade precis nya lösenordet för OPC UA SGN-CL: Åska#Sammet47',
     'Leverantören skickade precis nya lösenordet för OPC UA SGN-CL: [REDACTED:prose-credential]'),
    ('(reasoning) Lösenordet för OPC UA SGN-CL är Åska#Sammet47. Det ska in i valvet.',
     '(reasoning) Lösenordet för OPC UA SGN-CL är [REDACTED:prose-credential]. Det ska in i valvet.'),
    ('Cụm mật khẩu cho rsa_key_airflow.p8 là quả cam hải đăng mỏ neo bánh mì 10',
     'Cụm mật khẩu cho rsa_key_airflow.p8 là [REDACTED:prose-credential]'),
    ('(thinking) Парольная фраза: мост река клён гром зима 725',
     '(thinking) Парольная фраза: [REDACTED:prose-credential]'),
    ('резервные коды: x9xf2-6gk7z, x5b4c-tzkk6',
     'резервные коды: [REDACTED:prose-credential], [REDACTED:prose-credential]'),
    ("try BRI_Lantern!513 — that's the password from the ops wiki for MyGeotab",
     "try [REDACTED:prose-credential] — that's the password from the ops wiki for MyGeotab"),
    ("UNB 0022 (recipient's reference/password) = LDQW9DVD5J — that's the mailbox password.",
     "UNB 0022 (recipient's reference/password) = [REDACTED:prose-credential] — that's the mailbox password."),
    ("     5→Set-ItemProperty -Path $RegPath -Name DefaultPassword -Value 'ORA-Çayır!593'",
     "     5→Set-ItemProperty -Path $RegPath -Name DefaultPassword -Value '[REDACTED:assigned-credential]'"),
    ('41:    stats auth admin:last_apelsin_161',
     '41:    stats auth admin:[REDACTED:config-credential]'),
    ("DEBUG:mygeotab: credentials: {'userName': 'api-export@x.com', 'sessionId': '9zvEzRM9EBKpbeOlw6k0rf'}",
     "DEBUG:mygeotab: credentials: {'userName': 'api-export@x.com', 'sessionId': '[REDACTED:password]'}"),
    ('    8→    "sim_puk": "67906896",',
     '    8→    "sim_puk": "[REDACTED:assigned-credential]",'),
    ('sudo atinout - /dev/ttyUSB2 - <<< $\'AT+CPIN="1284"\\nAT+CGSN\'',
     'sudo atinout - /dev/ttyUSB2 - <<< $\'AT+CPIN="[REDACTED:config-credential]"\\nAT+CGSN\''),
    ('     1→ISA*00*          *01*68N8IP0EPQ*ZZ*NHLOGISTICS    *ZZ*RETAILERX      *250611*0612*U*00401*32'
     '1595250*0*P*>~',
     '     1→ISA*00*          *01*[REDACTED:config-credential]*ZZ*NHLOGISTICS    *ZZ*RETAILERX      *2506'
     '11*0612*U*00401*321595250*0*P*>~'),
    ("UNB+UNOC:3+NHL:ZZ+RETAILER:ZZ+250611:0612+464392841+LDQW9DVD5J'",
     "UNB+UNOC:3+NHL:ZZ+RETAILER:ZZ+250611:0612+464392841+[REDACTED:config-credential]'"),
    ('/snmp community set [ find default=yes ] name=nhl-1wqd10ywsv addresses=10.0.0.0/8',
     '/snmp community set [ find default=yes ] name=[REDACTED:config-credential] addresses=10.0.0.0/8'),
    ('[snmp]\nenabled = true\nversion = 2c\ncommunity = nhldpzxyolsq\n\n[web]',
     '[snmp]\nenabled = true\nversion = 2c\ncommunity = [REDACTED:assigned-credential]\n\n[web]'),
    ('acl {\n  tokens {\n    agent = "f1c5e79b-f2ab-4d25-83a0-1262a5e36228"\n    ttl = "1h"\n  }\n}',
     'acl {\n  tokens {\n    agent = "[REDACTED:assigned-credential]"\n    ttl = "1h"\n  }\n}'),
    ('        client.set_user("svc_conveyor")\n        client.set_password("Xenâng62?")',
     '        client.set_user("svc_conveyor")\n        client.set_password("[REDACTED:assigned-credential]")'),
    ('| Source | Host | Port | Password |\n|---|---|---|---|\n| wms-replica | wms-replica.nhl.internal | '
     '5432 | E]3n!VQu/BFk?Bv|M |',
     '| Source | Host | Port | Password |\n|---|---|---|---|\n| wms-replica | wms-replica.nhl.internal | '
     '5432 | [REDACTED:table-credential] |'),
    # round 15's: words said after a key's word are a passphrase; a copula after the colon is no part of it
    ('The user rotated gateway recovery key earlier; the value they gave was lantern thistle falcon lantern '
     'glacier 39. If it fails',
     'The user rotated gateway recovery key earlier; the value they gave was [REDACTED:prose-credential]. If it '
     'fails'),
    ('Acabo de resetear gateway recovery key: ahora es harbor_lantern_cobalt_tundra_60',
     'Acabo de resetear gateway recovery key: ahora es [REDACTED:prose-credential]'),
    # round 17's: a code sent to be typed back in Czech; Scala's map; hex of either case under a key; a cabinet's
    # code; „quoted“; a compound qualifying a key; Hebrew's copula; an INI's value, a literal
    ('{"text":"Vas overovaci kod je 718413. Platnost 5 minut."}',
     '{"text":"Vas overovaci kod je [REDACTED:prose-credential]. Platnost 5 minut."}'),
    ('  "pem_private_key_passphrase" -> "thalassa-revma-ilios-νερό-hydra"',
     '  "pem_private_key_passphrase" -> "[REDACTED:assigned-credential]"'),
    ('{"update_key": "0583816D9BEA4AB10583486DF00276FA6B5A655FC1D4E85809A0CC505F809F8F", "hmac": "x"}',
     '{"update_key": "[REDACTED:assigned-credential]", "hmac": "x"}'),
    ('| station | RTU IP | cabinet code |\n|---|---|---|\n| Cawang | 10.44.57.51 | 302432 |',
     '| station | RTU IP | cabinet code |\n|---|---|---|\n| Cawang | 10.44.57.51 | [REDACTED:table-credential] |'),
    ('novější heslovou frázi „jistič vodojem dráty kobliha“',
     'novější heslovou frázi „[REDACTED:prose-credential]“'),
    ('SQLCIPHER_KEY=falcon-cobalt-copper-river-granite-maple', 'SQLCIPHER_KEY=[REDACTED:command-credential]'),
    ('(thinking) אז הסיסמה של BILLING admin הוא Or_שמש_Carmel15*. לבדוק',
     '(thinking) אז הסיסמה של BILLING admin הוא [REDACTED:prose-credential]. לבדוק'),
    ('ansible_become_password=Orchard:6225.bCU', 'ansible_become_password=[REDACTED:password]'),
]

KEPT = [
    "password: see 1Password, entry 'WMS prod'",
    "mật khẩu: xem trong Bitwarden, mục 'WMS prod'",
    'TRK-014 VIN YS2NASWP5TV445440 assigned to the Göteborg depot',
    'tracking 1Z999AA10123456784 delivered',
    "$expected = '0CAD78625E48E544EB9C7369237CAF3511061FEA83537C7FEC5779EC6E8AF362'",
    '# pinned server certificate thumbprint: 866e622ddde5f83693b9b206a36ecc67dd4b8b31',
    'sessionId: 9b4786d7-a58e-4e26-9a49-869e35fa9008',
    'the connector has 12 pins and 4 of them are ground',
    'ISA*00*          *00*          *ZZ*NHLOGISTICS    *ZZ*RETAILERX      *250611',
    "run make test - it's the token refresh path",
    'the order 4410 shipped; PIN code length is six digits',
    'the api key is stored in the vault under team secrets',
    'STRIPE_SECRET_KEY=sk_live_REPLACE_WITH_YOUR_KEY',
    'SLACK_BOT_TOKEN=xoxb-not-a-real-token-this-will-not-work',
    'the exit code was 1 and the status code 503',
    "NAD+CZ+NHLOGISTICS::9++Norrhamn+Kajgatan 4:Box 12+Goteborg++41104+SE'",
]

@pytest.mark.parametrize("text,sent", TAKEN)
def test_a_credential_is_taken_and_nothing_around_it(text, sent):
    assert redact(text) == sent

@pytest.mark.parametrize("text", KEPT)
def test_a_look_alike_is_sent_as_it_is(text):
    assert redact(text) == text

def test_what_a_found_value_decodes_to_is_found_too():
    "HTTP Basic's header, and a registry's `auth` the random runs took: the account and its password spread."
    import base64
    from memgate.redact import found_values
    basic = base64.b64encode('pi_reader:Revma_Αστέρι_Fotia75?'.encode()).decode()
    found = found_values(f'Authorization: Basic {basic}')
    assert {'pi_reader:Revma_Αστέρι_Fotia75?', 'Revma_Αστέρι_Fotia75?'} <= set(found)
    auth = base64.b64encode(b'lake-ci:mfhwV6pJJCBZ7Czcg89O').decode()
    assert found_values('{"auths": {"r": {"auth": "%s"}}}' % auth) == {'lake-ci:mfhwV6pJJCBZ7Czcg89O': 'password',
                                                                         'mfhwV6pJJCBZ7Czcg89O': 'password'}
    assert found_values('{"data": "aGVsbG8gd29ybGQgYW5kIGZyaWVuZHM="}') == {}

def test_a_found_pairs_user_is_no_half_of_a_secret():
    "Round 68: Elastic's `encoded` (base64 of `id:api_key`) was found, and its head, the id's, took the key's id."
    from memgate.redact import KnownSecrets, found_values, redact
    out = ('{\n  "id": "MWh2WupZbM_cnjYC0h2m",\n  "name": "leafline-ingest",\n  "api_key": "daJ6souTmBuVRcHZPvLRAO",\n'
           '  "encoded": "TVdoMld1cFpiTV9jbmpZQzBoMm06ZGFKNnNvdVRtQnVWUmNIWlB2TFJBTw=="\n}')
    sent = redact(out, known=KnownSecrets(found_values(out)))
    assert '"id": "MWh2WupZbM_cnjYC0h2m"' in sent and 'daJ6souTmBuVRcHZPvLRAO' not in sent

def test_a_value_shaped_token_on_a_line_that_names_a_credential_is_a_doubt_the_review_names():
    "Nothing took it, so `memgate secrets --all` lists it: a token shaped like a value, beside a credential's word."
    from memgate.positions import ON_A_NAMED_LINE, line_doubts
    text = ('db rotated, new password below\nok: Tulip-Harbor-9931 (see PR-1234)\n'
            'lösenordet för OPC UA: Sammet47x\nthe build passed in 12s')
    assert [(text[s:e], why) for s, e, why in line_doubts(text)] == [('Sammet47x', ON_A_NAMED_LINE)]
    assert line_doubts('a line with a4b5c6d7e8 and nothing more') == []
