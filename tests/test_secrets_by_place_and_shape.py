"""Round 9 of the blind secrets rounds (issue 48), by principle: a value inside a found value is found too; SQL and a
file named for a credential are positions; a cookie's pairs are credentials in any header syntax; a seed phrase is
words drawn at random; a card number is its shape and its check digit; hex of random text is random; a PIN follows
its particle; a passphrase is words. And what is no secret by its shape or its claims: ids, a ray, a store path, a
resource in a REST path, an anonymous role's token, documented examples, a token of words. Values are hypothesis's."""
import random, re
from hypothesis import assume, given, settings, strategies as st
from memgate.positions import seed_words
from memgate.redact import found_values, redact

ALNUM = 'abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789'
password = st.text(st.sampled_from(ALNUM + "!#%&*+-.=?@^_ '"), min_size=12, max_size=30).filter(
    lambda v: v == v.strip() and '  ' not in v and sum(c.isdigit() for c in v) >= 2 and sum(c.isupper() for c in v) >= 2
    and sum(c.islower() for c in v) >= 2 and not re.search(r'(.)\1\1', v) and v[0].isalnum() and "'" not in v)

@settings(max_examples=50, deadline=None)
@given(password)
def test_a_password_inside_a_found_json_string_is_found_alone(value):
    inner = '{\\"username\\":\\"api\\",\\"password\\":\\"' + value + '\\"}'
    found = found_values(f'    "SecretString": "{inner}",')
    assert value in found

SQL = ["CREATE USER 'etl'@'%' IDENTIFIED BY '{}';", "ALTER ROLE app WITH LOGIN PASSWORD '{}';",
       "CREATE USER app WITH ENCRYPTED PASSWORD '{}';", "SET PASSWORD FOR 'x'@'%' = '{}';"]

@settings(max_examples=50, deadline=None)
@given(password, st.sampled_from(SQL))
def test_sql_sets_a_password_by_position_whatever_its_characters(value, statement):
    sent = redact(statement.format(value.replace("'", "''")))
    assert value.replace("'", "''") not in sent and 'REDACTED' in sent

@settings(max_examples=40, deadline=None)
@given(password, st.sampled_from(['~/.ansible/vault_pass.txt', '.pgpass', 'secrets/db_password',
                                                                 '/run/secrets/api_token']))
def test_a_literal_printed_into_a_credentials_file_is_taken(value, file):
    assert value not in redact(f"printf '%s' '{value}' > {file} && chmod 600 {file}")
    assert redact("echo 'hello world 42' > notes.txt") == "echo 'hello world 42' > notes.txt"

def test_every_session_pair_of_a_cookie_header_is_taken_in_a_json_log():
    line = ('{"cookie":"theme=dark; PHPSESSID=2g3lp1arghi9n60se4f422cehk; sessionid=bx17ntf71rw1tkcgrc4dqqr84k1smffz",'
            '"accept":"*/*"}')
    sent = redact(line)
    assert '2g3lp1arghi9n60se4f422cehk' not in sent and 'bx17ntf71rw1tkcgrc4dqqr84k1smffz' not in sent
    assert 'theme=dark' in sent

@settings(max_examples=40, deadline=None)
@given(st.randoms(use_true_random=False), st.sampled_from([12, 15, 18, 24]))
def test_a_seed_phrase_is_taken_and_prose_is_not(rng, n):
    phrase = ' '.join(rng.sample(sorted(seed_words()), n))
    assert redact(f'- wallet seed (mainnet): {phrase}\n') == '- wallet seed (mainnet): [REDACTED:seed-phrase]\n'
    prose = ('we should build a test and check the release before we file the error report, and then the team '
             'can review the change with the new build of the app to see if it works')
    assert redact(prose) == prose

def luhn_complete(digits: str) -> str:
    "`digits` with the check digit that makes it pass Luhn's sum."
    total = sum(d if i % 2 else (2 * d - 9 if d > 4 else 2 * d) for i, d in enumerate(map(int, reversed(digits))))
    return digits + str(-total % 10)

@settings(max_examples=60, deadline=None)
@given(st.sampled_from(['4', '51', '53', '55', '22', '27']), st.text('0123456789', min_size=14, max_size=14))
def test_a_card_number_is_taken_and_a_number_failing_its_check_is_not(prefix, body):
    card = luhn_complete((prefix + body)[:15])
    assume(card.count('0') < 7)          # mostly zeros: a network's test card (Stripe's 4000 0025 0000 3155)
    spaced = ' '.join(card[i:i + 4] for i in range(0, 16, 4))
    assert card not in redact(f'card {card} exp 08/27') and spaced not in redact(f'card {spaced} exp 08/27')
    wrong = card[:-1] + str((int(card[-1]) + 1) % 10)
    assert redact(f'order {wrong} shipped') == f'order {wrong} shipped'
    assert redact('use 4242 4242 4242 4242 in test mode') == 'use 4242 4242 4242 4242 in test mode'

@settings(max_examples=40, deadline=None)
@given(st.text(st.sampled_from(ALNUM), min_size=24, max_size=40).filter(
    # (drawn as a generator draws: each kind four times or more, and most characters apart, not
    # `2222222222222222AAAApppp`, which no generator makes)
    lambda v: all(sum(map(kind, v)) >= 4 for kind in (str.isdigit, str.isupper, str.islower))
    and len(set(v)) >= len(v) / 2))
