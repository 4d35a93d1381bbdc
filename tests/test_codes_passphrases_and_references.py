"""Round 8 of the blind secrets rounds (issue 48), by principle: a code made in equal groups is judged whole; a list
of recovery codes is one after its name's sentence reaches a colon; a passphrase of plain words said after its word is
the passphrase to its clause's end; where a secret is kept (a store's reference), a trace id and a key a vendor makes
for browsers are no secrets. Values are hypothesis's."""
import re
from hypothesis import assume, given, settings, strategies as st
from memgate.generated import generated
from memgate.redact import redact

# (no vowels, as product keys are made: no word can stand in one)
ALNUM = 'BCDFGHJKLMNPQRSTVWXYZ23456789'

@st.composite
def grouped(draw):
    "A licence's or a recovery code's groups: 3 to 6 of one length, letters and digits."
    n, size = draw(st.integers(3, 6)), draw(st.integers(4, 6))
    groups = [draw(st.text(st.sampled_from(ALNUM), min_size=size, max_size=size)) for _ in range(n)]
    code = '-'.join(groups)
    joined = code.replace('-', '')
    # random-looking: three letters and three digits at least, no run of three alike, half its characters distinct
    if (len(re.findall('[A-Z]', joined)) < 3 or len(re.findall('[0-9]', joined)) < 3 or re.search(r'(.)\1\1', joined)
            or len(set(joined)) < len(joined) / 2):
        return draw(st.nothing())
    return code

@settings(max_examples=80, deadline=None)
@given(grouped(), st.sampled_from(['license key: {}', 'Activation: {} (expires 2027)', 'the serial is {}.',
                                   'PRODUCT_CODE={}', '| prod | {} |']))
def test_a_code_in_equal_groups_is_taken_whole(code, place):
    # judged as its groups joined would be: random-looking, it is taken
    assume(generated(code.replace('-', '')))
    assert code not in redact(place.format(code))
    assert not any(g in redact(place.format(code)) for g in code.split('-') if len(g) >= 5)

CODE = st.text(st.sampled_from('abcdefghjkmnpqrstuvwxyz23456789'), min_size=4, max_size=5).filter(
    lambda g: re.search('[0-9]', g) and re.search('[a-z]', g))

@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(CODE, CODE), min_size=2, max_size=6),
       st.sampled_from(['Here are my backup codes for the GitHub org, keep them safe: {}',
                        'my recovery codes are {} fyi', 'MFA recovery codes (print these): {}']))
def test_recovery_codes_said_in_a_sentence_are_taken(codes, sentence):
    said = ', '.join(f'{a}-{b}' for a, b in codes)
    sent = redact(sentence.format(said))
    assert not any(f'{a}-{b}' in sent for a, b in codes)

WORDS = ['amber', 'falcon', 'river', 'velvet', 'canyon', 'drift', 'ochre', 'horse', 'battery', 'staple', 'purple',
         'monkey', 'lantern', 'copper', 'meadow', 'quartz', 'tundra', 'walnut']

@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(WORDS), min_size=3, max_size=5, unique=True), st.one_of(st.none(), st.integers(1, 99)),
       st.sampled_from(['the passphrase for my deploy key is {}, keep it safe', 'passphrase = {}\n',
                        'ok so the ssh passphrase is {}']))
def test_a_passphrase_of_words_is_taken_to_its_clauses_end(words, number, sentence):
    phrase = ' '.join(words + ([str(number)] if number else []))
    sent = redact(sentence.format(phrase))
    assert not any(' '.join(words[i:i + 2]) in sent for i in range(len(words) - 1))

def test_sentences_about_a_password_keep_their_words():
    said = ['The passphrase is stored in the team vault.', 'the password is required for admin users',
            'The password field is validated client side.', 'the password policy is min twelve chars mixed case',
            'password hashing is bcrypt cost twelve', 'password is too short, min length 12',
            'We should print the recovery codes for users: it helps them 2 times',
            'the backup codes are stored in 1password, not here.']
    assert [redact(s) for s in said] == said

def test_a_stores_reference_a_trace_id_and_a_search_only_key_are_kept():
    kept = ['password: vault:secret/data/prod/db#password',
            'DB_PASSWORD=arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-AbCdEf',
            'password: projects/acme/secrets/db-pass/versions/3',
            'traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
            'ALGOLIA_SEARCH_ONLY_KEY=a1b2c3d4e5f60718293a4b5c6d7e8f90']
    assert [redact(s) for s in kept] == kept
    # the admin key beside it is a credential, and so is a store's name before a value that is no path
    assert redact('ALGOLIA_ADMIN_KEY=a1b2c3d4e5f60718293a4b5c6d7e8f90') == 'ALGOLIA_ADMIN_KEY=[REDACTED:password]'
    assert 'Xk9mQ2pL7vR4tN8w' not in redact('password: vault:Xk9mQ2pL7vR4tN8w')
