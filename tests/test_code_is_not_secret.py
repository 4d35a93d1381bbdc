"""Code is not a secret (issue 26): credential-handling library code read and written in a session keeps its code.

httpx's `_auth.py`, `_client.py`, `_config.py` and `_urls.py` lost `password=auth_info[1]`, `self._password =
to_bytes(password)` and `request.url.password` to `[REDACTED:password]`: 7 redactions in 166 KB, all of code."""
import importlib.util, json, re
from pathlib import Path
from synth import cc, write_jsonl
from helpers import memgate

SOURCES = [('httpx', ['_auth.py', '_client.py', '_config.py', '_urls.py', '_models.py', '_transports/default.py']),
           ('pip._vendor.requests', ['auth.py', 'sessions.py', 'utils.py', 'adapters.py', 'models.py']),
           ('pip._vendor.urllib3', ['util/url.py', 'poolmanager.py', 'util/request.py'])]

def library_files() -> list[Path]:
    "The credential-handling sources of libraries every memgate environment has (httpx, pip's requests and urllib3)."
    out = []
    for module, names in SOURCES:
        spec = importlib.util.find_spec(module)
        if spec and spec.origin: out += [p for n in names if (p := Path(spec.origin).parent / n).is_file()]
    return out

def test_credential_handling_code_read_and_written_in_a_session_keeps_its_code(tmp_path):
    files = library_files()
    rows, read = [], 0
    for i, f in enumerate(files):
        text = f.read_text(encoding='utf-8')
        read += len(text)
        at = lambda k: f'2026-01-01T10:{i:02d}:{k:02d}.000Z'
        rows += [cc('assistant', at(0), [dict(type='tool_use', id=f'r{i}', name='Read', input=dict(file_path=str(f)))]),
                 cc('user', at(1), [dict(type='tool_result', tool_use_id=f'r{i}', content=text)]),
                 cc('assistant', at(2), [dict(type='tool_use', id=f'w{i}', name='Write',
                                              input=dict(file_path=f'/work/copy/{f.name}', content=text))])]
    write_jsonl(tmp_path / 'p' / 'S1.jsonl', rows)
    r = memgate('chunks', '--project', tmp_path / 'p', '--format', 'json', '--tool-result-chars', 10_000_000)
    assert r.returncode == 0, r.stderr
    sent = ''.join(c['text'] for c in json.loads(r.stdout))
    redactions = re.findall(r'.{0,60}\[REDACTED:[^\]]+\]', sent)
    shown = 2 * read                                        # each file read once and written once
    print(f"{len(redactions)} redactions in {shown / 1e3:.0f} KB of credential-handling code "
          f"({len(redactions) / (shown / 1e5):.2f} per 100 KB)")
    assert len(files) >= 10 and shown > 300_000
    assert len(redactions) <= shown / 100_000, redactions
    source = ''.join(f.read_text(encoding='utf-8') for f in files)
    code = [c for c in ('password=auth_info[1]', 'self._password = to_bytes(password)', 'request.url.password')
            if c in source]
    assert code and all(c in sent for c in code), code

# credential-handling code in each language sessions hold, written for this test (tests/data/code), and what in it
# a redactor that read only Python took for passwords: Elixir's pin and bang calls, sigils, pattern matches, ...
LANGUAGE_FILES = sorted((Path(__file__).parent / 'data' / 'code').iterdir())
KEPT = ['%{session_id: ^session_id} = session <- Ash.get!(MyApp.Session, session_id)', 'id == ^session_id',
        '~r/^[A-Za-z0-9_-]{43}$/', 'token = conn.cookies[@remember_me_cookie]',
        'const refreshToken = crypto.randomUUID();', 'secret := os.Getenv("JWT_SIGNING_KEY")',
        'let secret = env::var("JWT_SECRET")?;', 'pub api_key: Option<String>,', 'var token: String?',
        'password: ENV["DB_PASSWORD"],', 'String token = Jwts.builder()',
        'GITHUB_TOKEN="${GITHUB_TOKEN:-$(gh auth token)}"', "crypt($2, gen_salt('bf', 12))",
        "ALTER ROLE app_user WITH PASSWORD :'password';", 'const password = next.password || config.password;',
        # issue 48: an expression, a type, a generic call, a constant naming its key, a template's holes, a cookie
        'token := &Token{', 'envSessionToken = "APP_SESSION_TOKEN"', 'cannot refresh token: %v\\nbody: %s',
        'Box::new(hmac::Hs256Signer::new(key)?)', 'password: Option<P>', 'serde_json::from_str::<Claims>(',
        'RESET_PASSWORD_WITHIN = 6.hours', "HTTP_COOKIE = 'HTTP_COOKIE'",
        'password = "#{password}#{self.class.pepper}"',
        "res.append('Set-Cookie', 'theme=dark; Path=/; HttpOnly');", 'KeyAlgorithm<Password, Password>>',
        'AUTHORIZATION = "Authorization"', 'sliding_cookie: {30, :seconds}']

def session_reading_and_writing(files: list[Path], folder: Path) -> int:
    "A session that reads each of `files` and writes it back, under `folder`; the characters of code it shows."
    rows, shown = [], 0
    for i, f in enumerate(files):
        text = f.read_text(encoding='utf-8')
        shown += 2 * len(text)
        at = lambda k: f'2026-01-01T11:{i:02d}:{k:02d}.000Z'
        rows += [cc('assistant', at(0), [dict(type='tool_use', id=f'r{i}', name='Read', input=dict(file_path=str(f)))]),
                 cc('user', at(1), [dict(type='tool_result', tool_use_id=f'r{i}', content=text)]),
                 cc('assistant', at(2), [dict(type='tool_use', id=f'w{i}', name='Write',
                                              input=dict(file_path=f'/work/app/{f.name}', content=text))])]
    write_jsonl(folder / 'S1.jsonl', rows)
    return shown

def test_code_in_every_language_a_session_holds_keeps_its_code(tmp_path):
    languages = {'.ex', '.ts', '.js', '.go', '.rs', '.rb', '.java', '.kt', '.sh', '.sql'}
    assert {f.suffix for f in LANGUAGE_FILES} >= languages
    shown = session_reading_and_writing(LANGUAGE_FILES, tmp_path / 'p')
    r = memgate('chunks', '--project', tmp_path / 'p', '--format', 'json', '--tool-result-chars', 10_000_000)
    assert r.returncode == 0, r.stderr
    sent = ''.join(c['text'] for c in json.loads(r.stdout))
    redactions = re.findall(r'.{0,60}\[REDACTED:[^\]]+\]', sent)
    print(f"{len(redactions)} redactions in {shown / 1e3:.0f} KB of code in {len(LANGUAGE_FILES)} languages")
    assert len(redactions) <= shown / 100_000, redactions
    missing = [k for k in KEPT if k not in sent]
    assert not missing, missing
