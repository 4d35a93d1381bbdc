"""Round 31's misses, fixed by principle (measured blind first, at ecd4fd6): each secret below is taken whole and
each look-alike is sent as written."""
import re
import pytest
from memgate.redact import redact

SECRETS = [   # (text, the value)
    # words drawn at random and quoted as one value: a passphrase, whatever sentence is around it
    ('what is this one for? `thistle fern plum ginger` — found it in a sticky note', 'thistle fern plum ginger'),
    # a password word glued to a Latin prefix in a language of no spaces; a `?` the sentence goes on after
    ('ステージングのDBパスワードは Winter2025? です。後で変更します。', 'Winter2025?'),
    ('so the upstream password is Winter2012?. Anyone with the repo', 'Winter2012?'),
    # French quotes hold a space inside each
    ('Le mot de passe du compte de service est « Verano2019! », il faut le mettre dans le vault.', 'Verano2019!'),
    # a capitalised word and a year, as people make a password, is no name of code
    ('Пароль от VPN: Simba_2019 — не коммить его, пожалуйста.', 'Simba_2019'),
    # an administrator's account glued to its password, as Basic's `user:password`
    ('base64-decoding it gives admin:Winter2012?, so the header is static', 'Winter2012?'),
    # a psql table's `secret` column (psql joins its rule's dashes with `+`)
    ('  id  |  key_name  |  secret  | created_at\n------+------------+----------+------------\n'
     '  102 | SF_SESSION | 00DvcTCbeEb7iWU!ARQAIipYHnNKyQ491q6eYCi2Rx9ov6H7x2Qrxjp | 2025-06-16\n(1 row)',
     '00DvcTCbeEb7iWU!ARQAIipYHnNKyQ491q6eYCi2Rx9ov6H7x2Qrxjp'),
    # a licence's key, long and quoted as one
    ('and AG Grid license is `Using_this_{AG_Charts_and_AG_Grid}_Enterprise_key_{AG-757048}_in_excess_of_the_'
     'licence_[v3]_[0102]_MTc1NjI0MDAwMDAwMA==b8f9c2a7d4e1f0a3b6c9d2e5f8a1b4c7`',
     'Using_this_{AG_Charts_and_AG_Grid}_Enterprise_key_{AG-757048}_in_excess_of_the_licence_[v3]_[0102]_'
     'MTc1NjI0MDAwMDAwMA==b8f9c2a7d4e1f0a3b6c9d2e5f8a1b4c7'),
    # a gem server's credential given on Bundler's command line
    ('bundle config set --global gems.contribsys.com 078704df:ff6e6082 && bundle install', '078704df:ff6e6082'),
    # a personal access token after its service's name
    ('\tasanaPat = "2/2892309827907160/8529911076118084:dbb7e263e77c9c6184f4b771d9ad2e8a"',
     '2/2892309827907160/8529911076118084:dbb7e263e77c9c6184f4b771d9ad2e8a'),
]

LOOK_ALIKES = [
    # words of a sentence or a command, quoted
    'run `fix the login page now` and `npm run build test`',
    # a licence's name after its word; a pattern's abbreviation after what it matches
    'the license is Apache-2.0 and the licence: GPL-3.0-or-later',
    'url_pat = "/api/v1/.*"',
    # an image's tag after a database's name; a scope after an administrator's
    'image: postgres:16.3@sha256:8672f032d75ebaeed209e332d5573009a03798bbd0cfb09a7323345b45b76fd0',
    'scopes admin:org and admin:public_key',
    # Razorpay's key id, given to its browser checkout by design
    '<script>window.RZP_KEY = "rzp_live_OaInZZYG74yKMi";</script>',
    # values that say they are not real; references to the environment
    "export const FIXTURE_TOKEN = 'fake-password-1mdmvjzn';",
    "export const FIXTURE_TOKEN = 'not-a-real-key-luo12048';",
    "  apiKey: 'your-32-char-secret-goes-here',",
    # an unsigned token proves nothing (jwt.io's example)
    "  jwt: 'eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJzdWIiOiJ0ZXN0LXVzZXIiLCJyb2xlIjoidmlld2VyIn0.',",
    # names of code with a year, lower case
    'x = config_2019.load()',
]

@pytest.mark.parametrize('text,value', SECRETS)
def test_a_secret_is_taken_whole(text, value):
    sent = redact(text)
    assert value not in sent and '[REDACTED:' in sent, sent
    assert not any(part in sent for part in re.split(r'[^A-Za-z0-9]+', value) if len(part) >= 5), sent

@pytest.mark.parametrize('text', LOOK_ALIKES)
def test_a_look_alike_is_sent_as_written(text):
    assert redact(text) == text
