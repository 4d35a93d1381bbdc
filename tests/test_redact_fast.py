"""Rules run only near their keywords (issue 13, issue 26): what that finds is exactly what running every rule over
the whole text finds, on texts where keywords sit far from the start, letters change length when lower-cased, and
secrets of every family meet."""
from collections import Counter
import memgate.rules as rules
from hypothesis import given, settings, strategies as st
from memgate.redact import redact

WORDS = ['password', 'PassWd', 'pwd', 'SECRET', 'api_key', 'apiKey', 'access-key', 'auth_token', 'ACCESS_TOKEN',
         'aws_secret_access_key', 'Authorization', 'db_password_file', 'İ', 'token', 'key', 'curl -u ', 'mysql -p',
         '://', 'Cookie: ', 'Bearer ', '--password ', '-----BEGIN RSA PRIVATE KEY-----\n', 'ey']
BITS = ['=', ': ', ' = "', "'", 'hunter2-correct-horse', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', '123456789',
        'abcdefgh', '\n', ' ', ',', 'sk-proj-' + 'Ab3dEf6hIj9kLm2nOp5q' * 2, 'AKIAIOSFODNN7EXAMPLE', 'x',
        'k3v9x0q2m8w7r4t1zQ', 'user:pa55w0rd@', 'x' * 300, 'done\n' * 4000,
        'MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0t\n']

@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(WORDS + BITS), max_size=30).map(''.join))
def test_rules_run_near_their_keywords_find_what_scanning_everything_finds(text):
    near, everywhere = Counter(), Counter()
    fast = redact(text, near)
    was = rules.REACH
    rules.REACH = (10 ** 9, 10 ** 9)                # every keyword's stretch is then the whole text
    try: slow = redact(text, everywhere)
    finally: rules.REACH = was
    assert fast == slow and near == everywhere
