"""Rounds 21 and 22's misses, fixed by principle: each text below is sent as written on its right, to the byte (the
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
