"""Round 30's misses, fixed by principle (measured blind first, at 860cfea): each secret below is taken and each
look-alike is sent as written."""
import pytest
from memgate.redact import redact

SECRETS = [   # (text, the value)
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
]

LOOK_ALIKES = [
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
]

@pytest.mark.parametrize('text,value', SECRETS)
def test_a_secret_is_taken(text, value):
    sent = redact(text)
    assert value not in sent and '[REDACTED:' in sent, sent

@pytest.mark.parametrize('text', LOOK_ALIKES)
def test_a_look_alike_is_sent_as_written(text):
    assert redact(text) == text
