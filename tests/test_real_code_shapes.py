"""What real public code showed a session and lost to the redactor (issue 48's "Real code"), written again as small
snippets of the same shapes: each keeps its text, while the same place with a real secret still loses it.

`bench/real_code.py` over 11 repositories in 9 languages (httpx, click, express, zod, cobra, phoenix, jq, Slim,
ripgrep, sinatra, gson) found these taken: Go's and C's camelCase names (`BashCompSubdirsInDir`), C's arithmetic
(`num.lsd=buf+DECPMAX-shift-1`), hex of a test's text (`6e616d653de8aeba` is `name=` and a word), an IDNA label
(`xn--…`), a GitHub advisory's id, an ISO 8601 duration, Node's ETags, a build's fingerprinted asset, Basic
credentials of placeholder words (`dXNlcm5hbWU6cGFzc3dvcmQ=` is `username:password`), a log's mask (`[secure]`),
the metasyntactic words (`FooBarBazToken`), names given as a lookup's default (`"_csrf_token"`), an expression of
names (`extra_conf ++ secret_conf`), three-character values (`"abc"`), and a form body's next field spilled into
(`password=secret123&email=…`)."""
import base64
import pytest
from memgate.redact import redact

KEPT = [
    ('BashCompSubdirsInDir    = "cobra_annotation_bash_completion_subdirs_in_dir"', 'BashCompSubdirsInDir'),
    ('zsh.Flags().BoolVar(&noDesc, compCmdNoDescFlagName, false, compCmdNoDescFlagDesc)', 'compCmdNoDescFlagDesc'),
    ('        num.lsd=buf+DECPMAX-shift-1;\n', 'num.lsd=buf+DECPMAX-shift-1'),
    ("      test.expect(200, { buf: '6e616d653de8aeba' }, done)", '6e616d653de8aeba'),
    ('        "https://xn--mgba3gch31f060k.com:4433",', 'xn--mgba3gch31f060k'),
    ('// https://github.com/jqlang/jq/security/advisories/GHSA-f946-j5j2-4w5m', 'GHSA-f946-j5j2-4w5m'),
    ('const d1 = "P3Y6M4DT12H30M5S";', 'P3Y6M4DT12H30M5S'),
    ("    assert.strictEqual(utils.etag('express!'), '\"a-JBiXf7GyzxwcrxY4hVXUwa7tmks\"')",
     'JBiXf7GyzxwcrxY4hVXUwa7tmks'),
    ('      "https://example.com/assets/js/app-813dfe33b5c7f8388bccaaa38eec8382.js"',
     '813dfe33b5c7f8388bccaaa38eec8382'),
    ('    "authorization": "Basic dXNlcm5hbWU6cGFzc3dvcmQ=",', 'dXNlcm5hbWU6cGFzc3dvcmQ='),
    ('    assert response.json() == {"auth": "Basic dXNlcjpwYXNzd29yZDEyMw=="}', 'dXNlcjpwYXNzd29yZDEyMw=='),
    ("    assert \"'authorization': '[secure]'\" in str(response.request.headers)", "'[secure]'"),
    ('    request_headers = {"X-Auth-Token": "FooBarBazToken"}', 'FooBarBazToken'),
    ('  session_key = Map.get(conn.query_params, "session_key", "_csrf_token")', '"_csrf_token"'),
    ('    secret_conf = extra_conf ++ secret_conf\n', 'extra_conf ++ secret_conf'),
    ('safeParse({ password: "abc", confirmPassword: "xyz" });', '"abc"'),
    ('      "value" => "username=john&password=secret123&email=john@example.com"', '&email=john@example.com'),
    ("      secret: 'keyboard cat',", 'keyboard cat'),
    ('        "opaque": "FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS",',
     'FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS'),
]

@pytest.mark.parametrize('text,kept', KEPT, ids=[k[:24] for _, k in KEPT])
def test_a_shape_real_code_holds_keeps_its_text(text, kept):
    assert kept in text
    assert kept in redact(text), redact(text)

basic = lambda plain: base64.b64encode(plain.encode()).decode()
TAKEN = [
    # a Basic credential of a real password, a presigned URL's signature after the fields a cut left
    (f'    "authorization": "Basic {basic("deploy:kX9vQ2pLm7Rt#w")}",', basic('deploy:kX9vQ2pLm7Rt#w')),
    ('https://b.s3.amazonaws.com/f.zip?X-Amz-Credential=AKIAQPEQSCS66KFMDVSE%2F20251014%2Fus-west-2%2Fs3%2Faws4_request'
     '&X-Amz-Date=20251014T101500Z&X-Amz-Signature=754da6e506102cbd650d171c3bb4c3af0e7c2dc0b97cfcb11dd54a64fda0bbb2',
     '754da6e506102cbd650d171c3bb4c3af0e7c2dc0b97cfcb11dd54a64fda0bbb2'),
    # a form body's password, its next field kept
    ('      "value" => "username=john&password=Vq7#mZ2!pL9x&email=john@example.com"', 'Vq7#mZ2!pL9x'),
    # a token of random letters: its parts are single letters and pairs that are no words of code
    ('    RELAY_TOKEN = "kXqPzMwTrBnLvJhYgQ"', 'kXqPzMwTrBnLvJhYgQ'),
    # hex that spells nothing
    ('    NVS_KEY = "729bf3279fde5281926b24a6f4e27"', '729bf3279fde5281926b24a6f4e27'),
    # an UUID in a vendor's key position is no ETag
    ('PRmessagebirdAgz:fe39c785-c3be-ca4a-3374-b23ce10dd45d', 'fe39c785-c3be-ca4a-3374-b23ce10dd45d'),
]

@pytest.mark.parametrize('text,secret', TAKEN, ids=[s[:16] for _, s in TAKEN])
def test_the_same_place_with_a_real_secret_still_loses_it(text, secret):
    out = redact(text)
    assert secret not in out and '[REDACTED:' in out, out
