"""The fast paths of redaction find exactly what scanning every pattern over the whole text finds (issue 13)."""
from collections import Counter
from hypothesis import given, settings, strategies as st
from memgate.redact import _COMPILED, _NEEDLES, _starts_word, redact

def reference(text: str, counts: Counter) -> str:
    "Redaction as it was before the fast paths: every pattern over the whole text, in order."
    for kind, pattern in _COMPILED.items():
        def sub(m, kind=kind):
            if kind not in _NEEDLES and not _starts_word(m.string, m.start()): return m[0]
            counts[kind] += 1
            if 'value' not in m.re.groupindex: return f'[REDACTED:{kind}]'
            return m[0][:m.start('value') - m.start()] + f'[REDACTED:{kind}]' + m[0][m.end('value') - m.start():]
        text = pattern.sub(sub, text)
    return text

WORDS = ['password', 'PassWd', 'pwd', 'SECRET', 'api_key', 'apiKey', 'access-key', 'auth_token', 'ACCESS_TOKEN',
         'paſſword', 'apı_key', 'aws_secret_access_key', 'Authorization', 'db_password_file', 'İ', 'token', 'key']
BITS = ['=', ': ', ' = "', "'", 'Bearer ', 'hunter2-correct-horse', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
        '123456789', 'abcdefgh', '\n', ' ', ',', 'sk-proj-' + 'Ab3dEf6hIj9kLm2nOp5q' * 2, 'AKIAIOSFODNN7EXAMPLE', 'x']

@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(WORDS + BITS), max_size=30).map(''.join))
def test_fast_redaction_equals_scanning_everything(text):
    fast, slow = Counter(), Counter()
    assert redact(text, fast) == reference(text, slow)
    assert fast == slow
