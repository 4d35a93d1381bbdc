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

# the finders that look for their words first (`memgate.words.Gate`): what they find is what they find without
# looking, on texts of their words in every case and script, beside the letters case-blind regexes fold
import re
import memgate.positions as positions
from memgate.words import Gate, folded, SECRET_NAME_WORDS

GATED = ['command_findings', 'assignment_findings', 'prose_findings', 'said_doubts', 'name_said_findings',
         'code_list_findings', 'pair_findings', 'byte_array_findings']
GATE_WORDS = sorted(SECRET_NAME_WORDS.words | positions._SAID_GATE.words | positions._CODES_GATE.words
                    | {c.split()[0] for c in positions.COMMANDS})
CASED = st.sampled_from(GATE_WORDS).flatmap(lambda w: st.sampled_from([w, w.upper(), w.title(), w.swapcase()]))
GLUE = ['İ', 'ı', 'ſ', 'K', 'ß', ' ', '\t', '\u3000', '\xa0', '_', '-', '.', ': ', ' = ', '="', '\n', 'x7Kq2mZ9vR4w',
        '1284', ' is ', ' là ', '→', 'backup ', 'codes:\n', '  12→', 'mysql -p', '$apr1$', '[', '0x1f, ',
        'kody', 'Kody', ' zapasowe:\n', ' de recuperação: ', ' di recupero: ', 'AB12X-CD34Y ', 'QW7ER-TY9UI\n']

def ungated(monkeypatch_free_call, text):
    "What finder `monkeypatch_free_call` finds in `text` with every gate open."
    was = Gate.__call__
    Gate.__call__ = lambda self, t: True
    try: return monkeypatch_free_call(text)
    finally: Gate.__call__ = was

@settings(max_examples=1500, deadline=None)
@given(st.lists(st.one_of(CASED, st.sampled_from(GLUE + BITS[:12])), max_size=25).map(''.join))
def test_gated_finders_find_what_they_find_without_their_gates(text):
    for name in GATED:
        f = getattr(positions, name)
        assert f(text) == ungated(f, text), name

def test_the_gates_fold_as_case_blind_regexes_do():
    "Every character a case-blind regex takes for a gate word's letter folds to that letter."
    every = ''.join(chr(i) for i in range(0x110000) if not 0xd800 <= i < 0xe000)
    for c in sorted(set(''.join(GATE_WORDS + [' ']))):
        for twin in set(re.findall('(?i)' + re.escape(c), every)):
            assert folded(twin) == folded(c), (c, twin)
    assert positions.SPACES == ''.join(c for c in every[:0x3001] if re.fullmatch(r'\s', c))

def test_gated_finders_find_on_the_blind_rounds_what_they_find_without_their_gates():
    from pathlib import Path
    from memgate.projects import load_project
    data = Path(__file__).parent / 'data'
    texts = [r.text for d in sorted(data.glob('blind_round*')) if d.is_dir()
             for r in load_project(d, redact=False).records()]
    assert len(texts) > 1000
    for name in GATED:
        f = getattr(positions, name)
        assert [f(t) for t in texts] == [ungated(f, t) for t in texts], name

# the secret words found by RE2 on the text's ASCII skeleton (`positions.secret_words`): what `re` finds, in every
# case and script, beside the letters `(?i)` takes for ASCII ones and `code` after a name's separator
@settings(max_examples=1500, deadline=None)
@given(st.lists(st.one_of(CASED, st.sampled_from(GLUE + ['_code', '.codes', '-CODEs', 'Kode', 'ſecret', 'PİN', 'é'])),
                max_size=25).map(''.join))
def test_secret_words_by_re2_are_those_re_finds(text):
    assert list(positions.secret_words(text)) == [m.span() for m in positions._SECRET_WORD.finditer(text)]

def test_secret_words_by_re2_are_those_re_finds_on_the_blind_rounds():
    from pathlib import Path
    from memgate.projects import load_project
    data = Path(__file__).parent / 'data'
    for d in sorted(data.glob('blind_round*')):
        for r in load_project(d, redact=False).records():
            assert list(positions.secret_words(r.text)) == [m.span() for m in positions._SECRET_WORD.finditer(r.text)]

# command lines found through RE2's look at the whole text's skeleton (`positions._LINES_GATE`): the lines it marks
# are read as every line was read before, and no line it leaves would have given anything
def every_line(text: str) -> set[int]:
    return set(range(text.count('\n') + 1))

@settings(max_examples=1500, deadline=None)
@given(st.lists(st.one_of(CASED, st.sampled_from(GLUE + BITS[:12] + ['\\\n', '\x0b', '\x1c', '\u2028', '-', ' -'])),
                max_size=25).map(''.join))
def test_command_lines_marked_by_the_skeletons_gate_are_every_line_that_gives_a_credential(text):
    was = positions._marked_lines
    positions._marked_lines = every_line
    try: slow = positions.command_findings(text)
    finally: positions._marked_lines = was
    assert positions.command_findings(text) == slow

def test_the_skeleton_keeps_places_and_gives_every_space_of_re_as_a_space_of_re2():
    from memgate.words import skeleton
    every = ''.join(chr(i) for i in range(0x110000) if not 0xd800 <= i < 0xe000)
    assert len(skeleton(every)) == len(every)
    assert {skeleton(c) for c in every if re.fullmatch(r'\s', c)} <= {b' ', b'\t', b'\n', b'\r', b'\x0c'}
