"""Rounds 29 and 30's misses, fixed by principle (each measured blind first: round 29 at 88be969, round 30 at
860cfea): each secret below is taken whole and each look-alike is sent as written."""
import re
import pytest
from memgate.redact import redact

SECRETS = [   # (text, the value)
    # a memorable password: capitalised words from a list, a mark and digits, as password managers make one
    ('NAS web admin is admin / Cattle!2258Abstract if you need it', 'Cattle!2258Abstract'),
    ('新しいパスワードはこちらです: VPN (jpark): Dice%360Box', 'Dice%360Box'),
    # one mark will do where the rest is mixed as only a generator mixes it
    ('> SMTP: `E0c9Mw3S!Opdk-ex`\n> DeepL: `f055904a`', 'E0c9Mw3S!Opdk-ex'),
    # base64url's parts, each of all three kinds, are one token however short
    ('Password for the [elastic] user successfully reset.\nNew value: MHy8XrBo4_Hr6eKc8WD8', 'MHy8XrBo4_Hr6eKc8WD8'),
    # a session's id is its bearer's credential, whatever the id's word before it
    ('the session id 7fAQTvJYzBDvM8butEVOqYEVq expired', '7fAQTvJYzBDvM8butEVOqYEVq'),
    # a passphrase after its word, its name's markdown emphasis closed after the colon
    ('**Disk passphrase:** cart among barrel elder dish diesel', 'cart among barrel elder dish diesel'),
    # a notebook read as text: its source's escaped quotes are quotes, and a value assigned is no commit's sha
    ('    "os.environ[\\"WANDB_API_KEY\\"] = \\"4ede52318f8c051f644444cb07b45ce4df55d797\\"\\n",',
     '4ede52318f8c051f644444cb07b45ce4df55d797'),
    # round 30
    # a list of codes under the sentence that names them, however that sentence ends
    ('backup codes for the shared ops google account (admin@saltmarsh.dev):\n1. 9195 1058\n2. 5496 7419', '9195 1058'),
    ('GitHub gave me these recovery codes, where should I keep them?\n\ncb26c-f3d0c\naf969-a6791\n', 'cb26c-f3d0c'),
    # a keypad's code, its star or hash apart; a note's label that names what it opens
    ('codul ușii de la camera serverelor e 6864#', '6864'),
    ('the door code is *59358', '59358'),
    ('on call tonight:\nAlarm: 12-57-43\n', '12-57-43'),
    # a Redis ACL's password after `>`
    ('user metrics on >N~==5K?^3f_HCD!Iq8w%?nS ~* +info +ping', 'N~==5K?^3f_HCD!Iq8w%?nS'),
    # the secret a JWT is signed with, given in the call
    ('  return jwt.sign({ sub: userId }, "dq~*7qJgB#5+S7Nh5NIkF%CDU", { expiresIn: "1h" });',
     'dq~*7qJgB#5+S7Nh5NIkF%CDU'),
    # an administrator's well-known account, ` / `, a password's marks
    ('## Grafana\n- admin / Biscuit1990*\n', 'Biscuit1990*'),
    # a name that says secret itself, under a note that says its block is public
    ('# public (shipped to the browser)\nPUSHER_APP_KEY=0a388bf3e6deb824ceb9\n'
     'JWT_SECRET=IIQtIMnN6h?26rYUo^2KkbJD@q9N\n',
     'IIQtIMnN6h?26rYUo^2KkbJD@q9N'),
]

LOOK_ALIKES = [
    # a thing's id after its word (a vehicle's, a parcel's), wherever it stands
    'example shipment 1Z6M370TK27MX7AY1Z, container KTSU1734062, truck VIN 2UMEAZT3WK6T8L69C',
    # a bundler's content hash in an asset's name
    '<script src="/_next/static/chunks/main-178bc0c0dd87fc1e559e.js" defer></script>',
    # an AWS principal's unique id (a role's AROA…): an id; its access keys are the credentials
    '"UserId": "AROAHWMVF6RG9RNZ238Z8:botocore-session-1760431200"',
    # words of code and prose with a mark and a number are no memorable password
    'see Main$2Page and BuildConfig2024, Hello World 2024, mail ops@2024Example.com',
    # round 30
    # an event's dedup key names the event, as an idempotency key names a request
    '{"status": "success", "dedup_key": "14d9b215-e358-47e7-9a92-f9ecb66bd092"}',
    # a numbered name of a nonce (`nonce-2:`) is a nonce's
    '  nonce-2: tefnoT9iC1c5CsvHW6uLJw==',
    # ciphertext: a SealedSecret's encryptedData, sealed to its cluster; an AWS KMS ciphertext blob
    'kind: SealedSecret\nspec:\n  encryptedData:\n'
    '    previous: AgBRnAyuLwUdvJy9RP2kG5IlMnoN7YUfcCmcWFIzO7HnmZLaY6TPCk2Ufl2B\n',
    'CiphertextBlob: AQIDAHhoJWQPifSMGYmVZZCAXEayn0+5LsN2F+N9EbUCxFCtdPW9VRxihJ/ZAQIDAHhoJWQPifSMGYmVZZCAXEayn0+5',
    'read / write access for admin / users',
    'Port: 8080\nDate: 12-05-24',
    'x = *ptr; y = a * 59358',
    'token = jwt.encode(payload, "JWT_SECRET", algorithm="HS256")',
    'the user is on >5 nodes',
    # a value a note heading its block says is public, or prose calls a public key
    '# public (shipped to the browser)\nPUSHER_APP_KEY=0a388bf3e6deb824ceb9\n'
    'DUO_INTEGRATION_KEY=DIXGNS7X7LTGA9VPUO80\n',
    '// search-only key, safe for the browser\n'
    'const c = algoliasearch("T0Z8AQYFD3", "3984770161e37aa87e898dc82858688e");',
    "Public key `sJb/TLhnwFXGa+id/iddNGuK1bYcCed6jAxOyV34xCc=` goes into the server's [Peer] block",
]

@pytest.mark.parametrize('text,value', SECRETS)
def test_a_secret_is_taken_whole(text, value):
    sent = redact(text)
    assert value not in sent and '[REDACTED:' in sent, sent
    # (whole: no part of it is left beside the stand-in)
    assert not any(part in sent for part in re.split(r'[^A-Za-z0-9]+', value) if len(part) >= 5), sent

@pytest.mark.parametrize('text', LOOK_ALIKES)
def test_a_look_alike_is_sent_as_written(text):
    assert redact(text) == text

def test_an_algorithms_word_before_a_key_keeps_no_key():
    "An OSPF key after `md5`, a licence after `serial`: the word says what the secret is, not that it is an id."
    for text in ('ip ospf message-digest-key 1 md5 Xk29qPz7LmN4vB8w', 'the serial is 223223-223226-22389B-457CDF.'):
        assert '[REDACTED:' in redact(text), redact(text)
