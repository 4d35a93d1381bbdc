"""Secrets found by principle, not by the syntaxes a corpus held (issue 48): generated values placed where developers
put them, a value found once absent everywhere, values under the floor never spreading, non-credential flags never
taken.

The values are hypothesis's: any characters a password may hold, written escaped as each place requires."""
import json, re, shlex
from hypothesis import HealthCheck, example, given, settings, strategies as st
from synth import cc, write_jsonl
from memgate.chunking import chunk_project
from memgate.projects import load_project
from memgate.redact import redact, spreads
from memgate.positions import command_findings

# a password: letters and digits with punctuation, quotes, backslashes and spaces among them, 12 to 40 characters,
# with a letter, a digit and a symbol (the floor of what may be a word is not what this tests)
PUNCT = '!#%&*+,-./:;=?@^_~ "\'\\$'
password = st.text(st.sampled_from('abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789' + PUNCT),
                   min_size=12, max_size=40).filter(
    lambda v: v == v.strip() and re.search('[A-Za-z]', v) and re.search('[0-9]', v) and re.search(r'[^\w ]', v)
    and '  ' not in v and not v.startswith(('-', '$', '{', '(', '[', '<', '%', '@', ':', '/', '.', '#', "'", '"'))
    and not re.search(r'(.)\1\1', v))

def windows(value: str, n: int = 8) -> list[str]: return [value[i:i + n] for i in range(len(value) - n + 1)]

def leaked(value: str, sent: str, template: str) -> list[str]:
    "Windows of 8 of `value` that are sent and that the surrounding template does not hold."
    return [w for w in windows(value) if w in sent and w not in template]

PLACES = {
    'argv after a credential flag': lambda v: f"mysql -u root --password={shlex.quote(v)} shop",
    'sqlcmd -P': lambda v: f"sqlcmd -S db -U sa -P {shlex.quote(v)} -Q 'select 1'",
    'env assignment': lambda v: f"export DB_PASSWORD={shlex.quote(v)}",
    # spaces only where quoted (an unquoted `A B=` reads as a second assignment)
    'dotenv line': lambda v: f"DB_PASSWORD={v}" if not set(v) & set('"# ') else f"DB_PASSWORD={json.dumps(v)}",
    'json value': lambda v: '{"db_password": ' + json.dumps(v) + '}',
    'python literal': lambda v: f"db_password = {v!r}",
    'env lookup default': lambda v: f"pw = os.environ.get('DB_PASSWORD', {v!r})",
    'prose, English': lambda v: f"the new db password is `{v}` from today",
    'prose, Portuguese': lambda v: f"a nova senha do banco é `{v}` a partir de hoje",
    'prose, German': lambda v: f"das neue Passwort ist `{v}` ab heute",
    'prose, French': lambda v: f"le mot de passe est `{v}` désormais",
    'prose, Spanish': lambda v: f"la contraseña es `{v}` desde hoy",
    'table cell': lambda v: f"| Service | Password |\n|---|---|\n| db | `{v.replace('|', '/')}` |",
}

@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(password, st.sampled_from(sorted(PLACES)))
# found by hypothesis: a literal that starts as pairs (`A=;A=`) and goes on was read as pairs of its own
@example('A=;A= 223223', 'env lookup default')
# and a stop glued to more of a quoted token ended a passphrase said after a copula (`A.A.2`)
@example('A.A.2;2232232', 'prose, Portuguese')
# and a backslash and an `n` in it, then letters and digits, read as an escaped line end and a name
@example('2232\\nA22322', 'dotenv line')
def test_a_generated_password_is_taken_wherever_it_stands(value, place):
    text = PLACES[place](value)
    template = PLACES[place]('\x00')
    assert leaked(value, redact(text), template) == [], (place, text, redact(text))