def test_hex_of_a_random_token_is_random_and_hex_of_words_is_not(token):
    assert token.encode().hex() not in redact(f'{{"output":"{token.encode().hex()}\\n"}}')
    words = 'hello world this is a test'.encode().hex()
    assert redact(f'xxd -p: {words}') == f'xxd -p: {words}'

def test_a_pin_after_its_particle_and_a_passphrase_of_words_are_taken():
    assert redact('YubiKeyのPINは 755573、PUKは 57386734 です') == \
        'YubiKeyのPINは [REDACTED:prose-credential]、PUKは [REDACTED:prose-credential] です'
    for said in ['- La clave del Wi-Fi de invitados es Yesterday my cedar ate 18 drizzles!',
                 "MATCH_PASSWORD though: passphrase is 'mango-granite-lagoon-ginger'. Maybe",
                 '- ssh key passphrase for the old bastion key: "bison bridge kestrel autumn"']:
        assert 'REDACTED' in redact(said) and not re.search('drizzles|lagoon|kestrel', redact(said))
    for kept in ['Das Passwort ist im Tresor gespeichert.', 'the password is 8 characters long.',
                 'the password is auto-generated-by-vault']:
        assert redact(kept) == kept

def test_ids_a_ray_a_store_path_a_rest_resource_an_anon_token_and_documented_examples_are_kept():
    anon = ('eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZSIsInJvbGUiOiJhbm9uIn0'
            '.M8oD_5M8oFDn0lOrRlK84rwdfG2tqcGofJTI0wa24lM')
    kept = ['{"cf_ray":"f9a69ed78f09691e-FRA","deployment":"dpl_PjyLocRxDk5tAR4Vn4uFuFL4hb91"}',
            '{"delivery":"d8bedc15-6fd2-480f-9908-3a8b2619efe0","idempotency_key":"c55ef819-7bc3-405f-aaa7-d3b95a7637bd"}',
            '/nix/store/1gbd1vbblbd793kjl9yqn7svri45nzrk-nodejs-22.11.0/bin/node',
            'curl -X POST https://api.cloudflare.com/client/v4/zones/a58ee7fb523b4095a1823c4c0f843fc7/purge_cache',
            f'SUPABASE_ANON_KEY={anon}', 'expect(totp("JBSWY3DPEHPK3PXP", 0)).toHaveLength(6);',
            'makeSlack("xoxb-not-a-real-token-this-will-not-work")',
            'last tx attempt: 0x82936e65ed837fb4433de8208f0d0ae81979558701b4142a0780c4be8c06a83c (replaced)']
    assert [redact(k) for k in kept] == kept
    # and beside them, what is a key by the same shapes: a key after an API's version, a service role's token,
    # a private key's 64 hex under its name
    service = anon.replace('eyJpc3MiOiJzdXBhYmFzZSIsInJvbGUiOiJhbm9uIn0', 'eyJyb2xlIjoic2VydmljZV9yb2xlIn0')
    assert 'dba61acf' not in redact('url: "https://sepolia.infura.io/v3/dba61acf1035bd403e8c06f4e774e2b1"')
    assert service not in redact(f'SUPABASE_SERVICE_ROLE_KEY={service}')
    key = '0x5fd588f6ff775abf74063df7336ed5590a355db0f77e4d77ef7d0e5c514a596f'
    assert key not in redact(f'const DEPLOYER = process.env.DEPLOYER_KEY ?? "{key}";')

def test_round_10_windows_flags_user_flags_license_blocks_and_key_bytes_are_taken():
    said = {"xfreerdp /v:build-03 /u:'.\\Administrator' /p:'W3ird!2008' /cert:ignore": 'W3ird!2008',
            '$pw = ConvertTo-SecureString "Nebel605_x" -AsPlainText -Force': 'Nebel605_x',
            'net use Z: \\\\nas01\\builds /user:STUDIO\\svc dSczWYBD4=PYUeAQ /persistent:yes': 'dSczWYBD4=PYUeAQ',
            "mosquitto_pub -h mqtt.example.io -u cabinet-028 -P 'CQKp*brkOXFjzkcT=o' -t x": 'CQKp*brkOXFjzkcT',
            '--console.username admin --console.password Zurich_Playa694': 'Zurich_Playa694',
            '----- BEGIN LICENSE -----\nStudio\nEA7E-260353\nA0A32E53 9DBB4932\n----- END LICENSE -----': 'A0A32E53',
            'Unity -batchmode -serial F3-3S8R-XJ5D-GY2U-A3PI-UJN5 -quit': '3S8R-XJ5D',
            '{"revocation_code":"R39928"}': 'R39928'}
    for text, value in said.items(): assert value not in redact(text), text
    rng = random.Random(7)
    key = str([rng.randrange(256) for _ in range(64)])
    assert redact(key) == '[[REDACTED:key-bytes]]'
    kept = ['msbuild /p:Configuration=Release /p:Platform=x64', 'scp -P 2222 file host:', str(list(range(100, 140))),
            'want := "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"',
            'encryptionsalt: v1:+YvIHpIJUrcsAdOS:v1:d+krEb0f1umm//+t:a99i4Pxb3XAnq1T3OOn3AAAA',
            'treasury: bc1q8x8z9tj6r98vfuqtvdd2qhpwzf2806fdkryhjn']
    assert [redact(k) for k in kept] == kept