@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(password)
@example('E-2232232232')  # found by CI: `=E` read as the copula `e`, the rest a passphrase with the next word
def test_a_secret_found_in_one_session_is_absent_from_every_other(tmp_path, value):
    "Found after a credential flag in the last session, it is gone from the first one's prose and its thinking too."
    value = value.replace('`', '')
    folder = tmp_path / f'p{abs(hash(value))}'
    write_jsonl(folder / 'a.jsonl', [cc('user', '2026-01-01T10:00:00.000Z', f'I wrote it down: {value} , keep it',
                                        sid='A'),
                                     cc('assistant', '2026-01-01T10:00:01.000Z',
                                        [dict(type='thinking', thinking=f'the user said {value} , noted',
                                              signature='s')],
                                        sid='A')])
    write_jsonl(folder / 'b.jsonl', [cc('user', '2026-01-02T10:00:00.000Z',
                                        f"run: mysql -u root --password={shlex.quote(value)} shop", sid='B')])
    sent = '\n'.join(c.text for c in chunk_project(load_project(folder), workers=1))
    if spreads(value):
        assert value not in sent, sent

@given(st.sampled_from(['admin', '8080', 'true', 'changeme', '/run/secrets/db', 'password1', 'root', 'hunter2',
                        '${DB_PASSWORD}', 'us-west-2', 'localhost:5432']))
def test_values_under_the_floor_never_spread(value):
    assert not spreads(value)

@given(st.sampled_from(['mkdir -p /tmp/x', 'docker run -p 5432:5432 postgres', 'git commit -a -m fix',
                        'grep -w token src', 'sed -e s/a/b/ f', 'mysql -u root -p shop', 'docker build -t app .',
                        'ls -la ~/.ssh', 'ssh -i ~/.ssh/id_rsa host', 'curl -H "Accept: json" https://x']),
       st.sampled_from(['', '$ ', '  command: ', '    12→']))
def test_flags_that_take_no_credential_are_never_taken(line, prefix):
    assert command_findings(prefix + line) == []

# placements that span records or stand in the model's own text: a session of them, chunked as a run sends it
SESSION_PLACES = {
    'assistant text': lambda v: [cc('assistant', '2026-01-01T10:00:01.000Z',
                                    [dict(type='text', text=f"I set DB_PASSWORD to `{v}` in the env file.")])],
    'thinking': lambda v: [cc('assistant', '2026-01-01T10:00:01.000Z',
                              [dict(type='thinking', thinking=f"The admin password earlier (`{v}`) goes to the vault.",
                                    signature='s')])],
    'split over two lines': lambda v: [cc('user', '2026-01-01T10:00:00.000Z',
                                          f"DB_PASSWORD = (\n    {v[:len(v) // 2]!r}\n    {v[len(v) // 2:]!r}\n)")],
    'split over two messages': lambda v: [cc('user', '2026-01-01T10:00:00.000Z',
                                             f"the db password is {v[:len(v) // 2]}"),
                                          cc('user', '2026-01-01T10:00:02.000Z', v[len(v) // 2:])],
}

@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
# unquoted in a message, a value starts with a letter or digit and holds no quote or space: a reader takes those
# for the sentence's own
@given(password.filter(lambda v: not set(v) & set(' `"\'') and v[0].isalnum()), st.sampled_from(sorted(SESSION_PLACES)))
# found by hypothesis: the first half's `\n` read as an escaped line end left after the redaction, so the seam did not
# see a value cut there and the second message's digits went out
@example('22322\\n22322322', 'split over two messages')
# (and, in CI, digits, a slash and a dot read as a path `dir/file.2A`: an extension starts with a letter)
@example('223223/22.2A', 'assistant text')
def test_a_generated_password_is_taken_in_the_models_text_and_split_over_lines_or_messages(tmp_path, value, place):
    folder = tmp_path / f'p{abs(hash((value, place)))}'
    write_jsonl(folder / 'a.jsonl', SESSION_PLACES[place](value))
    sent = '\n'.join(c.text for c in chunk_project(load_project(folder), workers=1))
    assert leaked(value, sent, '') == [], (place, value, sent)
