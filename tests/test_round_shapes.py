"""Rounds 29 to 60's misses, fixed by principle (each measured blind first: round 29 at 88be969, round 30 at
860cfea, round 31 at ecd4fd6, round 32 at f2e1b37, round 33 at b086e7a, round 34 at d7edb28, round 35 at aee66d4,
round 36 at 92428e5, round 37 at 21c5773, round 38 at 38cdb28, round 39 at 15ab486, round 40 at 19f2755, round 41
at 7ee5462, round 42 at 3a2aaeb, round 43 at c6eb40a, round 44 at c675c4e, round 45 at ddf0c06, round 46
at c35b6bc, round 47 at b7d6674, round 48 at 3c22ce4, round 49 at 1ee30c9,
round 51 at c889362, round 52 at 01e17cc,
round 53 at 466eac0, round 54 at d263b98, round 55 at 7afe9e1, round 56 at 746a7a4,
round 57 at 6b478ba, round 58 at 81a6021, round 59 at 1bc0aab,
round 60 at 48fe9b3): each secret below is taken whole and each look-alike
is sent as written."""
import re
import pytest
from hypothesis import given, settings, strategies as st
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
    # round 31
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
    # round 32
    # a password manager's export: a CSV whose cells are quoted, each row's own (no literal goes on to the next)
    ('"Title","Username","Password"\n"UPS portal","ops","Sahara@4823"\n"Customs broker","dockside","Chai2013%"',
     'Chai2013%'),
    # what an expect script sends to a password prompt, as written and as a patch's JSON-escaped arguments
    ('     3→expect "assword:"\n     4→send "ThalassaThalassa902!\\r"\n', 'ThalassaThalassa902!'),
    ('+expect \\"assword:\\"\\n+send \\"Thalassa@8160\\\\r\\"\\n', 'Thalassa@8160'),
    # an app password in its groups; a Wi-Fi key after its SSID; a RADIUS server's key in its block
    ('for the smtp fallback just use gmail with the app password ddzb vqbq pfoz iwgn', 'ddzb vqbq pfoz iwgn'),
    ('btw if the test printer needs network: SSID Dockside-Office, key sisu1507?', 'sisu1507?'),
    ('radius server corp\n address ipv4 10.20.0.5 auth-port 1812\n key PhoBo.hanoi79\n', 'PhoBo.hanoi79'),
    # a login said to be a value with digits and a password's mark
    ('The user said the old admin login was "tortilla1106?". I should not reuse it', 'tortilla1106?'),
    # a macro's bytes under a key's name; a licence's key ending in 96 bits of hex or more
    ('#define ZIGBEE_NETWORK_KEY [0x84, 0x6A, 0x7D, 0x8B, 0xB1, 0x1E, 0x57, 0xDF, 0xA2, 0xCE, 0xC1, 0x84, 0x1C, '
     '0x25, 0x0B, 0x30]', '0x84, 0x6A, 0x7D, 0x8B'),
    ('LicenseManager.setLicenseKey("Using_this_{AG_Grid}_Enterprise_key_{AG-101999}_in_excess_of_the_licence_'
     'granted_is_not_permitted___{Dockside}_{6412098f54eeb7d80c755a7837255f42}");', '6412098f54eeb7d80c755a7837255f42'),
    # words joined by dots as a lookup's default; a name ending in digits and a mark
    ('const SECRET = process.env.CARRIER_WEBHOOK_SECRET ?? "raven.orchid.nectar.plaza";', 'raven.orchid.nectar.plaza'),
    ('كلمة المرور: SaharaQamar668$', 'SaharaQamar668$'),
    # a list of drawn words may draw one twice
    ('found: `nectar hazel sonnet quartz sonnet` on a note', 'nectar hazel sonnet quartz sonnet'),
    # round 33
    # a password in the clear in an htpasswd-style file; an age key whatever its characters after its prefix
    ('ops:{PLAIN}$Gęślą-Słoneczko807', '$Gęślą-Słoneczko807'),
    ('# secret key: AGE-SECRET-KEY-1QG0U057FM6CKN8PQXKN8IC0DBK72G1CILHAWKNV71A8QOJ4A8P01I83IQ2',
     'QG0U057FM6CKN8PQXKN8IC0DBK72G1CILHAWKNV71A8QOJ4A8P01I83IQ2'),
    # a combination said in its groups, changed to; a `pass` named for what it lets in
    ("don't lose this: controlled drugs cabinet code changed to 15-11-11, I'll put it in the vault", '15-11-11'),
    ('ansible vault pass is CachorroGatinho168 -- run the prod playbook with --check', 'CachorroGatinho168'),
    # hex that spells a password; a value, then that it is the password (an apposition)
    ('{"output":"43486430766c7e21586e782565416b582a38\\n"}', '43486430766c7e21586e782565416b582a38'),
    ("That hex dump decodes to `CHd0vl~!Xnx%eAkX*8`, the Orthanc admin password; I won't echo it",
     'CHd0vl~!Xnx%eAkX*8'),
    # a licence's key given to its setter, however long
    ("LicenseManager.setLicenseKey('Using_this_{AG_Grid}_Enterprise_key_{AG-995538}_in_excess_of_the_licence_"
     + 'granted_is_not_permitted___' * 20 + "[v3]_[01]_MTc3MzI3MzYwMDAwMA==1f49e9795c5e86a066b0eb775f48c068');",
     'AG-995538'),
    # round 34
    # recovery codes listed after their name in a script that writes no space
    ('GitHubのbotの2FA、念のためリカバリーコードを貼っておきます：\nwx9n3-h85vd\ntxnod-40ip9\n2mbyr-5banr\n使ったら消して',
     'txnod-40ip9'),
    # a `$` that starts a value, not a variable's name; Bundler's host credential in another format
    ('     8→MYAPP_UPLOAD_KEY_ALIAS=upload\n    10→MYAPP_UPLOAD_STORE_PASSWORD=$pumpkin143P\n', '$pumpkin143P'),
    ('bundle_gems__contribsys__com = "c3dd0a6d:c62dc6dc"', 'c3dd0a6d:c62dc6dc'),
    ('     5→app.bundle.gems.contribsys.com=708d7e75:9c6f20ff', '708d7e75:9c6f20ff'),
    # a network's passphrase said of the network; drawn words with a number last, a parenthesis after
    ("Pour tester : code PIN 677953, et le wifi QA c'est « Lab butter candy 49 » (Metro)", 'Lab butter candy 49'),
    ('bastion: key ~/.ssh/deploy — the passphrase is ball another cliff below 26 (yes, with spaces)',
     'ball another cliff below 26'),
    # round 35
    # a credential's flag whose value is words with a number; cypher-shell's password flag
    ('openssl rsa -in certs/partner-sftp.key.enc -passin pass:domino_beacon_juniper103 -pubout',
     'domino_beacon_juniper103'),
    ("cypher-shell -a neo4j+s://graph.kryo-fleet.io -u neo4j -p 'Reefer1975*wb' 'RETURN 1'", 'Reefer1975*wb'),
    # a secret's field read from a here-string
    ('vault kv put secret/ops/admin recovery_codes=@/dev/stdin <<< "2wiq-6sy4 fkk2-r1dp t5dz-ozpt sxb0-z7xr"',
     '2wiq-6sy4 fkk2-r1dp t5dz-ozpt sxb0-z7xr'),
    # what a code opens, said in French and Dutch; a combination after its clause's colon
    # 32 hex digits from a 3 under a routing key (PagerDuty's): no Bitcoin address
    ('  pagerduty_routing_key: "3df34b69c3981836968189f791ccd834"', '3df34b69c3981836968189f791ccd834'),
    ("Le code de la porte de service est 9667*, et pour désarmer l'alarme c'est 129616 puis la touche OFF.",
     '129616'),
    ('En voor het kluisje met de reserve-gateways: 17-95-15. Kun je een checklist maken?', '17-95-15'),
    # round 35, left after its first fixes: a gem server's user:password in hex halves; a licence's key in
    # groups under a serial's name; a key's word nearer than a digest's (`layer`)
    ('inventory (key=value):\nsidekiq pro: 5be10c7a:d94e02f8\nnext', '5be10c7a:d94e02f8'),
    ('unity_serial=F4-QW8R-ZT2K-9LMB-XC41-P0AE', 'F4-QW8R-ZT2K-9LMB-XC41-P0AE'),
    ('use openweather for the temp layer, key is 4c1e9a07b2d35f8e6a90c4b1d7e2f385',
     '4c1e9a07b2d35f8e6a90c4b1d7e2f385'),
    # round 36: what a code opens, and its "changed to", in Portuguese and Russian; a password's clause with
    # an aside in brackets; drawn words under a passphrase's name; a file made of an echoed literal
    ('Última coisa: o código do cofre do escritório mudou para 518204* e', '518204'),
    ('И код от двери серверной теперь 640917#. Добавь', '640917'),
    ('a senha do wifi da sala de servidores (Lab-5G) agora é maple-quartz-71. Pode anotar?', 'maple-quartz-71'),
    ('    static let luksPassphrase = "absorb alone all anchor"', 'absorb alone all anchor'),
    ("ansible-playbook site.yml --vault-password-file <(echo 'Heron!5521') --tags ldap", 'Heron!5521'),
    ('card ending 4821, cvc: 4021', '4021'),
    # round 37: a card's code, however short (PCI DSS: never kept); a code glued to what it opens, or right
    # after its word; what a thing opens with; a word and a number after a password's word or name; a key's
    # bytes in a YAML list; hex that spells a password; a security question's answer; a Rails cookie's base64
    # before its signature
    ('{"pan": "378431026240177", "cvv": "239", "exp": "08/26"}', '239'), ("ENV['CARD_CVV'] ||= '584'", '584'),
    ('(Falls du jemanden in den Serverraum schicken musst: Türcode 4417#.)', '4417'),
    ('Brama garażowa (tam stoi stacja RTK) ma kod 31907. Chcę', '31907'),
    ('la caja de llaves junto a la puerta trasera abre con 8823. ¿Lo', '8823'),
    ('Wi-Fi w warsztacie: SSID "Hangar-5G", hasło pretzel_1981442. Brama', 'pretzel_1981442'),
    ('Looking at the config: WIFI_PSK is set to lucero_2016841; x', 'lucero_2016841'),
    ('zigbee:\n  network_key: [0x41, 0x9C, 0x07, 0xE2, 0x5B, 0xD8, 0x13, 0x6F, 0xA0, 0x3E, 0x72, 0xC4, 0x19, 0x8D,'
     ' 0xF5, 0x2A]\n', '0x41, 0x9C, 0x07, 0xE2'),
    ('6a4b7a39775174524c6d5633\n', '6a4b7a39775174524c6d5633'),
    ('- `SECURITY_ANSWER`: `Marigold Lane 17`', 'Marigold Lane 17'),
    ('这是Rails session cookie：/qM3kZp+Vr8T/aB2x/LwN9cYd4Ee7Jh1Kq6Rs0Tu5Vw8Xy2Za3Bc4De5Fg6Hi7Jk8Lm9No0Pq1Rs2Tu3Vw4'
     '--7f3a9c1e5b2d8f4a6c0e9b1d3f5a7c9e2b4d6f8a，不要提交到仓库。',
     'qM3kZp+Vr8T/aB2x/LwN9cYd4Ee7Jh1Kq6Rs0Tu5Vw8Xy2Za3'),
    # Oracle's password in double quotes; a security question's answer in prose; a key's bytes in a code
    # span; jwt.io's sample keeps itself, not the rest of its line
    ('ALTER USER BILLING_RO IDENTIFIED BY "7hqkE3^&BNz;P" ACCOUNT UNLOCK;', '7hqkE3^&BNz;P'),
    ('Dit is de security question answer: Oberholzer Biscuit 64. Niet delen aub.', 'Oberholzer Biscuit 64'),
    ('- `ZIGBEE_NETWORK_KEY` = `0x5E, 0x8B, 0xC2, 0x0F, 0xA7, 0x36, 0xD9, 0x41, 0x7C, 0xE8, 0x13, 0x9A, 0x64,'
     ' 0xB0, 0x2D, 0xF7`', '0x5E, 0x8B, 0xC2, 0x0F'),
    ('EXAMPLE_JWT is set to eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaW'
     'F0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c; SIP_PASSWORD is set to Qz8rT2vW9xY4; done',
     'Qz8rT2vW9xY4'),
    # round 38: a password encoded and decoded on the command line; Rust's bytes under a password's name
    ("echo 'THdSR1RjTkBBUGsmRTJXbj0lJQ==' | base64 -d; echo", 'THdSR1RjTkBBUGsmRTJXbj0lJQ=='),
    ('pub const MQTT_PASS: &[u8] = b"QXaBz%CO!AOXNM#";', 'QXaBz%CO!AOXNM#'),
    # a lookup's default after code the password rule read as a value; a seed phrase with one word off the list
    ('SPACETRACK_PASSWORD = CFG["spacetrack"].get("password", "Tornado2009!")', 'Tornado2009!'),
    ('frase de recuperação:\nswallow fashion bottom bean cherry whisper whale glimpse rail cinnamon coach hobby canvas'
     ' cereal alert eclipse pigeon willow blur debris glacier whale pelican desert', 'pigeon willow blur debris'),
    # a diff's added line indented (a patch quoted in a tool's output): still a config's line
    ('      +kdbx_password = walnut valley falcon copper artist\n      +x = 1', 'walnut valley falcon copper artist'),
    # round 39: a log's pass= after its user=; an API key given as curl's user; a user's word then the pass's;
    # words and a number under a password's name in code; a values column's cell that holds a `|`
    ('ERROR smtp: 535 Authentication failed for user=noreply@t.no pass=RiobuelaSellama47! host=smtp.t.no:587',
     'RiobuelaSellama47!'),
    ('curl -fsS "https://api.x.no/ping" -u "dbtc_7KQWL3Rw7pLQWIp5-t6C6b1WE3yoPLPdcwtdyZi6rrGdGs0FNQ3n_hvA:"',
     'dbtc_7KQWL3Rw7pLQWIp5-t6C6b1WE3yoPLPdcwtdyZi6rrGdGs0FNQ3n_hvA'),
    ('login for the MQTT broker: user `admin` / pass `OchreZephyr#417`\n', 'OchreZephyr#417'),
    ('local mqtt_password = "astrid_glacier7"', 'astrid_glacier7'),
    ('| Variable | Value | Notes |\n|---|---|---|\n'
     '| `CONVEX_DEPLOY_KEY` | `prod:lemon-ember-417|7KtVsaE1491eePGcADPvoc1tqic1uaHDoabKj9dYpYzwhjF` | prod |\n',
     '7KtVsaE1491eePGcADPvoc1tqic1uaHDoabKj9dYpYzwhjF'),
    # round 40: a call's argument keeps its quote and comma; a code named by what it opens among its words
    # (alarm_disarm_code, SAFE_COMBO); drawn words joined after a password's word; a part of a value sent in
    # parts; a code of letters and digits said of what it opens; a cut Terraform Cloud token
    ('    client = Client(user="svc", password="ku3txy9Q", api_key="x")', 'ku3txy9Q'),
    ('[x.credentials]\nalarm_disarm_code = "61447"\n', '61447'), ('+SAFE_COMBO=41-18-62\n', '41-18-62'),
    ('Das Passwort für den Werkstatt-Router ist lamp_ask_attend_cousin, und der', 'lamp_ask_attend_cousin'),
    ('Het wachtwoord van de NAS is arena.arrive.faint.bargain.west.admit en de token is x',
     'arena.arrive.faint.bargain.west.admit'),
    ('too long for my terminal, sending in two parts. part 1: glpat-7QKAyYB', 'glpat-7QKAyYB'),
    ('part 2:\nqRh2zndAz6ZLzTW9TtQhX8Md.X57Z0d2w_KgtGsE_Zwg3sC', 'qRh2zndAz6ZLzTW9TtQhX8Md.X57Z0d2w_KgtGsE_Zwg3sC'),
    ('fyi alarm panel code is 7GKWrLZRX.SkssjO.hMx if the cleaners trip it again', '7GKWrLZRX.SkssjO.hMx'),
    # four digits after a password's word and its copula, in any language
    ('Hasło do bazy to 7319, a klucz API: x', '7319'), ("and the admin pw is 6027 — please don't", '6027'),
    # round 41: a table's row that names its credential, under headers in any language (its last cell)
    ('| Gerät | Benutzer | Zugang |\n|---|---|---|\n| OPC UA password | svc | `HZFFWpTUn64zbWOEp7pxY` |',
     'HZFFWpTUn64zbWOEp7pxY'),
    ('| what | who |  |\n|---|---|---|\n| barrel room keypad | ops | `8360#` |', '8360#'),
    # a secret's name in a code span, then an arrow
    ('- `POSTMARK_SERVER_TOKEN` → `f7223c83-1d69-4a05-8d1b-081a11597151`', 'f7223c83-1d69-4a05-8d1b-081a11597151'),
    # a code's digits under a name that is only what it opens
    ('     8→ALARM=8392\n', '8392'), ("  config.x.combo = ENV.fetch('COMBO', '66-99-82')", '66-99-82'),
    ('<add key="keypad" value="9483#" />', '9483#'), ("VALUES ('backup', 'gate', '979370');", '979370'),
    # drawn words quoted, made a person's passphrase (a capital, a mark or a number last)
    ('$env:MASTER = \'Amber meadow ocelot ridge!\'', 'Amber meadow ocelot ridge!'),
    # a seed phrase of any list's words, said so just before
    ('- Seed phrase → violet glacier kelp kelp violet quill lemur linden egret orbit kestrel tide\n',
     'violet glacier kelp kelp violet quill lemur linden egret orbit kestrel tide'),
    # a password `as` its value; a wifi key; a generator's ten characters with two marks
    ('hardcodes key passphrase as rowan juniper osprey orbit. Moving', 'rowan juniper osprey orbit'),
    ('* Barge wifi key = koalaibis0960', 'koalaibis0960'),
    ("HMI='v#T~XciG1Q'", 'v#T~XciG1Q'), ('Für the iGate nimm bitte 6DC#AeepyRQkhL', '6DC#AeepyRQkhL'),
    # a token in a code span in brackets; a person's password given to any name
    ('The user pasted the Snyk token (`3f4da921-fc72-4832-be53-d3e70e56e6af`) directly',
     '3f4da921-fc72-4832-be53-d3e70e56e6af'), ('    ENV ANYDESK="Meadow019?"', 'Meadow019?'),
    # round 42: a combination of five groups, `Kombi`, a safe said `caja fuerte`; a login glued to its password
    # by a slash; a lookup's `default=`; an app password in French; eight letters, cases mixed, no name's
    ('Das Vorhängeschloss am Tor hat die Kombi 1-2-5-3-5, falls Jonas', '1-2-5-3-5'),
    ('Caja fuerte taquilla: 42-30-23\n', '42-30-23'), ('har web-login admin/01YzxWhamL#oZJ. OPC', '01YzxWhamL#oZJ'),
    ('SECRET_KEY = env("DJANGO_SECRET_KEY", default="django-insecure-2ldr5eafb!$d3q_d@@(6sj+=vr)+-=$)8c")',
     'django-insecure-2ldr5eafb!$d3q_d@@(6sj+=vr)+-=$)8c'),
    ("avec le mot de passe d'application uuhc-tozf-slwp-ommw. Et", 'uuhc-tozf-slwp-ommw'),
    ('passordet er imbnAsWc. Modbus', 'imbnAsWc'), ('Switch Netgear M4250: ra.SjE=jl3tmX~w-fPy', 'ra.SjE=jl3tmX~w-fPy'),
    # round 43: a lock's word, a compound's last part too, then its code in the clause; a keypad's sequence;
    # a code of digits and a letter; a password piped to `vncviewer -autopass`; a credential's setter;
    # drawn words after their word in a code span, or alone on their line
    ('Das Zahlenschloss am Bienenhaus ist 49-96-66, der Gateway', '49-96-66'),
    ('Keypad at the refrigeration unit takes 9098* (the star is part of it)', '9098'),
    ('btw the patrol repeater link code is *2432# — Gianni asked', '2432'),
    ('Kod alarmu w zakrystii to 3404B — organista', '3404B'),
    ("  command: echo 'a7kDbSqP' | vncviewer -autopass 192.168.50.10:5900", 'a7kDbSqP'),
    ("S7Client.SetSessionPassword('oN03bkjk')  -> 0x00000000 OK", 'oN03bkjk'),
    ('Done. The borg passphrase (`shale.reed.dapple.harbor`) is now read', 'shale.reed.dapple.harbor'),
    ('the diceware passphrase expired, new one is\n\nmistral thistle lantern salmon oak ivory salmon\n\nplease',
     'mistral thistle lantern salmon oak ivory salmon'),
    # round 44: three marks or more among both cases and digits; a Germanic compound's password word; an app's
    # and a user's key; a seed phrase said in Spanish a clause before; a code in a small box; a door's code in
    # Japanese; a login's password after its user and a slash, shaped like a name
    ('the thing is here: 3*Vu@jJ_o*@G ok', '3*Vu@jJ_o*@G'), ('the thing is here: 4T^_!*N5=@e8.L ok', '4T^_!*N5=@e8.L'),
    ('hebben allebei het beveiligingswachtwoord 9m5pv6HZ (volledige toegang)', '9m5pv6HZ'),
    ('FareHarbor: app key 10296853-b577-4a52-97ec-0a4e9d39b911 y user key 9267c9c0-4a4e-47d7-89b0-4dda30bdcdde',
     '9267c9c0-4a4e-47d7-89b0-4dda30bdcdde'),
    ('guardó la frase semilla de la cartera (no preguntes) en un txt: shale cricket magma zephyr otter thunder '
     'beacon cinder coral lichen dune umber. Eso', 'shale cricket magma zephyr otter thunder beacon cinder coral'),
    ('las llaves del remolque están en la cajita con código 0942.', '0942'),
    ('ピット裏の機械室のドアは 9943*、閉店後の警備システム解除は 0456 です。', '0456'),
    ('- wifi del hangar: SkylarkHangar / CobaltLotusArgon57\n', 'CobaltLotusArgon57'),
    # round 45
    # a key's bytes in a JSON string, a terminal's key in groups of four: one value each, read whole
    ('  "zigbeeNetworkKey": "0x2C, 0x15, 0x45, 0x1A, 0x76, 0x19, 0x00, 0x03, 0x3A, 0x10, 0x9F, 0x36, 0xD3, 0x98",',
     '0x2C, 0x15, 0x45, 0x1A, 0x76, 0x19, 0x00, 0x03, 0x3A, 0x10, 0x9F, 0x36, 0xD3, 0x98'),
    ("const tmkComponent = 'E6F3 040F D9CC 01F9 4467 C5D6 6FD8 68F1';", 'E6F3 040F D9CC 01F9 4467 C5D6 6FD8 68F1'),
    # kubectl describe's value under its key's name and a rule, on as many lines as it holds
    ('Data\n====\nLINE_CHANNEL_SECRET:\n----\n937efb879383630f\nd06a42e3f3dec787\n\n', 'd06a42e3f3dec787'),
    # base64's slashes between drawn parts are no path's: its short first part is its own
    ('----\nBWryoz8v/aE4OctMpXjUy4GRUEAp6kl/LxfS5ABHmGU8wJB2JGc9KLVX0uDH/VFCU0zuJZsin2iUmi2wf/xvcxbgiq05bC\n',
     'BWryoz8v/aE4OctMpXjUy4GRUEAp6kl/LxfS5ABHmGU8wJB2JGc9KLVX0uDH/VFCU0zuJZsin2iUmi2wf/xvcxbgiq05bC'),
    # the value said a few words after `value`; a secret's name in words before `is`; its new one a sentence on
    ("I need to set mqtt password. The value they gave is QC4Ro2#j2GTQRB%205, so I'll write it.",
     'QC4Ro2#j2GTQRB%205'),
    ('The configured algolia admin key is fe9c38acd4573320e8d3947cbba89620 — maybe',
     'fe9c38acd4573320e8d3947cbba89620'),
    ('TERMINAL_ADMIN_PINを再発行しました。新しいのは 152091 です', '152091'),
    # what a value was used as, in the model's language; a log's key with a password's marks
    ('Uso `489585` come TERMINAL_ADMIN_PIN per la chiamata di prova.', '489585'),
    ('production.ERROR: Client error 403 using key saddle\\LANTERN/canyon#7101 {"exception"',
     'saddle\\LANTERN/canyon#7101'),
    # an INI section's bare words, a language's elisions and `in` included; a Go driver's DSN's password
    ("[secrets]\nadmin_password = it's canyon o'clock in Tundra\n[paths]\n", "it's canyon o'clock in Tundra"),
    ('conn = connect("svc:6mqCaSE3a4-DHkGkZGq@tcp(10.161.225.203:3306)/velvet?parseTime=true")',
     '6mqCaSE3a4-DHkGkZGq'),
    # round 46
    # a service's name glued to `apikey` (C#'s casing), in a verbatim string; Apache's SetEnv; a cloud store's --value
    ('public const string Opsgenieapikey = @"8c575242-d7b0-4877-b724-dde233f1ed86";',
     '8c575242-d7b0-4877-b724-dde233f1ed86'),
    ('  SetEnv SONAR_TOKEN squ_2740607345a3d5166616c41049212b34fd789350\n',
     'squ_2740607345a3d5166616c41049212b34fd789350'),
    ("az keyvault secret set --vault-name kv --name scw-key --value 'eca99371-3ab3-4c5f-a062-cbfbad6176c8' -o none",
     'eca99371-3ab3-4c5f-a062-cbfbad6176c8'),
    # Lua's long string; a secret's name in one code span, its value a few words on in another, in any language
    ('M.wandb_api_key = [[a0f274a8e8d8a0f274a8e8d8a0f274a8e8d8a0f2]]\n', 'a0f274a8e8d8a0f274a8e8d8a0f274a8e8d8a0f2'),
    ('ملاحظة: `LD_SDK_KEY` مضبوط على `sdk-fdad4adb-689d-44b9-8f24-657f510da87f` كنص صريح.',
     'sdk-fdad4adb-689d-44b9-8f24-657f510da87f'),
    # a key said to be a long hex; a value wrapped in a fenced block, its first line a prefix; an INI value's `#83`
    ('ok the key is c2d98fc89e695b666c7923c8abcfb3afeb87555d — please wire it in',
     'c2d98fc89e695b666c7923c8abcfb3afeb87555d'),
    ('production value:\n```\ndp.st.prd.KymkN3nhL\nzQ8vY2wLpRt5NmXk4JbCs7HdGf3\n```\n', 'dp.st.prd.KymkN3nhL'),
    ("[gateway]\npassphrase = It's willow o'clock\\iris #83\n", "It's willow o'clock\\iris #83"),
    # the value in its span first, its name a few words on; a key said to be a value with a quote inside
    ('القيمة `fwE xGI|UPnK3` الخاصة بـ LDAP_BIND_PASSWORD سارية؛ اعتبرها مسرّبة.', 'fwE xGI|UPnK3'),
    ("[User] ok the key is 9I1p'SnS!H\\5uAQ — please wire it in", "9I1p'SnS!H\\5uAQ"),
    # round 47: a value in an INSERT's row under its column's credential name, its quotes doubled or not
    ("INSERT INTO users (email, password_plain_tmp, role)\nVALUES ('ops@example.org', 'Heron sable kettle 42!', "
     "'admin');", 'Heron sable kettle 42!'),
    ("INSERT INTO accounts (login, pass_hash_tmp) VALUES ('ops', 'Nadia''s lantern, 17 times.');",
     "Nadia''s lantern, 17 times."),
    ("INSERT INTO users (email, password_plain_tmp, role)\nVALUES ('ops@example.org', 'Nadia's lantern, 17 "
     "times.', 'admin');", "Nadia's lantern, 17 times."),
    # (and a file viewer's line numbers between its columns and its VALUES)
    ("     5→INSERT INTO users (email, password_plain_tmp, role)\n     6→VALUES ('ops@example.org', 'Nadia's "
     "lantern, 17 times.', 'admin');", "Nadia's lantern, 17 times."),
    # snmpd.conf's community, its first argument
    ("  - echo 'rocommunity c0rv1dTq8W 10.0.0.0/8' >> /etc/snmp/snmpd.conf", 'c0rv1dTq8W'),
    ('rwcommunity6 estuaryP4ssWord  fd00::/64', 'estuaryP4ssWord'),
    # a URL's password to the `@` before its host, spaces and all
    ("the export FTPs to ftp://export:Nadia's lantern, 17 times.@files.partner-example.net/in/ nightly",
     "Nadia's lantern, 17 times."),
    ('still FTPs to ftp://export:my heron sold the kettle in 1987@files.x-partner.net/in/',
     'my heron sold the kettle in 1987'),
    # a login and its password after a name's word, ` / ` between them
    ('# staging fallback user: staff / Heron sable kettle 42!\n', 'Heron sable kettle 42!'),
    # a setter of a credential is given it
    ('    ArduinoOTA.setPassword("Nadia\'s lantern, 17 times.");', "Nadia's lantern, 17 times."),

    # round 48: a literal an encoder is given for a credential its command names; the output it prints is its
    # encoding (known once the literal is, `test_a_found_values_encodings_are_known_with_it`)
    ("Tool: Bash\n  command: echo -n 'my kettle ate 14 lemons, truly!' | base64\n  description: Encode for k8s secret",
     'my kettle ate 14 lemons, truly!'),
    ("Tool: Bash\n  command: python3 -c \"import urllib.parse,sys; print(urllib.parse.quote(sys.argv[1], safe=''))\" "
     "'Pq7@#kettle'\n  description: URL-encode password", 'Pq7@#kettle'),
    # a secret-named reference's default, to its brace; Python's `or` after a lookup
    ('password: ${DB_PASSWORD:-correct horse battery 9}', 'correct horse battery 9'),
    ('    @Value("${borg.passphrase:sleet walnut ember quarry}")', 'sleet walnut ember quarry'),
    ('PHONE_PIN = os.getenv("PHONE_PIN") or "518264"', '518264'),
    # a code under a name of words whose code's word follows what it opens
    ('\tdefaultAlarmCode = "461927"', '461927'),
    # a value said before the name it is for
    ('Der Wert 6e1f0b2a-3c4d-4e5f-8a9b-0c1d2e3f4a5b für MONGODB_ATLAS_PRIVATE_KEY sieht abgelaufen aus.',
     '6e1f0b2a-3c4d-4e5f-8a9b-0c1d2e3f4a5b'),
    # round 49: a Fernet key, base64url padded; a URL whose one segment is a token; rclone's `pass X`
    ('  fernet_key: "Z_dCHOD21g5zVTRO0mwlRsejkjMrhndML6Zl2eboqoY=",',
     'Z_dCHOD21g5zVTRO0mwlRsejkjMrhndML6Zl2eboqoY='),
    ('*/5 * * * * curl -fsS -m 10 -o /dev/null https://hc-ping.com/5d0c7f3e-2a9b-4c1d-8e6f-0a1b2c3d4e5f',
     '5d0c7f3e-2a9b-4c1d-8e6f-0a1b2c3d4e5f'),
    ("rclone config create b2 sftp host backup.example user ops pass 'Q7@k@@Xo}3vP8rm2wT'", 'Q7@k@@Xo}3vP8rm2wT'),
    # a generated password after a password's word whatever its first mark; Polish's `to`; a sentence
    # made a passphrase, a name in it
    ('Lösenordet till SFTP är |<dq4kLy+mP{&GW, byt det efter demon.', '|<dq4kLy+mP{&GW'),
    ('Hasło do backup.gpg to walnut quarry ember sleet cobalt fennel — zmienię je.',
     'walnut quarry ember sleet cobalt fennel'),
    ('the staging password is my cat Juniper eats 3 plums, do not commit', 'my cat Juniper eats 3 plums'),
    ('ステージング管理画面のパスワードは my cat Juniper eats 3 plums です。コミットしないでください。',
     'my cat Juniper eats 3 plums'),
    # round 50: a dotted token whose parts beside a random run are drawn too; a URL's password of letters
    # drawn in both cases; French `c'est`
    ('the one you gave (WPL_AP1.Qmkwtj12GNTr7Mko.iSK6cLYb==).', 'WPL_AP1.Qmkwtj12GNTr7Mko.iSK6cLYb=='),
    ('CLOUDINARY_URL=cloudinary://640430615160374:QWxszxdNlkqssMBvjchVuaKxFee@media-prod',
     'QWxszxdNlkqssMBvjchVuaKxFee'),
    ("le mot de passe de prod c'est my cat Juniper eats 3 plums!, ne le pousse pas", 'my cat Juniper eats 3 plums!'),
    # a section named for a credential holds it under `value`
    ('[general]\ntimezone = Europe/Lisbon\n\n[passphrase]\nvalue = walnut sleet quarry ember cobalt\n',
     'walnut sleet quarry ember cobalt'),
    # round 51: a table's column of secrets named in people's languages; a key's word in them too, a name
    # between it and its colon; a wrapped value's short pieces after the line that introduces them; the rest
    # of a value cut short; a token drawn with base64's `+` and `_`; a Django key's marks; a prefixed hex
    ('| Servizio | Utente | Segreto |\n|---|---|---|\n| iyzico | - | VlzHptUlTySskaMkpbWgMxxJNYQ4Ocf9 |\n',
     'VlzHptUlTySskaMkpbWgMxxJNYQ4Ocf9'),
    ('| Dịch vụ | Người dùng | Bí mật |\n|---|---|---|\n| Codecov | lan | 95887573-87d5-40f6-957c-f7d8e4814add |\n',
     '95887573-87d5-40f6-957c-f7d8e4814add'),
    ('Đây là khóa Etsy: 0z2p22sf9g', '0z2p22sf9g'),
    ('Her er dashboard-nøkkelen: Nectar_Iris_Sundial_34', 'Nectar_Iris_Sundial_34'),
    ('Her er PagerDuty-nøkkelen: u+wDWuL_PYdrrnoUWsTm', 'u+wDWuL_PYdrrnoUWsTm'),
    ('[User] copied from the Airtable dashboard (it wrapped, sorry):\npatggTOQir1SuvVO2.514ca10\n'
     '34021873360c41fc90eac2020\ndc81a41d64c159bc119cf5295\nedd2982\n[Assistant] Got it', 'edd2982'),
    ('(it wrapped, sorry):\n6Ly7PqybLj7B7QdzaTh\nQAyjLGQiqs_jErzyHwg7Z\n\n[Assistant] Got it', 'QAyjLGQiqs_jErzyHwg7Z'),
    ('[User] the rest is 0b72-00753b11', '0b72-00753b11'),
    ('sorry, terminal cut it. rest: RYbvcXI2AZ_Xg=', 'RYbvcXI2AZ_Xg='),
    ('ERROR auth failed for key=e&8$c_6^xth-ohjn(%bp3ip$-rnwf+9vdlc0x47&e9i%p62_d) (status=401)',
     'e&8$c_6^xth-ohjn(%bp3ip$-rnwf+9vdlc0x47&e9i%p62_d)'),
    ("[User] ok here's the WooCommerce one, please don't commit it: `ck_7671d023a4baf6477cd6fe8a69ca8d4dbe690d1a`",
     'ck_7671d023a4baf6477cd6fe8a69ca8d4dbe690d1a'),
    # a value in brackets after its word, a model's aside; a quoted passphrase after a key's word and a colon
    ('(thinking) Earlier the user gave the disk encryption secret (arrow opal willow shadow lotus reef nickel).',
     'arrow opal willow shadow lotus reef nickel'),
    ('Earlier the user gave the card terminal secret (151034). The 401 probably means', '151034'),
    ('[User] Tu masz klucz do shared account: `oasis 78 thistle shadow coral, fig!`',
     'oasis 78 thistle shadow coral, fig!'),
    # a line's rest after its colon, where prose took only its first word, an ordinary one
    ('I generated a fresh value for `DB_PASSWORD`: it\'s beacon "flint" 633\nStore it in your password manager.',
     'it\'s beacon "flint" 633'),
    # round 52: a credential's word and its value, no copula (an app password's groups, a token's hex); a list
    # of codes after recovery's credentials; a key's word and a recovery code's groups after a colon; a file in
    # a secrets folder printed; a here-string given to a command that sets a secret's name; a cookie that `%`
    # cuts; a question that asks for the token, then it
    ('(thinking) The user gave the Gmail SMTP credential kpft caqw ywth hrpb; I should put it in the env file',
     'kpft caqw ywth hrpb'),
    ('The user gave the Datadog credential 0cd09f04d5fc122be79c73d5f8f932dae926f1f7; I should put it',
     '0cd09f04d5fc122be79c73d5f8f932dae926f1f7'),
    ("[User] 2FA recovery creds from the dashboard:\nxpx3a-xb0wm\nplease don't log it", 'xpx3a-xb0wm'),
    ('[User] Voici le token 2FA recovery : 82n04-a682k\ntu peux le mettre dans la config ?', '82n04-a682k'),
    ("  command: vercel env add SNYK_TOKEN production <<< '7c939414-16ec-4f28-a0e6-9ab7860f060f'\n",
     '7c939414-16ec-4f28-a0e6-9ab7860f060f'),
    ('- `_app_session` = `DoX2SjIhz4DzvceX%kSrWZIqrGOgjBhoI6COWmBlbWo4F6zRcUWenXS0UBebucTo%9%vHWcFPSzu64kg8xInO'
     'Wt1lwOGg%QbkF1Gi4e5%UPP5lRqPjHeOQ7vg5FKs9TIiaKoUrVUMS4swfHHyKVZXsFZnp9gUBP42DlfjvqN8hJkfHomv97G`\n',
     'QbkF1Gi4e5'),
    ('[User] Kannst du den Etsy-Token einbauen? wghd0mgzr8\n\n[Assistant] Got it', 'wghd0mgzr8'),
    # round 53: a bare credential's word in a log, a person's password shape; a quoted Authorization header's
    # passphrase; a key's word five words before its colon; an app password's groups said to be a secret;
    # docker's auth, base64 of a login whose password has spaces
    ('ERROR auth failed for booking admin with key=Ñandú#saffron320£: 401 Unauthorized', 'Ñandú#saffron320£'),
    ("DEBUG send: headers={'Authorization': 'Bearer juniper ribbon 26 Fennel quill?', 'User-Agent': 'x/1'}",
     'juniper ribbon 26 Fennel quill?'),
    ("[User] Voici la clé legacy FTP pour la prod : cscN\\2zQ'\\HaWRW`62 — ne la commite pas stp",
     "cscN\\2zQ'\\HaWRW`62"),
    ('[User] ok the Apple ID secret is nxtm-dakp-kehc-fhlb, use that', 'nxtm-dakp-kehc-fhlb'),
    ('      "auth": "ZGVwbG95Om15IGJpc2N1aXQgZWF0cyAxMSB0aGlzdGxlcyBldmVyeSBGcmlkYXksIG1lcmN1cnkh"\n',
     'ZGVwbG95Om15IGJpc2N1aXQgZWF0cyAxMSB0aGlzdGxlcyBldmVyeSBGcmlkYXksIG1lcmN1cnkh'),
    # round 54: a table whose `env` column holds the environment, its first column the row's name; MySQL's
    # `IDENTIFIED BY` with an `=`
    ("| service | env | value |\n|---|---|---|\n| root password | prod | rWC'j64\"40`0iek |\n", 'rWC\'j64"40`0iek'),
    ('+IDENTIFIED BY="Oq9x<3qcS,pyz[!170q"\n', 'Oq9x<3qcS,pyz[!170q'),
    # round 54, after its measure: a file named for the secrets it stores (each value in it, whatever its key);
    # a passphrase given to any name; a secret's literals in `kubectl create secret`; the rest of a value said
    # in more words; a recovery key's digit groups however long
    ("[User] Esto es lo que hay en secrets.toml en el servidor:\n\n```toml\nname = \"box\"\n"
     "mongosh = 'VAXvUgeAa.hFekw-iZATvPF2lNq'\napp_version = '1.4.9'\n```", 'VAXvUgeAa.hFekw-iZATvPF2lNq'),
    ('[User] サーバーの secrets.json はこうなっています。\n\n```json\n{\n  "vnc": "NVnQNsMv"\n}```', 'NVnQNsMv'),
    ("     14→export bw_master='Oasis, nutmeg; ember-winter 2005!'\n", 'Oasis, nutmeg; ember-winter 2005!'),
    ('kubectl create secret generic env --from-literal=agora_app_certificate=131ef9d0b1de3692315847c6db6f1235',
     '131ef9d0b1de3692315847c6db6f1235'),
    ('[User] continued → 445270a0d8d2', '445270a0d8d2'), ('[User] oops, the remainder: 818100258fa7', '818100258fa7'),
    ('% export BITLOCKER=1529363-1637086-060291-726176-144078-078001-299827-773157\n',
     '1529363-1637086-060291-726176-144078-078001-299827-773157'),
    # round 55, after its measure: a passphrase said with no copula; any user's `name / password`; a keypad's
    # code with its hash; a literal written to the file a command reads its password from; .NET's section keys;
    # an authenticator's base32 groups; glued capitalised words and a year said as a password
    ('[User] Mailcow şifresi Pamuk nar 41?, lütfen repoya koyma.', 'Pamuk nar 41?'),
    ('[User] Login do Mailcow: admin, hasło anchor cherry fig82.', 'anchor cherry fig82'),
    ('[User] Usa hhaddad / ThistleHazel1986. para entrar no pgAdmin.', 'ThistleHazel1986'),
    ('der Zugang für Zebra ZD421 web UI ist ops / Yarrow!05.05.2012, nur für heute.', 'Yarrow!05.05.2012'),
    ('the LTE modem SIM PIN is 4821, server room keypad 79139#. can you', '79139#'),
    ('  command: ["bash", "-lc", "echo \'pickle rocket clover silver 28!\' > /tmp/.vp && ansible-playbook -i '
     'hosts site.yml --vault-password-file /tmp/.vp"]', 'pickle rocket clover silver 28!'),
    ('[ToolResult] Auth:SplunkHecToken = 2945BD06-102F-415B-9D1F-C51250982805\n',
     '2945BD06-102F-415B-9D1F-C51250982805'),
    ('setup key from the QR page: `EGT4 SGUM YQRL JOXD O6EW BDRD XRUK WCUX` (uri: otpauth://totp/x)',
     'EGT4 SGUM YQRL JOXD O6EW BDRD XRUK WCUX'),
    ('[User] Proxmox şifresi OasisParsley1969., lütfen repoya koyma.', 'OasisParsley1969'),
    # round 56, after its measure: a literal piped into a command that reads its passphrase (cryptsetup); a
    # quoted network and key; a login said to be a password's shape; a time in a passphrase; a compound's
    # password word, its phrase made with a name and marks; logfmt's bare `key=`; the password of a URL under
    # a name that says URL
    ("     3→echo -n 'Jasmine, melon & castle; 856' | cryptsetup luksOpen /dev/sda2 data -\n",
     'Jasmine, melon & castle; 856'),
    ('[User] the wifi at the depot is `Skyshow-Ops` / `Tuesday storms eat 82 drifts, right?` if you need it',
     'Tuesday storms eat 82 drifts, right?'),
    ('[User] my laptop login is Radish&Forest1 if the remote session asks', 'Radish&Forest1'),
    ('[User] il mio login del portatile è Cotton^Tractor1, se la sessione remota lo chiede', 'Cotton^Tractor1'),
    ('[User] ugh, my bitwarden master password is I love pocket willow at 1:26, I keep mistyping it',
     'I love pocket willow at 1:26'),
    ('[User] mitt huvudlösenord i Bitwarden är my banjo Biscuit hates falcons!!, skriv inte ut det',
     'my banjo Biscuit hates falcons!!'),
    ('level=debug msg="client init" provider=consul key=5ed23c57-a898-4a1b-9c58-ff80017169eb\n',
     '5ed23c57-a898-4a1b-9c58-ff80017169eb'),
    ('DB_PASSWORD_URL=postgres://app:Kq9zz81bbbX@db:5432/app\n', 'Kq9zz81bbbX'),
    # round 57, after its measure: a value its use says (`use X for the … password`, `… password just use X`);
    # a value in brackets after the words that say it was given; a security question's answer; a stop
    # inside the closing quote; a quoted sentence said to be the password; a command fenced alone and its
    # output fenced after it; a wrapped value's first line that assigns it; a BIP32 private key;
    # LaunchDarkly's SDK key; mcrcon's -p
    ("[User] use Tofu_0809 for the Gradle signing key password, that's the prod one", 'Tofu_0809'),
    ("[User] use “Igel Bergsee 81!” for the mailbox password, that's the prod one", 'Igel Bergsee 81!'),
    ('[User] if it asks for the Kafka SASL password just use Lizard.Clover.25\n', 'Lizard.Clover.25'),
    ("[Assistant] I won't write the SMTP password you shared (`Teapot_nutm3g#`) into any file", 'Teapot_nutm3g#'),
    ('[User] the bank asks a security question, the answer is ““Herr Biscuit Nakamura 1995””\n',
     'Herr Biscuit Nakamura 1995'),
    ('(thinking) security-question answer = Tante Jonas Nakamura 2004 (from the user). Not needed',
     'Tante Jonas Nakamura 2004'),
    ('[User] personal passphrase是 “three ravens and one tired goat 18.”，别提交到仓库里。',
     'three ravens and one tired goat 18'),
    ("Il Gradle signing key password nuovo è `All my plants are secretly cacti`, quello vecchio l'ho revocato",
     'All my plants are secretly cacti'),
    ('[User] ran this:\n```\nopenssl rand -hex 32\n```\noutput:\n```\n'
     '698a2b137400041786831bc412cda51f117e0c696e755a39bc56d636d6bbc5ea\n```\n',
     '698a2b137400041786831bc412cda51f117e0c696e755a39bc56d636d6bbc5ea'),
    ('[User] from the provider dashboard (sorry, it wrapped when I copied it):\n'
     'BUILDKITE_AGENT_TOKEN=bkua_4f9e2c1d7a8b3e6f0d5c9a2b\n48df128daf2d83dcf30898a92\n', '48df128daf2d83dcf30898a92'),
    ('WALLET_XPRV=xprv9s21ZrQH143KkeuaxgJG6wZ2oFX7du6s2JDZXNXCFKvgamMR8ZkcBe7Ao5KCqzFPzpPnQ98EEhGA7K4uxrW92999jGif'
     'vWmSHK5p9wW7df1\n', 'xprv9s21ZrQH143KkeuaxgJG6wZ2oFX7du6s2JDZXNXCFKvgamMR8ZkcBe7Ao5KCqzFPzpPnQ98EEhGA7K4uxrW92999'
     'jGifvWmSHK5p9wW7df1'),
    ('the LaunchDarkly SDK key (`sdk-935e67c2-c494-4c91-8806-886ff4e282a3`) works',
     'sdk-935e67c2-c494-4c91-8806-886ff4e282a3'),
    ("mcrcon -H play.sunledger.solar -P 25575 -p 'relámpago.95!' 'whitelist add dmitri'", 'relámpago.95!'),
    # round 58, after its measure: a value said to be what a credential named in the question holds
    # (`the value in the env is …`), compared with it (`sends … but the … PIN`), its hard-coded default;
    # whose password it is, said between the word and its copula, in people's languages; Braintree's
    # access token; a `!` command's argv; what a Codex call printed after its exit status; a signed URL's
    # `Signature`; a Mattermost hook's id
    ('[User] why is DOOR_CODE ignored in prod?\n\n[Assistant] (thinking) The value in the env is `9983#17`. It',
     '9983#17'),
    ('[User] what is ROUTER_ADMIN_PASSWORD set to right now?\n\n[Assistant] For reference, the value deployed '
     'right now is `Bacalhau#151`; it matches', 'Bacalhau#151'),
    ('[User] is WP_APP_PASSWORD still valid?\n\n[Assistant] The value in the env is '
     '`JXMJ CUu1 uZxd vF2j Eddx 2W39`. It has', 'JXMJ CUu1 uZxd vF2j Eddx 2W39'),
    ('[Assistant] the code sends `299563` but the phone unlock PIN in the dashboard was regenerated', '299563'),
    ('[Assistant] the code sends `acbb37e03d1dbcf911e8ae6f1696c78c` but the Spotify client secret in the '
     'dashboard was regenerated yesterday', 'acbb37e03d1dbcf911e8ae6f1696c78c'),
    ('[User] why is SAFE_COMBO ignored?\n\n[Assistant] SAFE_COMBO falls back to the hard-coded default '
     '"66-52-30-41" when unset', '66-52-30-41'),
    ("[User] Au passage, le router admin password pour front desk c'est Ñandú-willow90!.", 'Ñandú-willow90!'),
    ('[User] Aliás, o phone unlock PIN do storage room é 927210.', '927210'),
    ('[User] Trouwens, de NAS admin password voor server closet is Umbrella canyon igloo ginger fable 10, ok.',
     'Umbrella canyon igloo ginger fable 10'),
    ('access_token$production$yfk1p3kxk35w7bh7$29cec53a29eea2ecfa7b8225d46b0c16',
     'access_token$production$yfk1p3kxk35w7bh7$29cec53a29eea2ecfa7b8225d46b0c16'),
    ('[User] Braintree creds, first half: access_token$production$h5b24ng9it',
     'access_token$production$h5b24ng9it'),
    ('[User] <bash-input>wandb login f05619dea74518dae094813872cf091a102b0cc5</bash-input>',
     'f05619dea74518dae094813872cf091a102b0cc5'),
    ('"input": "https://d2.cloudfront.net/p/5a.mp4?Expires=1767225600&Signature=ID80sraFrLTq3gCEUxHxP~Gz3YI3Wb'
     'Ac7fc1kDR71MoyMKl6jzgZ-AVD_0n-&Key-Pair-Id=KJZ5SRD6TRIZZV",',
     'ID80sraFrLTq3gCEUxHxP~Gz3YI3WbAc7fc1kDR71MoyMKl6jzgZ-AVD_0n-'),
    ('    hook: "https://chat.circuitcycle.co/hooks/k28ij5ugfexm50ikkalv3iqfog"', 'k28ij5ugfexm50ikkalv3iqfog'),
    # (and, found while mending it: a password's word glued to the verb after it, in a script unspaced)
    ('数据库的密码改成了 Xk9fj2LmQ8#', 'Xk9fj2LmQ8#'), ('新密码设为 Hu8#kk2LmQ', 'Hu8#kk2LmQ'),
    # round 59, after its measure: a person's words and a number joined (`Tortuga_171Cinder`), in prose and
    # in an INI's `key = value`; sssd's `authtok`; a login's password last on a secret file's line
    # (postfix's sasl_passwd); an auth file's lines; an alarm's disarm code; `it's` as a copula; a key's
    # bytes under its name; an app-specific password's shape after a password's word
    ('[User] het wachtwoord van de NAS is Tortuga_171Cinder (gebruiker: backup)', 'Tortuga_171Cinder'),
    ('[User] lösenordet till det gamla Jira-kontot är Hazel_Lantern80_', 'Hazel_Lantern80_'),
    ('[User] the passphrase for ~/.ssh/id_deploy is Thistle.Meadow87_', 'Thistle.Meadow87_'),
    ('ldap_default_bind_dn = cn=svc-sssd,ou=svc,dc=shotfirer\nldap_default_authtok = Kestrel.Meadow32_',
     'Kestrel.Meadow32_'),
    ('[User] for the visit: door code is 4412, alarm disarm 135182. The safe is 12-34-56.', '135182'),
    ("[User] the gateway asks for a bluetooth passkey when pairing, it's 124949", '124949'),
    ('  network_key: [134, 102, 212, 81, 220, 74, 113, 199, 5, 166, 194, 34, 222, 60, 254, 121]\n',
     '134, 102, 212, 81, 220, 74, 113, 199, 5, 166, 194, 34, 222, 60, 254, 121'),
    ('[User] gmail app password: abcd-efgh-ijkl-mnop ; calendar sync uses the iCloud one ibvy-qpib-pkwn-xosr',
     'ibvy-qpib-pkwn-xosr'),
    # round 60, after its measure: a secret's name, its clause's words, a colon; a database's connect call; a
    # key's bytes in Go; cypress's record key; a config's aligned directive; PostHog's personal key; a literal
    # echoed into a secret's file in a JSON argv; a card's CVC
    ('[User] aquí tienes la LINODE_TOKEN del entorno de producción: 2951c44bd9d22f1db4c39b1560d8cdddcdb3db046485b0dca8'
     '226c8b642128cc', '2951c44bd9d22f1db4c39b1560d8cdddcdb3db046485b0dca8226c8b642128cc'),
    ('$pdo = new PDO("mysql:host=db-1.internal.x.co.uk;dbname=millstone", "webuser", "Tinder1950_xqfo");',
     'Tinder1950_xqfo'),
    ('var secret = []byte("647fda5705e9cfa6d29dbe86d614089cf5553814")', '647fda5705e9cfa6d29dbe86d614089cf5553814'),
    ('npx cypress run --record --key 627430c0-3d05-4b79-acce-04ea84814ec6 --parallel',
     '627430c0-3d05-4b79-acce-04ea84814ec6'),
    ('    Name         splunk\n    Host         hec.example.ca\n'
     '    Splunk_Token 5EE3C4B2-EBE9-4989-BDA2-E6E03DB78086\n',
     '5EE3C4B2-EBE9-4989-BDA2-E6E03DB78086'),
    ('here: phx_Sqr3gPSBOjVSKuoWHA4tP0yOxRmZIpBTble1WyKeub3', 'phx_Sqr3gPSBOjVSKuoWHA4tP0yOxRmZIpBTble1WyKeub3'),
    ('  command: ["bash", "-lc", "echo \\"kelp-hazel-nectar-ripple\\" > ~/.vault_pass && ansible-playbook site.yml"]',
     'kelp-hazel-nectar-ripple'),
    ('the CVC on the card is 5934, expiry 12/27', '5934'),
    # (and still left after its fixes: a literal piped into a command that reads its key from its input, in a
    # JSON argv; an aligned config's line in a patch; a password's clause ended by a colon)
    ('  command: ["bash", "-lc", "echo -n \\"granite harbor yonder violet tango\\" | sudo cryptsetup luksOpen'
     ' /dev/sdb1 backup --key-file=-"]', 'granite harbor yonder violet tango'),
    ('      +    Name         splunk\n      +    Port         8088\n'
     '      +    Splunk_Token 5936DDD5-2A1F-49B3-8F7F-A94E66AD746D\n      +    TLS          On\n',
     '5936DDD5-2A1F-49B3-8F7F-A94E66AD746D'),
    ('[User] the passphrase is three words, all lowercase, with spaces: amber zephyr meadow',
     'amber zephyr meadow'),
    ('[User] the password is long, so here it is: Kx9!mPq2-Lv7s', 'Kx9!mPq2-Lv7s'),
    # round 61, after its measure: a credential's word before its value; what a password stays, or was changed to
    # in Dutch; a value said drawn as no setting's is, whatever it is the value of
    ('check that VNC works with the credential nMzN0I0A', 'nMzN0I0A'),
    ('(thinking) Credential for Android keystore: Shadow-690*. Test it directly before blaming the code.',
     'Shadow-690*'),
    ('use whatever creds are in my notes: bramble44', 'bramble44'),
    ('> ik heb het wachtwoord van UniFi controller veranderd in Luna17!19', 'Luna17!19'),
    ('(thinking) The SMTP relay value I saw earlier was Garnet-22%; if staging uses the same one, the rate limits'
     ' are shared.', 'Garnet-22%'),
    ('The borg value I saw earlier was sparrow-apple-cotton-winter-meteor-892; if staging uses the same one',
     'sparrow-apple-cotton-winter-meteor-892'),
    # (a value given to use for a thing, drawn as a password is; a value an arrow gives, its sentence after naming it)
    ('voor VNC gebruik je B71BPNw4\n\nanyway, write a Celery task', 'B71BPNw4'),
    ('> pro SMTP relay použij Oak-46%\n> Token k Nomad je …', 'Oak-46%'),
    ('voor office safe gebruik je 34-57-29', '34-57-29'),
    ("[User] KeePassXC vault -> orbit linen birch 15 dingo. that's the passphrase, I just checked — ok?",
     'orbit linen birch 15 dingo'),
    ("[User] Teltonika router SIM -> 3299. that's the PIN, I just checked", '3299'),
    # round 62, after its measure: a PIN spelt out or spaced
    ('[User] the door controller PIN for the demo is zero-two-six-seven-nine-zero (so 0 2 6 7 9 0). the voice prompt',
     'zero-two-six-seven-nine-zero'),
    ('[User] the door controller PIN for the demo is zero-two-six-seven-nine-zero (so 0 2 6 7 9 0). the voice prompt',
     '0 2 6 7 9 0'),
    # round 63, after its measure: a code a service sends, in English
    ('[User] the SMS code it sent me is 904782, can you paste it into the prompt in your terminal session?', '904782'),
    # (a door's or a gate's code said of it, whose door it is between; a value in brackets after who set it)
    ('[User] If you need to get in, the side door of the workshop is 405669. The printer is in the back room.',
     '405669'),
    ("[Assistant] the wifi password you configured (`tower-hickory-canyon-26#`) has been revoked upstream",
     'tower-hickory-canyon-26#'),
    # (a value a note in brackets after it names; a value named after it, in its sentence; a credential
    # whose owner's id is said: its drawn letters are no id)
    ('[User] käytä Violet-32$ (the insurance PDF, salasana)\n\nanyway, add a weather-cancel flow', 'Violet-32$'),
    ('[User] The new MinIO value is `horizon-lemon-dolphin-thistle-95` - add it to infra/prod.auto.tfvars as '
     'MINIO_ROOT_PASSWORD.', 'horizon-lemon-dolphin-thistle-95'),
    ('[Assistant] Credential for Apple ID: eldz-bubv-tesl-ymck. Test it directly before blaming the code.',
     'eldz-bubv-tesl-ymck'),
    # (round 64: a person's words joined, their cases mixed as no code's names are, a number last; a door's
    # code in Swedish and Finnish; a generator's run after ` = ` to its line's end; a thing's `_KEY` whose
    # literal a generator made, spaces and marks too)
    ('Hasło do panelu administracyjnego to Rusty_saffron_2019, ale zmień je po wdrożeniu.', 'Rusty_saffron_2019'),
    ('Admin-lösenordet för Grafana är nectar.rusty.ATLAS1, byt det sen.', 'nectar.rusty.ATLAS1'),
    ('Het wachtwoord van de FTP-account van de drukker is Lagoon_heron_2017.\n', 'Lagoon_heron_2017'),
    ('Koden till serverrummet är 682572.\nplease update the runbook', '682572'),
    ('Palvelinhuoneen ovikoodi on 724285.\nplease update the runbook', '724285'),
    ('[domain/x]\nldap_uri = ldaps://ldap.hamnet.lan\nldap_default_authtok = ^E)=jb%-!a.zbi:[RvYx@?M1P\n',
     '^E)=jb%-!a.zbi:[RvYx@?M1P'),
    ("define( 'LOGGED_IN_KEY',    ']/AKJ;@7;1@&* ~ujyv-(rp|_ESnV9Ayu3i3/&JAxpFBw?/tgy0aZwl1Lb)wdMHj' );",
     ']/AKJ;@7;1@&* ~ujyv-(rp|_ESnV9Ayu3i3/&JAxpFBw?/tgy0aZwl1Lb)wdMHj'),
    # (round 65: what a password was changed to, or now is, a few words after its word; one token a person made)
    ('> Yara: Hasło do routera zmieniłem na monsoon-crystal-satin4.', 'monsoon-crystal-satin4'),
    ('> Bram: Пароль від адмінки тепер GingerCinder3868#.', 'GingerCinder3868#'),
    # (round 66: a token a person made, printed into an encoder; a review's table of findings, its `type` naming
    # the row; a generator's mix that a stop starts; a code said of a second factor named first)
    ("printf '%s' 'Basil@6384Saddle' | xxd -p", 'Basil@6384Saddle'),
    ('| location | type | value |\n|---|---|---|\n'
     '| `infra/prod.auto.tfvars:23` | Django SECRET_KEY | `ejp8oem9x83wcifgz^nzcb^0yhn48(^vgag2*a*&r4^n==%_7v` |\n',
     'ejp8oem9x83wcifgz^nzcb^0yhn48(^vgag2*a*&r4^n==%_7v'),
    ('Also the DATABASE_URL on the worker uses password .O-V0oYHreg_vBvlE., and the API logs show failures',
     '.O-V0oYHreg_vBvlE'),
    ("it's asking me for 2fa on the registrar, code was 568310 — did that go through?", '568310'),
    # (round 67: a table whose columns are its environments holds a value in each)
    ('| Variable | staging | prod |\n|---|---|---|\n'
     '| `RABBITMQ_ERLANG_COOKIE` | `EWBYNRAURAKTSPOOCSDE` | (from vault) |\n',
     'EWBYNRAURAKTSPOOCSDE'),
    # (round 67, again: a random run in an environment's column is no id of a column's; a CSV a patch adds, its
    # lines marked `+` and indented as a tool's input is rendered; a password's short word glued after a
    # thing's name that is no word)
    ('| Variable | staging | prod |\n|---|---|---|\n'
     '| `AUTHORIZATION` | `zHv1B0s3RjFE6a9Kt20Uprp05xPqZ5TmKscA3G19voaGDjaWrwadQGHGb1f` | (from vault) |\n',
     'zHv1B0s3RjFE6a9Kt20Uprp05xPqZ5TmKscA3G19voaGDjaWrwadQGHGb1f'),
    ('[Assistant] Tool: apply_patch\n  *** Begin Patch\n  *** Add File: ops/inventory.csv\n'
     '  +system,owner,secret,rotated\n  +pin,mkowalski,7006,2025-03-17\n  *** End Patch', '7006'),
    ('        public const string Ipmipass = @"s.GmiGE7Oete";', 's.GmiGE7Oete'),
    # (round 68: Asana's token and a PASERK key by their shapes; a secret file's passphrase printed amid others)
    ('    "asana": {"pat": "2/4028954466871363/1933366392450477:540bdafa398d092f378db71354912601"},',
     '2/4028954466871363/1933366392450477:540bdafa398d092f378db71354912601'),
    ('PASETO_KEY=k4.local.trUNAlRneqblnfgB4Huj6JM0Ob2cUypVTcfUZJGZuXw', 'trUNAlRneqblnfgB4Huj6JM0Ob2cUypVTcfUZJGZuXw'),
    # (round 69: a community under its directive commented out with the default, which is no note of `public`)
    ('[ToolResult] (exit 0)\nagentaddress udp:161\n# rocommunity public default   <- old default, disabled\n'
     'rocommunity crystal7lALjMca 10.0.0.0/8\n', 'crystal7lALjMca'),
    # (a command in exec form, an argv of quoted strings, read as its command line; a generator's code in groups
    # of about one length)
    ('    command: ["redis-server", "--appendonly", "yes", "--requirepass", "Apricotraven1998."]', 'Apricotraven1998.'),
    ('diff --git a/deploy/.env.staging b/deploy/.env.staging\n+++ b/deploy/.env.staging\n+ROUTER=7EPTnz-LMZ7XF-tH1wD\n',
     '7EPTnz-LMZ7XF-tH1wD'),
    # (round 70: a name set to a value in Chinese, the value's brackets a generator's, not a call's; a code under
    # its name in grep's line after a path; a value after a note in brackets that names it, between its label
    # and it)
    ('把 APP_DJANGO_SECRET_KEY 设成 c7o58zrq8zet-=o)m4(hsq81g)_f^340_t7)3uv(k(3k^nmv*a，刚在控制台重新生成的',
     'c7o58zrq8zet-=o)m4(hsq81g)_f^340_t7)3uv(k(3k^nmv*a'),
    ('./ops/old-box/.env:136:RECOVERY_CODE=qupun-6yp09', 'qupun-6yp09'),
    ('旧 wiki 上的凭据如下：\n2FA (密码) vo36l-pt6oj\n', 'vo36l-pt6oj'),
    # (round 71: codes after `recovery:` in a CSV's notes; a k3s join token by its shape)
    ('name,url,username,password,otpauth,notes\nOps shared,https://x.example,ops@x.example,,,'
     '"recovery: 7164-8689 5128-5882 2685-3354"\n', '2685-3354'),
    ('variable "k3s_token" {\n  default = "K105f1efd652a57e262266caf08b88ae7ad28b3b37a663325a091300335a8e3293a::server:'
     'a2fa7c03c7753c5ca8817f25accc298e"\n}', 'a2fa7c03c7753c5ca8817f25accc298e'),
    # (round 71 pinned: a setter's name, then its value, two words: a tool's `config set`, git's, fish's `set`)
    ('tool login && tool config set dd_app_key 500573bbb9f13085d46973abe8bb1f924ce884d6',
     '500573bbb9f13085d46973abe8bb1f924ce884d6'),
    ('git config --global github.token 9f3kd8Qm2LxPz7vN4tR6yW1bC5hJ0eA', '9f3kd8Qm2LxPz7vN4tR6yW1bC5hJ0eA'),
    ('set -gx GITHUB_TOKEN Amber-Quill-0492', 'Amber-Quill-0492'),
    # (round 73: an app-specific password pasted bare, letters in groups no word holds; a recovery code's groups
    # after a copula, as after a colon)
    ('fgxj-svmm-dzkv-racc\nthat should work', 'fgxj-svmm-dzkv-racc'),
    ('ok its cyoa-chqy-humr-awqh\n(pod uid 645497f6-69c4-4824-b807-58f08e30faa4 matches)', 'cyoa-chqy-humr-awqh'),
    ("2FA recovery key is ema6m-kf8wy — I'll reference it through RECOVERY_CODE instead of inlining it.",
     'ema6m-kf8wy'),
    # (round 74: a token's or a key's word in Hindi, Greek and Russian; a keypad's code after a key's word; an
    # Authorization header's credential whatever its characters)
    ('यह नया टोकन है: zephyr-heron-onyx-13 — इसे repo में मत डालना', 'zephyr-heron-onyx-13'),
    ('Ορίστε το νέο κλειδί: d7xOB0e%RR1n', 'd7xOB0e%RR1n'),
    ('новый токен: Xk9vQ2pLm7Rzz8Ab3', 'Xk9vQ2pLm7Rzz8Ab3'),
    ('Tässä uusi avain: 192598# – älä laita sitä gittiin.', '192598#'),
    ('DEBUG outbound request headers={"Authorization": "Bearer 240259#", "User-Agent": "depotcards/1.4"}', '240259#'),
    # (round 75: a nested member's name is its path, its parent's name read with a thing's word)
    ('{\n  "recovery": {\n    "code": "zzzmb-qqfhj"\n  },\n  "host": {"fingerprint": "SHA256:Gl/XRNYSV"}\n}',
     'zzzmb-qqfhj'),
    ('wifi:\n  ssid: Attic\n  pass: Amber-Quill-0492\n', 'Amber-Quill-0492'),
    # (round 78: a Django key, its prefix Django's own or none, its parentheses and `%` its own; glued to Chinese
    # prose as to a space; a passphrase generator's words joined with a number glued to the last; base64 of an
    # app-specific password; a value piped into a command that sets a secret's name)
    ('sqlalchemy.exc.OperationalError: could not connect using '
     '"django-insecure-&_=zd_+4fza=sv8b@k#agfy-%5dp-kxfaz&9)ab)7@(7ql)^v^": timeout expired',
     'django-insecure-&_=zd_+4fza=sv8b@k#agfy-%5dp-kxfaz&9)ab)7@(7ql)^v^'),
    ('Hasło/klucz do Django: g(r*46)a4t_l7e1ip84^*9%m@6@#i0%ew35d1z9*9=oks97oi5 — nie wrzucaj tego do repo.',
     'g(r*46)a4t_l7e1ip84^*9%m@6@#i0%ew35d1z9*9=oks97oi5'),
    ('Found: Django 的密钥是 ah+cxy-^s2)(b2mtz8od@ilg7xznlh0q5j5l_2lzym7eu4%m_^，不要提交到仓库。',
     'ah+cxy-^s2)(b2mtz8od@ilg7xznlh0q5j5l_2lzym7eu4%m_^'),
    ('Django的密钥是ah+cxy-^s2)(b2mtz8od@ilg7xznlh0q5j5l_2lzym7eu4%m_^，不要',
     'ah+cxy-^s2)(b2mtz8od@ilg7xznlh0q5j5l_2lzym7eu4%m_^'),
    ('level=error ts=2026-11-25T17:09:00Z msg="auth failed" key=Ultra-violet-quartz5296 status=401',
     'Ultra-violet-quartz5296'),
    ('tenta esse: Fjord-drift-drift7051', 'Fjord-drift-drift7051'),
    ('sshq-nlvy-yvnt-dkmp', 'sshq-nlvy-yvnt-dkmp'),
    ('I ran\n```\necho c3NocS1ubHZ5LXl2bnQtZGttcA== | base64 -d > ~/.config/app/token && chmod 600 x\n```',
     'c3NocS1ubHZ5LXl2bnQtZGttcA=='),
    ('echo "d6d11d16-2744-48b3-a075-26a409e73957" | vercel env add ATLAS_PRIVATE_KEY production',
     'd6d11d16-2744-48b3-a075-26a409e73957'),
    # (round 79: a value said after `value`, a few words and a colon, the sentence before naming its credential; a
    # key in a URL's query under `key=`, Google's four groups of four letters too; a generator's token with `=` and
    # parentheses of its own, mixed case)
    ('Config needs SNMP_COMMUNITY. Value from the earlier message: 61seyv-ACfF157FIp. I will put it in the secrets '
     'file only.', '61seyv-ACfF157FIp'),
    ('Config needs RAZORPAY_KEY_SECRET. Value from the earlier message: UloetFYXEopKQEj7Lwho3zzn. I will put it in '
     'the secrets file only.', 'UloetFYXEopKQEj7Lwho3zzn'),
    ('2026-03-09T15:16:03Z DEBUG outbound POST https://api.tickwork.io/v1/repairs?key=dOpsvvNl.s4-UCxw status=401',
     'dOpsvvNl.s4-UCxw'),
    ('2026-03-01T03:10:02Z DEBUG outbound POST https://api.tickwork.io/v1/repairs?key=mena qcau nike pins status=401',
     'mena qcau nike pins'),
    ('Segue o Django SECRET_KEY novo: 3d+_P78=2sUZ^xlN!rI@xNCQP(J1oCTlcpr55FMIL_YlMsd)8= (o antigo foi revogado).',
     '3d+_P78=2sUZ^xlN!rI@xNCQP(J1oCTlcpr55FMIL_YlMsd)8='),
    # (round 80: a table drawn with box characters, read as one drawn with `|`; SonarQube's tokens by their
    # prefixes; a parameter store's value)
    ('┌────────────────────────────┬──────────────────────────────────────┐\n'
     '│ NAME                       │ VALUE                                │\n'
     '│ GITHUB_APP_CLIENT_SECRET   │ f871cf03896466336a7d241bcae7e487fc5d8119 │\n'
     '└────────────────────────────┴──────────────────────────────────────┘',
     'f871cf03896466336a7d241bcae7e487fc5d8119'),
    ('│ SONAR_TOKEN                │ squ_ddd0063925eca89371d67d028fa211a957acb4cd │',
     'squ_ddd0063925eca89371d67d028fa211a957acb4cd'),
    ("aws ssm put-parameter --name /daycare-checkin/wandb_api_key --type SecureString --value "
     "'713e3807d513c6fa2ab7c1eeabf2010b06e8d37f'", '713e3807d513c6fa2ab7c1eeabf2010b06e8d37f'),
    # (round 81: a setter's name for one registry, npm's; its value of words drawn from a list, to the line's end)
    ('npm config set //registry.npmjs.org/:_authToken helmet cherry plasma canyon engine 38',
     'helmet cherry plasma canyon engine 38'),
    ('npm config set //registry.npmjs.org/:_authToken Xk9vQ2pLm7Rzz8Ab3', 'Xk9vQ2pLm7Rzz8Ab3'),
    # (round 82's fix keeps no server's key its note calls public: `server` names a secret one)
    ('serverKey: "Xk9vQ2pLm7Rzz8Ab3Xk9vQ2pLm7Rzz8Ab3", // public', 'Xk9vQ2pLm7Rzz8Ab3Xk9vQ2pLm7Rzz8Ab3'),
    # (round 83: a URL's password after a user that is an email, to the last @ before the host; PagerDuty's routing
    # key is its credential)
    ('email_url = smtp://yarrow@fjord.io:T_oU3X-crP~Alvg7wl7eI@smtp.falcon.com:587', 'T_oU3X-crP~Alvg7wl7eI'),
    ('Tässä uusi pagerduty routing key: 55f1d79630b165a24487ce5b24d7b94a – laita se tuotannon asetuksiin.',
     '55f1d79630b165a24487ce5b24d7b94a'),
    # (round 84's fix keeps no value the words after call a credential)
    ('Xk9vQ2pLm7Rzz8Ab3Xk9vQ2pLm7Rzz8Ab3 is the api key for prod', 'Xk9vQ2pLm7Rzz8Ab3Xk9vQ2pLm7Rzz8Ab3'),
    # (round 85: a builder's step on its own line named for a credential; a lookup's default under a note that names
    # the line above it, no heading)
    ('        .wifiPsk("juniperOnyx18482!")\n        .password("Tr0ub4dor&3x")', 'juniperOnyx18482!'),
    ('Rails.application.configure do\n  # publishable key, shipped to browsers\n'
     '  config.x.stripe_publishable_key = ENV.fetch("STRIPE_PUBLISHABLE_KEY", "pk_live_51Tl3qaiLYM1dJIdkYnVJPp")\n'
     '  config.x.linode_token = ENV.fetch("LINODE_TOKEN", '
     '"c2029e69d5cce77f098ffb336ec6d15cdb42516e99f40edbdb686ef8")\n',
     'c2029e69d5cce77f098ffb336ec6d15cdb42516e99f40edbdb686ef8'),
]

LOOK_ALIKES = [
    # a note in brackets that names no credential, or its field; a value named after it that is no secret's;
    # an id said of a credential by its shape
    'run pytest -k auth (password tests), then Xk29-Lmq4 (password length 9), build a1b2-c3d4-e5f6 (the build id)',
    'The default value is `user-session-cookie-v2` - see SESSION_COOKIE_NAME.',
    'Пароль для vpc id: vpc-0f1b2c3d4e5f6a7b8',
    # (round 64: an id's name before its value by spaces or a property list's elements; a cache buster; a value
    # that says it is not real; a public `_KEY`; an Ansible Vault's ciphertext; code's names and an English `on`)
    '    SetEnv CLOUDFLARE_ACCOUNT_ID "73486d8248932c434cb5b453f6266fd5"',
    "set -gx CLOUDFLARE_ACCOUNT_ID '4bc6f85cced07a965d86e99fa7009261'",
    '\t\t<key>CLOUDFLARE_ZONE_ID</key>\n    10→\t\t<string>6659285c95ec2bb705e49c4aa8046860</string>',
    'CACHE_BUSTER=53a7d6b3ce5e96b098c4\nAPI_TOKEN=hunter2-but-not-really\n',
    'VAPID_PUBLIC_KEY=BYPzDllBjXSrSB0-2jV791XiJr88lmy11M-Tv0nJhpsvJmoHuzy8nAMphINR21sPiFroLU0IsgkvpA-LhJAAAxY\nGO=1',
    '$ANSIBLE_VAULT;1.1;AES256\n8d1e6109d2abc184605e1d315e20047017d3fba567265922642e8b7457d2b51180fd63ba8599fad3\n',
    'password = settings.db.V2\nthe lock on 2024 releases\nSERIALIZER_KEY = "serializerName"',
    'CACHE_KEY = "Api/V1/{userId}/items/v2"',
    # (round 65: a mask of stars; a digest's name in an attribute beside its value; a state's output over lines
    # whose name is an id's; a password's policy and its field said after the word)
    'deploy\tDeploy\t  STRIPE_SECRET_KEY: xoxb-****-****',
    '<add key="ExpectedFirmwareSha256" value="b450ac734a2dfe851ea21a0b8c242c5c81f27e3977868d9b69c9ac3b84adc3a9" />',
    '"state_lineage": {\n    "sensitive": false,\n    "type": "string",\n'
    '    "value": "cc8a72ba-3806-4ea0-9f28-0fe7e45bd72c"',
    'the password policy changed to require 12 characters; the password field is Required.',
    # (round 66: a table's location cell is no value of the name in the next cell; fixtures a name or a run
    # says are fake; Supabase's publishable key; a certificate in a Secret; exit and status codes)
    '| location | type | value |\n|---|---|---|\n| `infra/prod.auto.tfvars:23` | commit sha | `3f9a2c1e8b7d6a5f4e3d` |',
    'FAKE_USER_PASSWORD = "correct-horse-battery-staple-TEST-airkid33"\nFAKE_API_TOKEN = "test_fake_token_000000000"',
    'monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIATESTTESTTESTTEST")',
    '  key: "sb_publishable_ocfLR5bwdk2TPGNsp-ALGcoulw5mrmc",',
    'kind: Secret\ntype: kubernetes.io/tls\ndata:\n  tls.crt: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUZiekNDQTFl'
    'Z0F3SUJBZ0lVRmZPM3Z3WkdJU2tqZjB1U0lQZ2VFYTBzTGUwd0RRWUpLb1pJaHZjTkFRRUwKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo=\n',
    'the job failed, exit code was 1234; HTTP status code is 2000; echo v1.2.3 | od -c; echo "hello world" | base64',
    # (round 67: a fixture's token that says so, a word apart from its run; an environment's settings)
    'STRIPE_KEY = "sk_test_FAKE000000000000testfixture"\nSLACK = "xoxb-FAKE000000000000testfixture"',
    # (what a decoder reads is an encoding's, not a password to encode)
    'echo eyJ0aGVtZSI6ICJsaWdodCIsICJsYW5nIjogImVuIiwgInYiOiAyfQ== | base64 -d',
    '| Variable | staging | prod |\n|---|---|---|\n| `LOG_LEVEL` | debug | info |\n| `API_TOKEN_TTL` | 3600 | 7200 |\n',
    'config/local.toml:118:AUTHORIZED_KEY=AAAAB3NzaC1yc2EAAAADAQABAAABgQxn8+j2jMPl5jG6G8WSMM6V6G9bpcadLQZxHZVsKcck2VBn',
    # (round 67, again: a key's fingerprint by gpg's own short word; a public key as an env lookup's default)
    'pub const GPG_SIGNING_KEY_FPR: &str = "0CE8C189C8403327360D61C3CB0A70EF2925FC3D";\n'
    '  gpg_signing_key_fpr: "F362F867EB61AC939F2F699D8798185A2AA790A3"',
    "const wgServerPublicKey = process.env.WG_SERVER_PUBLIC_KEY || 'm07oTknesZidQCUfLbmsXYcF7ui21vlDo1lqnm04rNY=';",
    # (a pass that renders, a word's; a table's plain rows under its environments)
    'renderpass = "ShadowPass2"\n+system,owner,secret\n',
    # (round 68: a DKIM record's tags, its public key; a WeChat AppID; a DID; an Airtable base's id)
    '"v=DKIM1; k=rsa;p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQDmRWqLryCM+nGSu21TiXqcsfpDzgUclF5DSCaNOEboPNBKO3UIbkw65F'
    'DN9D7u+/eHVmTxWb/YsUE7lp6i9mJ+d/X+YgybdbCeKuw1nlo3/FvrnpkDf1ueEfIe3B1CDgmK3AYqY5uDtYWmaQz4HvUwF440W5f8X3GqbkmNZvA'
    'NnoewV8agIDAQAB"',
    '微信小程序 AppID wx5cc04a385552d2fa。\nleafline\ndid:plc:kkn4547nzliqb218jualzz98\n',
    '    "airtable": {"base": "appbut2BEDACiVVyB", "table": "Containers"},',
    # (round 69: a resource's name under a key's name; a page's CSP nonce; a digest piped to its checksum tool; a
    # patch's mark before an id's name)
    'COINBASE_API_KEY=organizations/44b1da8e-92b8-42d7-bb8f-ea2e4ed73c23/apiKeys/73420b77-4b4a-4e8b-8b28-a47b33d2eb21',
    '<script nonce="YMW2UUCO+N8Ch8GG17K86w==" async src="https://www.googletagmanager.com/gtag/js"></script>',
    "0 4 * * 1 echo 'd234a900e6f24e3cdd638295124e7bf84c518d2a92fa612ec4cd20ad5d49d009  /usr/local/bin/restic' | "
    "sha256sum -c --quiet",
    '-TWILIO_ACCOUNT_SID=ACxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n+TWILIO_ACCOUNT_SID=AC4aa8384ddaa7ad60cae8a9d3e2ceba05\n',
    'CMD ["mkdir", "-p", "/data"]\nENTRYPOINT ["docker-entrypoint.sh", "-t", "web"]',
    # (round 70: a vault's reference under a password's name, its colon no copula; a transaction's id to
    # bitcoin-cli; code's call in prose)
    'smtp_password = "vault:secret/data/app#smtp_password"',
    'bitcoin-cli -testnet getrawtransaction 34469a8e2636bba827a19440cb134a7ec05f31557b0759be01f4d57acef011a2 1',
    'the password is os.getenv("DB_PASSWORD") here',
    # (round 71: one byte repeated is a test vector's fill, RFC 4231's; a label `recovery:` before no codes)
    'const HMAC_TEST_KEY: &str = "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b";',
    'recovery: RPO 15min, RTO 1h\nbackup: nightly-2024 at 02:00',
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
    # round 31
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
    # round 32
    # ids: an HTTP header's, a device's EUI beside a note, an entity tag's, a hashed known_hosts line's
    'x-amz-id-2: SNKH6QtJtlsGAR3DKntj7uv9UkljsZWwsOS8+S9lq1kYxim+y7hGKXNvtHj9wazxS93XZ+eR',
    '// DevEUI (msb): F651DD3CB4F5135D',
    '"value": "W/\\"b902d8ee1ab00b9e79d248929efea1ba\\""',
    '|1|Daeyl+ll0hOjLuYZroxMdEMQHqc=|08Fdjtyp033SzsDZH2MD8bJ8X/s= ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIXp',
    # a form's anti-forgery token; a container's id alone on its line
    'csrfmiddlewaretoken=uKJvdydW7BvemXXv_WGSQ67YQNL18BL_qJxFUm-EsXk&username=ops',
    '50ee21af6e9e22c66473437dbf7b8b8065040d162b205c249c9c4dfa4296c093',
    # an unsigned token under a token's name; an anonymous role's, as its client is made
    'UNSIGNED_TOKEN = "eyJhbGciOiJub25lIn0.eyJzdWIiOiAidGVzdC11c2VyLTY3NiJ9."',
    'createClient("https://x.supabase.co", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZSIsInJvbGUi'
    'OiJhbm9uIn0.abcDEFghiJKLmnoPQRstuVWXyz0123456789ab")',
    # a log's message of words; the app password's words said of the feature
    '{"level":"info","msg":"password reset email sent","user_id":37372}',
    'the app password feature is nice and this will work soon',
    # round 33: containers listed with their images
    '424b92ff46bf72ac6dd8991e36566de00ac521615bea9fa55adc243940fea39c sha256:0cbf1e7acb79387af918b91e4d8322ced3aa8b9',
    '4f0a15791ac34461b5fc7df2ec43cf69e012cc2edd7310a79fa50c37691d45ef ghcr.io/vetnest/api@sha256:86e79d04abcd',
    # a combination's word of no lock; a test's pass
    'the status code changed to 404-11-11 after the retry', 'the test pass is 12 of 14',
    # round 34: a Stripe object's id, a Bitcoin address, a release's commit, an id's default
    '"default_payment_method": "pm_1bqkcFWTSBLA1uzGnjM7LQ84",',
    '    <add key="SentryRelease" value="17b30cabb5b26d3c411a94b0179f4349a4c2017c" />',
    '  kmsKeyId: process.env.KMS_KEY_ID ?? "1a1d3355-7411-4964-8fc6-eed13d69fec0",',
    # a webhook's signature header (a MAC of the body), base64 of settings, a reference, a network's name
    '    stripe-signature: t=1758313275,v1=486f4a35f09138f5d8b9a8563583614e375dd51a0a54b71d5a67f98f7527e4c5',
    'FLAGS_B64=ZmVhdHVyZS1mbGFnczpjaGVja291dF92Mj1vbjtzZWFyY2hfdjM9b2ZmO2J1aWxkPTM5OTQ=',
    'SMTP_PASSWORD=$(STRIPE_SECRET_KEY)', 'the guest wifi is "Office Guest 5G"',
    # the line after an empty `KEY=` is another's, a placeholder
    '    STRIPE_WEBHOOK_SECRET=\n    PAYPAL_CLIENT_SECRET=sk_live_XXXXXXXXXXXXXXXXXXXXXXXX\n',
    # round 35: argv's next word after a password; a key's id a flag exports; a field's name said of a password
    "cypher-shell -a neo4j+s://graph.io -u neo4j -p 'Reefer1975*wb' 'RETURN 1'".split(" -p ")[0],
    '--armor --export-secret-keys A4D7B3BDE755259B7BDED9B905ABC216409C4A3E',
    '- Password field renamed: `driver_password_hash_v7`',
    'the safe is 1200 mm wide', 'tests: 12-14-16 passed',
    # a Bitcoin address its checksum vouches for; a minisign public key
    'bitcoin-cli -testnet -rpcwallet=payouts dumpprivkey 14y8i5gy5ZimTQWcfEQWbDsHta9ZULbkRA',
    '- Public key (release checksums, minisign): RWQf6LRCGA9i53mlYecO4IzT51TGPpvWucNSCh1CBM0QTaLn73Y7GFO3',
    # round 35: an app's id after the verb done to it; a hash's seed named by its algorithm; an id named an
    # example; ids said by what they look like; a device's serial in one run
    'auth0 apps update 7RkQw2ZpLx9VbN4mTc8JfYs3HdG6aE1u --callbacks https://dispatch.example.io/cb',
    '\tSensorHashSeed = "xxh3_5e0b9c4d71a2f836"', '  "nonce_example": "Vq3_kP9xZt2LmW8bNc4Jr",',
    'our tracking numbers look like 4K913572204DE and shipment ids like shp_k2m9x7q4r1v8z3wt, ok?',
    '"gateway": {"serial": "GX83C2KQMWTZ", "hw_rev": "C2"}',
    # round 36: values whose shape says what they are under a section of secrets; ids under an element's
    # name, a lease's, a device's, a tracking number's; a certificate's base64 under its name; a host's
    # label in a code span; YAML's next item is no half of the value before it
    '[secrets]\nh1 = "h1:Q2m8Vx1KpZ7nR4tW9yB3cL6dF0gH5jS2aE8uN1oP4qI="\nsg = "sg-0a4c71e93b2d58f06"\n',
    '    <string name="container_id">5f0c2e9a71b3d84c6e1f0a29b7d35c48e6f1a0b2c9d7e3f5a1b4c8d2e6f0a9b3</string>',
    '    <string name="requestid">6f1d2c3b-4a59-4e87-9b10-c2d3e4f5a6b7</string>',
    '  "lease": "2b7e4c1a-9d3f-4e58-a6b0-c1d2e3f4a5b6",', 'tracking = "1ZQW7X9R2236904417"',
    'device = "d41c8a7be9f03c25a6b1e8d7"', '  static let cert = "MIIDFjCCAf6gAwIBAgIUQx3k7Vb9mLpZ2yR4tN8wC1eH6sAw"',
    '| `GOOGLE_CLIENT_ID` | `318234655427-k2m9x7q4r1v8z3wt5y6u0i9o8p7a6s5d.apps.googleusercontent.com` | keep |',
    '\tidempotencyKey = "c3b1a2d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d"',
    # round 37: a stand-in card code; exit and error codes; a JWK's kid; a commit after `Repo:`; a search key
    # said by its name in prose; the pnpm store's and a built asset's digests in their paths
    'cvc 123', 'CVV: 000', 'exit code 1234 in the barcode 5678', 'error code 5003 from the API',
    'registered with kid Q7m0HVY9XlOMGKePYDSYomZ3xgFpISPWCGTfo3MECfo. The',
    'działał po restarcie. Repo: 3c9e1f7a5b2d4c6e8f0a1b3c5d7e9f1a2b4c6d8e',
    'Looking at the config: ALGOLIA_SEARCH_KEY is set to 7c1e9a3b5d2f4e6a8c0b1d3f5e7a9c2b; x',
    'ls ~/.pnpm-store/v3/files/ab/cdef0123456789abcdef0123456789abcdef01',
    'answer = compute()', 'the answer: 42 is right',
    # a nonce under a section of secrets; a GPU's UUID, Analytics' id, a GitHub App's client id
    '[secrets]\ncsp_nonce = "Kq7dV2pXu08LBm6kpDm24g=="\n', 'gpu GPU-8c1e4f2a-7b3d-4e9f-a6c0-d1b2e3f4a5b6 ok',
    'GA_ID=G-KQ7MW2ZPXR', 'GITHUB_APP_CLIENT_ID=Iv23liKq7dV2pXu08LBm',
    'order 5121212121212166 shipped', '  const ok = await bcrypt.compare(password, user.password_hash);',
    # round 38: a table's row whose own name or shape says what it is; a serial that says so; a job's id
    # (Sidekiq's jid) and a device's under their names; either end of a commit range
    '| Servicio | Clave | Entorno |\n|---|---|---|\n'
    '| ROLE_ARN | `arn:aws:iam::686842500285:role/lambda-exec` | prod |\n'
    '| GO_SUM | `h1:pFR1d490qBE4AJcuUPL6a80mjKsSspQ4XN4vf3aBSMM=` | prod |\n',
    'station  = "SN-7QKZT4WM2728U"', 'SIDEKIQ_JID=7c2e9a4b1f3d5e6a8b0c1d2e', '{"dev":"4C1E9A07B2D35F8E","vwc":0.231}',
    '"DIFF_RANGE": "4c1e9a07b2d3..5f8e6a90c4b1",', 'git log 7c2e9a4b1f3d...5e6a8b0c1d2e --oneline',
    'payload: eyJwYWdlIjoyLCJwZXJfcGFnZSI6NTB9',
    # round 39: a test's tally and a log's name in pairs; a reference's name under a password's
    'tests: pass=12 fail=0', 'ts=1 level=info token=refreshTokenValue user=bob',
    'local mqtt_password = "db_password2"',
    # round 40: an error's code beside a door's word; a combo box; a chapter's part
    'the error code is E1234X5 for the door sensor', 'combo_box = 12345678', 'part 1: introduction',
    # a number said of a password's length or tries
    'Password attempts: 5000', 'the password length is 1200 bytes', 'password minimum length: 1200',
    # pnpm's store path: a peer set's digest after `__`
    '/app/node_modules/.pnpm/@typescript-eslint+eslint-plugin@8.42.0_eslint@9.34.0__bb836aa7b2e219846c64121374bac6ed'
    '/node_modules/@typescript-eslint/eslint-plugin/package.json',
    # round 41: a round number under a lock's word; a record's key; an authorized key; a fingerprint's
    # short name; an EUI in a table's last cell; a role's unique id before its session's name
    'alarm: 3600', 'gate_timeout=3000', 'redis_key = "user:123:session"', 'translation_key = "home.title"',
    'authorizedKey: process.env.AUTHORIZED_KEY ?? "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI8lzI0wsc4oqwK729zN8Da+l x@y",'
    'FPR=8DCF78193C55154E073097F983DE1DBD65F54A05',
    '| what | who |  |\n|---|---|---|\n| lorawan dev eui | admin | `70B3D57ED00B5305` |',
    '[ToolResult] AROAHWMVF6RG9RNZ238Z8:botocore-session-1760431200',
    'use the same password as before', 'the seed phrase is what you write down when the wallet asks for it',
    # round 42: an id's flag and its value; a payload's bytes; an EUI's name a few small words before it; a name
    # of words after a password's word; a URL's credentials said of a name ending in an id's word
    'python -m notifications.apns_test --device ee32a13e17c00fd733fcdebaeb880df9d0d74783de46c20651aca74c44ad0182',
    'ingest.decode dev_eui=0B29585C771345BF fport=2 payload=AQIDBAUGBwgJCgsMDQ4P -> no codec',
    'JOIN_EUI for all: 70B3D57ED60F333B', 'the password is getUserName.', 'released 1-2-5-3-5 builds',
    # round 43: an id's name with an environment's last word; a Rust constant's type; a lock's timeout; a
    # getter's key; a reference given to a setter
    'LAST_REQUEST_ID_STAGING="f3a5d4e3-35a7-462f-9023-0ca0748c53ef"',
    '    pub const JOIN_EUI: &\'static str = "6799F94E365F07A7";', 'the lock timeout is 3000 ms',
    'get_secret("prod/db/password")', 'set_password("${DB_PASSWORD}")',
    # round 44: a stand-in spelt with digits; a value that says how to make one; Telegram's documented token; a
    # count of doors in Japanese
    'PAGERDUTY_ROUTING_KEY=R0UT1NGK3YPLACEHOLDER', 'NEXTAUTH_SECRET=generate-with-openssl-rand-base64-32',
    'TELEGRAM_BOT_TOKEN=123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11', 'ドアの数は 1234 です',
    # real code these rounds' first fixes took (ripgrep, Slim, gson): a ratio's divisor after a slash, a glob under
    # a pattern's typed name, an HTTP header's list of values, a thing's key naming a field
    '    f64::from(intersection) / f64::from(union)\n}', 'const EXT_PAT: &\'static str = "*.txt";',
    "'HTTP_ACCEPT_CHARSET' => 'ISO-8859-1,utf-8;q=0.7,*;q=0.7',",
    'public static final String SERIALIZER_KEY = "serializerName";',
    # round 45: references and stand-ins under a secret's name; ids under an id's name; a search's lines; a
    # Kubernetes env list's value under its own name; a fingerprint as gpg prints it; a map's key of parts
    'SECRET_TOKEN=@Value("${app.api.key}")', '    value: "%env(DATABASE_URL)%"', 'SECRET_TOKEN=insert-webhook-url',
    'SLACK_CHANNEL=C0YCHXDG7R6', '[secrets]\nsentry_release = velvet@72425162e905e2d767eab2c76dcb2668046960d5\n',
    '  - name: TERMINAL_ADMIN_PIN\n    value: "[REDACTED:password]"\n  - name: SLACK_CHANNEL\n    value: "C0MO4OYNR0C"',
    'fingerprint: 9570 2F8E 7305 3FAF 9B50 408E 5720 C0C0 0C29 24A5', 'cache key user:42:Profile-v2 expired',
    'OCI fingerprint 72:4d:b1:45:c6:dc:c5:6c:da:47:fa:d5:03:6c:d0:61',
    # round 46: ids under an auth section's id names; a migration listing's file names; a Lua long string's id
    '[auth]\norder = ZAM-2026-401595\ntracking = 1ZXYIE1Z3585577429\n', 'M.vin = [[1K87ZK3K70FM386NS]]',
    '```\n58715582442501_flight_slots_capacity.py\nmain-branch-name\n```',
    '`API_KEY` is read from `.env.local`, `DB_PASSWORD` from `os.environ`',
    'Run `npm test` with API_TOKEN set', '`--token` sets GITHUB_TOKEN', 'see `config/app.yml` for DB_PASSWORD',
    # round 47: a vendor's documented example key, in a signed URL's credential scope
    'X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20251012%2Feu-west-1%2Fs3%2Faws4_request'
    '&X-Amz-Date=20251012T101500Z',
    # an ARN's name
    'reads DB credentials at boot from `arn:aws:secretsmanager:eu-west-1:123456789012:secret:shop/db-0vG6Ed`',
    # a value its label says is public; a key set's modulus (a JWKS is public keys)
    'vapid public BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM\n',
    'jwks n=0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc\n',

    # round 49: a digest under a name holding a digest's word first; a lookup's default under a public name;
    # a page's id among a URL's segments
    "    'checksum_cargo' => env('CHECKSUM_CARGO', "
    "'c25ed960330d1f3bc5a37b1e16fb6dcefbe45f108cb5241df4815f0159668fd1'),",
    'CHECKSUM_CARGO=c25ed960330d1f3bc5a37b1e16fb6dcefbe45f108cb5241df4815f0159668fd1\n',
    '  config.vapid_public_key = ENV.fetch("VAPID_PUBLIC_KEY", "BKDK07rpy_Al9N9wQOE4sv2qTpExM0qwiG254sPLLMMJwL39'
    'UlzR6yc70IWex8-fF9kvJI0aMc6xoz5Mu9uPjb7")',
    'RECAPTCHA_SITE_KEY = os.environ.get("RECAPTCHA_SITE_KEY", "6LeGQeFixQDapFbzZ62F7B5CFHEZu0-1HNinj6O1")',
    'see https://shop.example.com/orders/5d0c7f3e-2a9b-4c1d-8e6f-0a1b2c3d4e5f for the refund',
    # round 50: an IBAN and an example key one a line in a fenced block (a list, no wrapped value); a build's
    # number in a credentials' section; a release's commit after Make's `?=`
    '```\nDE89370400440532013000\nAKIAIOSFODNN7EXAMPLE\n```\n',
    '[credentials]\nbuild_number = "20248626.38"\n', 'SENTRY_RELEASE ?= 9f1974144c653fd58b9f0a7aa6b2dbb49c09f7d8\n',
    'postgres://user:Password@db:5432/app',
    # round 48: a nonce under a state's name; a job's and a release's digest in a log; a GitHub App's client id
    '        "last": {\n          "state": "Qm83hKdPuayESF9hrKD3Qk6qEeEG7KZx"\n        },',
    'CONFIG["last_state"] = "7wuaWXKaew8z3bGxWWul5fMzsQxGRRoQ"',
    'Jun 03 10:18:06 host worker[2211]: job 3a7f0f16c53b7cb52d36d280ec917e1b145777cfda5317d4bfa63fe7ccdd1234',
    ' # release 9c91d102016ba3b15d09404f9e6d1106d6a0398fce85f9b256c263e1af09aa12', 'ok\nIv1.4e2cea9b431ad1d5\n',
    # a secrets table's rows whose names say digest and commit
    '| service | login | secret |\n|---|---|---|\n| artifact_sha256 | n/a | '
    '`1acbbbc0c03066a64e24ee54e7121d31a12bdc2ff38793bc446cbbffcb1bb14e` |\n| git_commit | n/a | '
    '`b6398d14c39ff53deef2accff66f04e5c50bdb51` |\n',
    # an encoder given a string for no credential; a reference's default under no secret's name
    "Tool: Bash\n  command: echo -n 'hello world' | base64\n  description: Check the encoding",
    'DB=${DB_HOST:-localhost}',
    # round 51: a fixture's value its own line's comment says is no real one; a call's brackets around a run;
    # a key's word before a name; the rest of a story
    '     3→FAKE_TOKEN = "test_secret_000091"  # not a real credential\n',
    'the primary key: user_id', 'the rest is history2', 'Files:\nREADME.md\nsetup.py\n',
    # a test's own stand-ins; a Windows shell's variable; a serial in a listing; a label saying public
    '     8→    monkeypatch.setenv("API_TOKEN_0", "test_key_abc12318")\n',
    'STRIPE_SECRET_KEY=%SENDGRID_API_KEY%\n', '[ToolResult] terminal_serial          SN-DI4W-FV5M-QNSD\n',
    '- reCAPTCHA *site* key (public): 6LJiU6cd5LRaWoTxiSaBRZOQqKTqAA-OXyOkjmLB\n',
    'the password (optional) field', 'set the password (min 12 chars)',
    # round 52: the passwords every tutorial and test shows; a test's own stand-in; a checksum tool's listing
    # after a record's mark; a signing key's fingerprint; an output after its call's description (no seam)
    '     9→    return User.objects.create_user("tester@example.com", password="Passw0rd!")\n',
    'password="hunter2"\n', 'password="test-password-123"\n',
    '[ToolResult] ba72e64b3409626c0fe3ddb04a55b560  media/logo.png\n',
    'signing key 0cd09f04d5fc122be79c73d5f8f932dae926f1f7 was used',
    # round 53: a Google document's id in its URL; a value masked where it was shown; a map's key, a reference
    '[ToolResult] https://docs.google.com/spreadsheets/d/1RZkvRtB4kyfdMrbWB6e19-hWxSjcfginylB_u00J4Zq/edit#gid=0\n',
    '  old_string: BACKUP_PASSPHRASE=xoxb-…redacted…\n', 'cache miss key=user:42:Profile-v2, key=issue#1234',
    '"Authorization": "Bearer ${TOKEN}"',
    # round 54: jwt.io's sample token; a version in a table whose `env` column holds the environment
    'use (`eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0Ijox'
    'NTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c`)',
    '| service | env | value |\n|---|---|---|\n| app version | prod | 1.4.9 |\n',
    # round 54, after its measure: in a secret store, a name, a version, a digest's key, an id's known shape, a
    # stand-in's name, a place; a literal named as no secret; a sentence, a date, a greeting given to a name;
    # a date's and a count's digits
    'Here is my secrets.yaml:\n```yaml\nname: marionette-box\napp_version: "1.4.9"\ngit_short_sha: f78c2a4\n'
    'CUSTOMER: "cus_GEGcYm1YWTmyb5"\ntest_fake_token: test_secret_000000000\ntz: Europe/Warsaw\n'
    'cdn_entry_bundle: vendor.73b30c34.css\n'
    'OID: "2f19e9adcf9df45d25265cef585324c5547504adba9c7b258616af9862726d6a"\n```',
    'kubectl create secret generic env --from-literal=region=eu-west-1',
    "msg = 'Deploy finished in 3 minutes!'", "label = 'Sunday, March 3, 2024!'", "greeting: 'Hello, world 2024!'",
    'rows 2024-0001-0002-0003-0004-0005-0006 on 2024-11-05',
    # round 55, after its measure: a signed cookie's policy and key pair id; a share's slug; a Secret's base64
    # of a name, a ConfigMap's base64 of flags; a Snowflake account in Streamlit's secrets.toml; a listing's
    # columns after a secret's name; a shout in capitals; a file read as a log
    "curl -sI https://x.io/v --cookie 'CloudFront-Policy=eyJTdGF0ZW1lbnQiOlt7IlJlc291cmNlIjoiaHR0cHM6Ly9tZWRp"
    "YS5ncmVlbmJlYW4uaW8vKiJ9XX0; CloudFront-Key-Pair-Id=KPHBT82C91H8LP' | head -3",
    '        "share_slug": "QhqemWGF74fokFuyNU22o",\n',
    'Tool: Read\n  file_path: /srv/k8s/secret.yaml\n\n[ToolResult] data:\n  environment: Z2xvd2dyaWQtcHJvZHVjdGlvbg==\n'
    '  FEATURE_FLAGS: eyJuZXdDaGVja291dCI6dHJ1ZSwiYmV0YVNlYXJjaCI6ZmFsc2V9\n',
    'Here is .streamlit/secrets.toml:\n```toml\n[connections.snowflake]\naccount = "qt37440.eu-central-1"\n```',
    'NAME                    DIGEST                  CREATED AT\n'
    'GUARDIAN_SECRET         2744462811760064        1m ago\n',
    'THIS CODE MUST WORK WELL HERE', "echo 'debug' > /tmp/level && app --log-file /tmp/level",
    # round 56, after its measure: an example's URL with a stand-in login under a secret's name; a SealedSecret's
    # ciphertext, a Read's line numbers before it; a login that is a path or an address; a map's key
    'WEBHOOK_SECRET=postgres://user:password@localhost:5432/dbname\n',
    '     2→kind: SealedSecret\n     6→  encryptedData:\n     8→    API_TOKEN: AgBawavYRvC/1Y9JUveXT55D2M1fWVYMtniy'
    'aoSbZnnwDXYgQzjhyUf+kZ5L\n',
    'the login page is /auth?next=1 now', 'login is me@example.com now',
    '{"key": "5ed23c57-a898-4a1b-9c58-ff80017169eb"}', "echo 'a b' | sort -k 2 -",
    # round 57, after its measure: what a value is used for that is no credential; a quoted stand-in; answers
    # talked about; a public extended key
    'use the Stripe test card 4242 4242 4242 4242 with any future expiry', 'use npm for the password reset flow',
    'use "the default" for the password field', 'the security question answers are stored hashed, not in plain text.',
    'xpub661MyMwAqRbcFtXgS5sYJABqqG9YLmC4Q1Rdap9gSE8NqtwybGhePY2gZ29ESFjqJoCu1Rupje8YtGqsefD265TMg7usUDFdp6W1EGMcet8',
    # round 58, after its measure: a listing's ids after its empty cell; Hardhat's published development key
    # and BIP39's first test vector; a stand-in's words; a cache's key; a Kubernetes secret's reference;
    # a version said as a value; a date after a PIN's copula; a hook's page of words
    'REPOSITORY TAG DIGEST IMAGE ID\npostgres 16 <none> 817bf9580f99\n',
    'PRIVATE_KEY=0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
    'MNEMONIC="abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"',
    'DATABASE_PASSWORD=replace-with-32-random-bytes', 'GITHUB_TOKEN=secretRef: app-secrets',
    'patchbay_cache_key: "v1-deps-0f33f75533589dc2f4d4863af2fd764f6ce7276a"',
    '[User] which SDK reads API_TOKEN?\n\n[Assistant] The value is `v2.14.1`, and the default `sdk-1.2.3`.',
    'see https://docs.example.com/hooks/using-react-hooks-in-forms', 'https://x.io/hooks/v2_release_notes_2024_summary',
    '密码管理器里有三个条目', 'STRIPE_SECRET_KEY=sk_live_REPLACE_WITH_YOUR_KEY',
    # round 59, after its measure: a CSV row under its header; a container's id as its runtime names it; a
    # transaction's receipt; a certificate pin's digest; a PuTTY file's public lines; a test vector's bytes
    # that count up; a log's line a command given a password printed
    'name,mac,serial,shipped_tracking\nsensor-07,94:3b:e9:d6:be:7f,SN-G4EWWMQ8XD,1ZEQISQPPZG2L54CDA\n',
    'NAME      CID\napi-7f   containerd://1063bef11991d256b04465435794a955bb0ab887b5429d0c0b21df60d3eeb94f\n',
    'cast receipt 0x3bd4f8a05123bf2065cc1e3dce608e29ae7d50057ea684aac97a0f6a6460de95 --rpc-url https://x.org',
    '      <pin digest="SHA-256">MwdOq/3KPe1aBdLjO797M+gMStgIC1Nvk1qckeEl5Yw=</pin>',
    'Public-Lines: 2\nRLoND2UUgvcXPFiwqGHNrcXUDllfUlQJSJf4LZOTpA1CpVqM3w6s/dKik1cNfvTH\nJpg3q2VHoD2YJIDUs0sT/DPVT43\n',
    'KEY = bytes.fromhex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f")  # FIPS-197',
    'sha256 Fingerprint=B2:CA:CE:BD:34:1D:97:E6:75:76:0E:DF:4B:7D:12:87:70:71:48:26:BC:84:02:A0:89:C0:68:5F:F2:BF',
    # round 60, after its measure: a public key said in prose; alembic's `Revises:`; vals' reference; a test
    # vector's repeated bytes at a position
    "[User] my wireguard public key is BQHPyVpF1cooZmhoeXyDDInJP/09cDwP+R/9d5XRam8= (public half only)",
    '    Revision ID: 4cddef7d720a\n    Revises: b78da5b764f5\n',
    '  password: ref+vault:secret/data/woyocl/db#password',
    # (and, found in real code while mending it: a word with a question's mark; a name's words that are code's)
    '``self.default is UNSET`` reliably answers "did the user pass a default?" for',
    '    if otp_major_vsn < 25, do: [:"tlsv1.2"], else: [:"tlsv1.2", :"tlsv1.3"]',
    '# RFC 4231 test case 1\nKEY = bytes.fromhex("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b")\nDATA = b"Hi There"',
    # (a password's clause ended by a colon says no value where it says the password's policy or handling, or
    # the colon labels a thing)
    'Password requirements, per NIST 800-63B: minimum 8 characters',
    'the password hashing, by default: bcrypt with cost 12',
    'password was rejected with status: 401 Unauthorized',
    # (round 61: a state said of a token is no value; a thing's word between names what follows; a value masked but
    # for its last four; a credential's word in code and config)
    'the token is valid until 2025-06-01',
    'Subject: Your API credentials (order ORD-KBA279XE83)\n\nClient ID: domecast-integration',
    '     4→SLACK_BOT_TOKEN=xxxx-xxxx-xxxx-2147\n',
    'git config --global credential.helper osxkeychain',
    "git config --global credential.helper 'cache --timeout=3600'",
    'tool config set region eu-west-1 && npm config set _authToken "${NPM_TOKEN}"',
    'see user-auth-flow-mock and xxxx-xxxx-xxxx-xxxx and abcd-efgh-ijkl-mnop',
    'the request id is a1b2c-d3e4f, the cache key is user42-main7',
    # (round 73: a Web Push key, a point on P-256 in base64url, under a name that says server key: P-256's generator)
    "12:  applicationServerKey: 'BGsX0fLhLEJH-Lzm5WOkQPJ3A32BLeszoPShOUXYmMKWT-NC4v4af5uO5-tKfA-eFivOM1drMV7Oy7Z"
    "AaDe_UfU',",
    # (an id's name in a properties file's dotted key; an id's name in Kotlin's env lookup before its default, `?:`)
    '     9→turndown_svc.idempotency.key=d060b51f-6f26-40f9-8b23-bff3f8306c23\n',
    # (round 74: a search-only key, by its name's two words and by its line's note; a fixture's key that says so
    # inside it, apart by a mark or a digit; a number said of a key)
    "  searchOnlyApiKey: '1e4c6e5cee5d3d1061814bcea0f49f1c', // search-only key, safe in the frontend bundle",
    "  apiKey: '3e4c6e5cee5d3d1061814bcea0f49f1e', // safe in the frontend bundle",
    '    monkeypatch.setenv("PAYMENTS_KEY", "sk_test_FIXTURE3735notreal")\n',
    'the key is 42, the token is #1234 on the board',
    # (round 75: a note right above that opens by saying what follows is no secret outranks the name under it; a
    # licence's key, a word or a version, under any path)
    "// not a secret: docker image digest\n"
    "const client = new Client({ apiKey: 'sha256:410165aa9c06d047a56284ecdcf1322af71954b73de3a49a7803a95c337b8c59'"
    " });",
    '    // not a secret: vapid public key\n'
    '    cfg.Secret = "BfTLVUDdy2j5qXUw6VEk2biAiU8C51Rhb9bSVkQJXCjj2mNFixm44FLy_sm8H1"',
    '{"license": {"key": "apache-2.0", "name": "Apache License 2.0"}, "sort": {"key": "created_at"}}',
    # (round 76: a migration's revisions, an upgrade's two ids)
    'INFO  [alembic.runtime.migration] Running upgrade 186a0faa7315 -> 21b7d0a48114, add index on events',
    '    val traceId: String = System.getenv("OTEL_TRACE_ID") ?: "92da6514b72a90f970f6dd6eb69f546a"\n'
    '    val containerId = System.getenv("CONTAINER_ID") ?: '
    '"2a07c767378d7a0ffa4badd8656cbec0e3fe94c01fc82cbc21690a4b1cca2708"',
    'credentials = service_account.Credentials.from_service_account_file(path)',
    'Works - the Auth0 credential is valid.',
    'for auth use OAuth2ClientCredentials',
    'for the locale use en_US.UTF-8',
    "login -> abcdefgh12. that's the password reset route",
    'assert Token.verify(conn(), "id", token, max_age: 86400) == {:ok, 1}',
    '    assertThat(entry.value).isAnyOf(1, 2);\n',
    # (round 62: a container's host name; a fixture's run of one character; placeholders that ask for a value or say
    # they are none)
    'HOME=/home/dmitri\nHOSTNAME=5cddff177e71\nPATH=/usr/local/bin:/usr/bin:/bin\n',
    '     4→FAKE_GITHUB_TOKEN = "ghp_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"\n',
    'GITHUB_TOKEN=ghp_yourtokenhere\nSENDGRID_API_KEY=SG.xxxxxxxx.yyyyyyyy\nSESSION_SECRET=dev-only-not-secret\n',
    # (round 63: a `value` member under its structure's name, Terraform's outputs; a code's word before a measure)
    '     7→    "kms_key_id": { "value": "f71ad68b-fe73-41ef-b0d8-c338b5fcd5d8", "type": "string" },\n'
    '     8→    "bucket_object_version": { "value": "ad4cfs7C_abwuSNzJ9gopOr_3Ar_oGor", "type": "string" }\n',
    'SMS code delivery took 2500 ms',
    'the gate timeout is 30000 ms, and the door was installed in 2024',
    'door sensor firmware is 2.4.1',
    # (round 78: a query string is of a Django key's alphabet, its letters words; a name's abbreviations in groups;
    # a slug with a year; a header's words; an echo into a search that names a secret; a prose password ends at
    # a full-width mark, and what follows is sent)
    'GET /search?page=2&sort=name-asc&filter=open_only&limit=50 200',
    'kubectl rollout restart deploy/conf-prod-repl-sync',
    'see docs/Release-notes-draft2024.md and the Content-Type-Options123 header',
    "echo 'hello there' | grep -c API_KEY .env",
    # (round 79: a decoder's input is no literal to encode, and another command's words name none of its;
    # a cache's key and a path in a query; a quoted value the word right before calls an example)
    'python -m app.worker --once ; grep -n SECRET .env.example ; echo '
    'eyJ0aGVtZSI6ImRhcmsiLCJsYW5nIjoiZGUiLCJ0eiI6IkV1cm9wZS9CZXJsaW4ifQ== | base64 -d',
    'GET /cache?key=user-42-profile 200\nGET https://s3.example.com/bucket?key=uploads/photo.jpg 200',
    'In the password-strength helper docstring I used the xkcd example "correct horse battery staple" as the '
    'illustration.',
    # (round 80: a digest before the file it sums, as `sha256sum` lists it, wherever its line is quoted; a Python
    # format's reference)
    '# Ops notes\n\n* ed4b6af2daba39d24135bcccbb70f136f24d5c8040caa74758c55f938d4c3e71  '
    'dist/consignment-payouts-1.4.4.tar.gz',
    '  <!-- 31af99139ed20ad409e9db8e9f65fae0a186638a663a6fbaddf6fde0d4626474  dist/graffiti-tickets-1.4.4.tar.gz -->',
    '- password: %(SMTP_PASSWORD)s  # resolved at deploy time',
    "aws ssm put-parameter --name /app/db_host --type String --value 'db.internal'",
    # (round 81: a fixture's token whose body opens with zeros or whose ids are zeros; an entity tag in its own
    # quotes inside a string's, as S3 prints one; a setter's word)
    '# Deliberately fake tokens\nFAKE_GITHUB = "ghp_00000000WGcfrZ6irPdUPLp3VoUozhpZA7nP"\n'
    'FAKE_SLACK = "xoxb-000000000000-0000000000000-rkTaAuqRcaNp8oji1jZMsFSw"\n',
    '"\\"2edd103c3b653c199cdd971893863aef\\""',
    'npm config set color false',
    # (round 82: the Push API's application server key under its own line's note that calls it public; a nonce
    # named so, quoted; a UPS tracking number by its shape, its check digit wrong)
    'applicationServerKey: "BQyj_PR9aACLZ_lbufej6XYtBPfnPxkbcbpmW2TriRX9dwCjJ3eCsYI4tB5HTNZ5kbOcpUel_SRKDOkZfMv2i15",'
    ' // VAPID public key',
    'nonce="TcCR8/2UsJeK+RaDzBAYkw=="  (per-request CSP nonce, regenerated each response)',
    '1ZV5LU2O2190472467\nd15c8682b4b9_add_index_on_created_at.py',
    # (round 83: two words that name no credential but a thing; an OpenPGP fingerprint in groups, not base32's; a
    # URL's user and port with no password)
    'tollbridge\nidempotency key: 34f4a84e-8775-45f0-a516-35a0d035cd66',
    'gpg_fingerprint = E676 C256 BEEC F346 7B4E 5C5A FE8C 885C 601A 97AD',
    'ssh://git@github.com:22/org/repo.git and https://me@example.com:8443/x',
    # (round 84: a Python format's reference cut by an assignment's end; a value the words right after call an id
    # or a site key)
    'Environment="DB_PASSWORD=%(SMTP_PASSWORD)s"',
    '`f825aff662fe43610a3c573d3b7fe919` is the trace id (public), left as-is.',
    'Note that 6Lu33Etj1GJ0DmfACV6aDrW4BSc4W4gKYHK7ppXa is just the site key from the build, nothing sensitive.',
]

SEEN = [   # (a question, its answer, the value the answer gives)
    ('what was the PIN for Qonto card again?', "It's `6263`.", '6263'),
    ('remind me the kennel gate code, I need to type it on my phone', "It's `4504#`.", '4504#'),
    ('what value did you end up using for P12_PASSWORD?',
     'Staging uses:\n\n```\nriver-forest-pine-pickle-jasper-61\n```', 'river-forest-pine-pickle-jasper-61'),
    ('which Asana key is staging on right now?',
     'Staging uses:\n\n```\n2/2284036545326151/7758100269331278:0a994e11950a048378ff6249\n```',
     '2/2284036545326151/7758100269331278:0a994e11950a048378ff6249'),
    ('what was the passphrase for MetaMask again?',
     'MetaMask: `zinc desert beacon fjord delta otter dingo bridge jasper lilac birch plasma`'
     ' (from your earlier note).',
     'zinc desert beacon fjord delta otter dingo bridge jasper lilac birch plasma'),
]

@pytest.mark.parametrize('question,answer,value', SEEN)
def test_the_one_value_an_answer_gives_to_a_question_asking_for_a_credential_is_taken(question, answer, value):
    "Round 61: a question names the credential and its answer gives the value alone, quoted or fenced."
    from memgate.redact import redact_seams
    sent = redact_seams([redact(question), redact(answer)])
    assert not any(value[i:i + 8] in sent[1] for i in range(max(1, len(value) - 7))), sent

@pytest.mark.parametrize('question,answer', [('what is the password variable called?', "It's `DB_PASSWORD`."),
                                             ('how do I print the vault password?', 'Run `pass show vault/db`.'),
                                             ('which version of the key rotation script?', '`v2.14.1`')])
def test_an_answer_to_what_a_credential_is_called_or_how_to_get_it_is_sent(question, answer):
    from memgate.redact import redact_seams
    assert redact_seams([question, answer])[1] == answer


def test_argvs_next_quoted_word_is_no_half_of_a_password():
    "`-p 'X' 'RETURN 1'`: two words of argv, not a literal continued."
    assert redact("cypher-shell -u neo4j -p 'Reefer1975*wb' 'RETURN 1'").endswith("' 'RETURN 1'")

def test_a_value_before_a_command_is_one_word():
    "`PGPASSWORD=x psql -h db`: the command after the environment's value is kept."
    assert redact('PGPASSWORD=Xk9#mQ2vLp7 psql -h db -U app') == 'PGPASSWORD=[REDACTED:password] psql -h db -U app'

def test_what_a_command_computes_with_a_key_is_a_mac_not_the_key():
    "`createHmac(key).update(body).digest('hex')` prints a MAC of the body: sent as it is."
    from memgate.redact import redact_seams
    cmd = ("Tool: Bash\n  command: node -e \"console.log(require('crypto').createHmac('sha256','whsec_LnHsWLPKEsRrgJP8"
           "q4klHVMk9BSt7zzo').update(p).digest('hex'))\"")
    mac = 'ef473a3647b841d998d2083916813f6070ee6f4b1b4378721e53405e401c29c9\n'
    assert redact_seams([cmd, mac])[1] == mac

def test_a_search_for_credentials_words_fetched_no_credential():
    "`rg -n \"password|token|secret\"` prints the lines it found, judged as text: its pattern's words fetched nothing."
    from memgate.redact import redact_seams
    call = 'Tool: Bash\n  command: rg -n "password|token|secret" src/ --max-count 3\n  description: Run rg'
    assert redact_seams([call, 'SLACK_CHANNEL=C0YCHXDG7R6\n'])[1] == 'SLACK_CHANNEL=C0YCHXDG7R6\n'
    fetched = 'Tool: Bash\n  command: vault kv get -field=password secret/db\n  description: Read it'
    assert redact_seams([fetched, 'Xk29fPeP9q7Z\n'])[1] != 'Xk29fPeP9q7Z\n'

def test_the_first_half_of_a_value_split_over_two_messages_is_taken_with_the_rest():
    "`alkuosa: e7db…` then `...ja loput: <rest>` (round 46): the rest is taken after its lead, and the first."
    from memgate.redact import redact, redact_seams
    a, b = 'token katkesi terminaalissa, alkuosa: e7db4390-42d8-42b7', '...ja loput: 9f5e-4a1b-8c2d3e4f5a6b'
    got = redact_seams([redact(a), redact(b)])
    assert 'e7db4390' not in got[0] and got[1].startswith('...ja loput: [REDACTED:'), got

def test_a_listing_that_names_a_generator_ran_nothing():
    "A `.env.example` saying `openssl rand` is no command: the tool call after it is not what it printed."
    from memgate.redact import redact_seams
    listing = '     8→JWT_SECRET=<generate with: openssl rand -hex 32>\n'
    call = 'Tool: Bash\n  command: git log -3\n  description: Check state'
    assert redact_seams([listing, call]) == [listing, call]
    assert redact_seams(['Tool: Bash\n  command: openssl rand -hex 12', 'f3a9c07e1d2b4a5c6d7e8f9a\n'])[1] != \
        'f3a9c07e1d2b4a5c6d7e8f9a\n'

@pytest.mark.parametrize('text,value', SECRETS)
def test_a_secret_is_taken_whole(text, value):
    sent = redact(text)
    assert value not in sent and '[REDACTED:' in sent, sent
    # (whole: no part of it is left beside the stand-in, nor eight of its characters the text around it lacks; the
    # stand-in's own words aside, `[REDACTED:django-secret-key]`)
    bare, around = re.sub(r'\[REDACTED:[^\]]*\]', '\0', sent), text.replace(value, '\0')
    assert not any(part in bare for part in re.split(r'[^A-Za-z0-9]+', value) if len(part) >= 5), sent
    assert not [w for w in (value[i:i + 8] for i in range(len(value) - 7)) if w in bare and w not in around], sent

@pytest.mark.parametrize('text', LOOK_ALIKES)
def test_a_look_alike_is_sent_as_written(text):
    assert redact(text) == text

def test_an_algorithms_word_before_a_key_keeps_no_key():
    "An OSPF key after `md5`, a licence after `serial`: the word says what the secret is, not that it is an id."
    for text in ('ip ospf message-digest-key 1 md5 Xk29qPz7LmN4vB8w', 'the serial is 223223-223226-22389B-457CDF.'):
        assert '[REDACTED:' in redact(text), redact(text)

def test_a_run_of_marks_before_a_value_is_read_once():
    "`=` is a mark and a copula both: a run of forty before a key was tried 2⁴⁰ ways (round 33's corpus hung)."
    import signal
    def stuck(*_): raise TimeoutError('redact did not return within 60 s')
    signal.signal(signal.SIGALRM, stuck)
    signal.alarm(60)
    key = 'Bs_ZcjfUcTBbThIb2nd5Bypxl26pP56U62B4V2bMjepDLA7D13W5itKSBZPY5EID5h'
    try: sent = redact('=' * 40 + f'\n\nPublic Key:\n{key}\n')
    finally: signal.alarm(0)
    assert sent.startswith('=' * 40)

def test_a_run_of_glued_words_is_judged_once_as_a_doubt():
    "Words glued with capitals (`AbAbAb…`): a first pattern of nested runs tried 2ⁿ ways and hung CI's audit."
    import signal
    from memgate.positions import shape_doubts
    def stuck(*_): raise TimeoutError('shape_doubts did not return within 60 s')
    signal.signal(signal.SIGALRM, stuck)
    signal.alarm(60)
    try: got = shape_doubts('Ab' * 40 + ' x ' + 'Ab' * 20000 + ' MumbaiChaiwala1972$')
    finally: signal.alarm(0)
    assert [(e - s) for s, e, _ in got] == [len('MumbaiChaiwala1972$')]

def test_words_a_reporting_call_is_given_are_a_message():
    "Drawn-looking words given to `t.Error(…)`, `t.Run(…)` or `it(…)` are a message or a test's name (cobra's tests)."
    for text in ('t.Error("expected unknown flag error")', 'it("renders empty table rows fine", () => {',
                 '  test "renders empty table rows fine", config do'):
        assert redact(text) == text
    assert redact('vault pass "fern plum ginger thistle"') != 'vault pass "fern plum ginger thistle"'

def test_yamls_next_item_is_no_half_of_the_value_before_it():
    "A list's item under a secret's value keeps its own name and its public value (a diff's `-` is first on its line)."
    anon = ('eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZSIsInJlZiI6InNveWV2cmR4YmpxaHBmZmx1amly'
            'Iiwicm9sZSI6ImFub24iLCJpYXQiOjE3MTIwMDAwMDAsImV4cCI6MjAyNzU3NjAwMH0.Ww020q14ExwNOY4YeuDSLrlNMZwp6lscMakrMOVZPtk')
    text = f'      CF_API_KEY: "44b1380b8a23d3abaaebeb1470bbc7a16d1af"\n      - "SUPABASE_ANON_KEY={anon}"'
    assert redact(text) == f'      CF_API_KEY: "[REDACTED:password]"\n      - "SUPABASE_ANON_KEY={anon}"'

def test_an_attributes_equals_and_quotes_are_no_part_of_its_value():
    "`value=\"…\"` after a secret's name in its paragraph: the value is taken inside its quotes, or kept."
    text = ('<appSettings>\n    <add key="GITHUB_CLIENT_ID" value="Iv23liKq7dV2pXu08LBm" />\n'
            '    <add key="PSCALE_PASSWORD" value="pscale_pw_H26V9GaSxnFfQtKr2b5eDW7PRGV3jRTvBI0z7WCx1ma" />\n'
            '</appSettings>')
    assert redact(text) == text.replace('pscale_pw_H26V9GaSxnFfQtKr2b5eDW7PRGV3jRTvBI0z7WCx1ma',
                                        '[REDACTED:cloud-token]')

def test_a_lock_word_is_looked_for_once_a_word():
    "A German compound's lock (`Zahlenschloss`) is tried at each word's start, not at each character: a 200 KB token."
    import signal
    from memgate.positions import lock_said_findings
    def stuck(*_): raise TimeoutError('lock_said_findings did not return within 60 s')
    signal.signal(signal.SIGALRM, stuck)
    signal.alarm(60)
    try: got = lock_said_findings('Qx' * 100_000 + ' das Zahlenschloss ist 49-96-66.')
    finally: signal.alarm(0)
    assert [(e - s) for s, e, _ in got] == [len('49-96-66')]

def test_a_commits_message_names_no_credential_its_log_prints():
    "`git commit -am 'Read bot tokens from env' && git log -1 --format=%H` prints a commit's id (round 47)."
    from memgate.redact import redact_seams
    call = "Tool: Bash\n  command: git commit -am 'Read bot tokens from env' && git log -1 --format=%H"
    sha = '8134167a3b5e2a7dc0515016609b84deb3fc90eb\n'
    assert redact_seams([call, sha])[1] == sha

def test_a_list_of_codes_in_a_sentence_ends_with_it():
    "`… son: 6h2l-drl8 jdg0-v94p. El PIN …`: the next sentence's IBAN is no code (round 47)."
    text = ('Los códigos de recuperación son: 7k2m-drq8 jdh0-v95p. El PIN del portal es privado. '
            'IBAN de ejemplo para tests: DE89 3704 0044 0532 0130 00')
    sent = redact(text)
    assert '7k2m-drq8' not in sent and sent.endswith('IBAN de ejemplo para tests: DE89 3704 0044 0532 0130 00'), sent

def test_a_found_values_encodings_are_known_with_it():
    "`echo -n X | base64` prints base64 of X, `quote(X)` its URL form: known with X, they are taken (round 48)."
    import base64
    from urllib.parse import quote
    from memgate.redact import KnownSecrets, redact
    v = 'my kettle ate 14 lemons, truly!'
    known = KnownSecrets({v: 'command-credential'}, b'k')
    for form in (base64.b64encode(v.encode()).decode(), quote(v, safe='')):
        assert redact(f'[ToolResult] {form}\n', known=known) == '[ToolResult] [REDACTED:command-credential]\n'

def test_a_references_default_is_cut_to_it():
    "`${DB_PASSWORD:-X}`: the operator and the brace are no part of the value (round 48)."
    assert redact('PASS=${DB_PASSWORD:-Xk9#mQ2vLp7}') == 'PASS=${DB_PASSWORD:-[REDACTED:prose-password]}'

def test_a_phrase_shaped_as_a_passphrase_is_named_for_review():
    "Words, a number and a mark, quoted or a value's line's rest, are a doubt `memgate secrets` lists (round 48)."
    from memgate.positions import passphrase_doubts
    text = 'auth("Heron Kettle 1987.")\nKEY=my kettle ate 14 lemons, truly!\nprint("Hello, world")\n'
    named = [text[s:e] for s, e, _ in passphrase_doubts(text)]
    assert named == ['Heron Kettle 1987.', 'my kettle ate 14 lemons, truly!']


def test_a_tools_call_and_its_output_cut_no_value_between_them():
    "`description: md5`, then `ba72e64b…  media/logo.png`: two authors' texts, no hash across them (round 52)."
    from memgate.redact import redact_seams
    call = '[Assistant] Tool: Bash\n  command: md5sum media/logo.png\n  description: md5'
    output = '[ToolResult] ba72e64b3409626c0fe3ddb04a55b560  media/logo.png\n'
    assert redact_seams([call, output]) == [call, output]


def test_a_store_printed_by_a_tool_is_a_store():
    "An agent's Read of `k8s/secret.yaml`, or `cat secrets.toml`: what it prints is the store's (round 54)."
    from memgate.redact import redact_seams
    call = 'Tool: Read\n  file_path: /home/ana/box/k8s/secret.yaml'
    output = '     1→kind: Secret\n     2→stringData:\n     3→  vnc: NVnQNsMv\n     4→  namespace: rocketry\n'
    assert redact_seams([call, output])[1] == output.replace('NVnQNsMv', '[REDACTED:config-credential]')
    other = 'Tool: Read\n  file_path: /home/ana/box/k8s/deploy.yaml'
    assert redact_seams([other, output])[1] == output

def test_drawn_words_and_a_generators_marks_are_named_for_review():
    "A passphrase's words after a credential's word, a seed in a cell, a token of mixed marks: doubts (round 54)."
    from memgate.positions import drawn_word_doubts, marked_token_doubts
    text = ('The user gave the legacy admin credential opal walnut velvet tundra?; I should\n'
            '| KeePass | admin | lagoon 21 maple thistle willow... |\n'
            'ERROR could not connect using y_L>qYvwrR+G(Li,~dgum: timeout\n'
            'we fixed the build and ran the tests\n- avoid full file contents unless necessary\n'
            'self.assertEqual(a,b)\n')
    named = [text[s:e] for s, e, _ in drawn_word_doubts(text) + marked_token_doubts(text)]
    assert named == ['opal walnut velvet tundra?', 'lagoon 21 maple thistle willow...', 'y_L>qYvwrR+G(Li,~dgum']


def test_a_found_values_hex_is_known_with_it():
    "`echo 486f6e… | xxd -r -p` prints the text the hex spells: known once the hex is (round 55)."
    from memgate.redact import decoded_forms
    assert decoded_forms('486f6e65794372696d736f6e383439313f') == ['HoneyCrimson8491?']
    assert decoded_forms('9f86d081884c7d659a2feaa0c55ad015') == []


# two records, the second judged with the first before it: (first, second, the second as sent)
SEAMS = [
    # `cat ansible.cfg .vault_pass` prints the secret file last: its line is the output's last (round 62)
    ('Tool: Bash\n  command: cat ansible.cfg .vault_pass\n  description: Inspect ansible vault config',
     '[defaults]\ninventory = inventory\nvault_password_file = ~/.vault_pass\noyster-yarrow-cobalt-lizard\n',
     '[defaults]\ninventory = inventory\nvault_password_file = ~/.vault_pass\n[REDACTED:password]\n'),
    # `cat /etc/postfix/sasl_passwd` prints `[host]:587 user:X`; `cat ~/vpn/auth.txt` its user, then X (round 59)
    ('Tool: Bash\n  command: sudo cat /etc/postfix/sasl_passwd',
     '[smtp.eu.mailgun.org]:587 postmaster@mg.example.co:Z1nn14#Sequoia532\n',
     '[smtp.eu.mailgun.org]:587 postmaster@mg.example.co:[REDACTED:password]\n'),
    ('Tool: Bash\n  command: cat ~/vpn/auth.txt', 'vpnuser\nOyster_Lichen09?\n', 'vpnuser\n[REDACTED:password]\n'),
    # `sshpass -p X ssh … 'restart …'` prints the other command's log, no credential (round 59)
    ('Tool: shell\n  command: ["bash", "-lc", "sshpass -p \'df.XC~lRs6=D.o0OTe\' ssh d@10.4.0.2 \'restart x\'"]',
     '(exit 0)\n2025-10-14T03:51:00Z INFO  asset_tag=ASSET-LXVWGBO9S2 handled in 475ms\n',
     '(exit 0)\n2025-10-14T03:51:00Z INFO  asset_tag=ASSET-LXVWGBO9S2 handled in 475ms\n'),
    # `is our SFTP password still valid?`, then the next record says its value (round 58); a question of
    # nothing secret names none
    ('[User] is our SFTP password still valid? something about SFTP is off',
     '[Assistant] (reasoning) **Investigating failure**\n\nThe value in the env is `Stroopwafel-1991`.',
     '[Assistant] (reasoning) **Investigating failure**\n\nThe value in the env is `[REDACTED:prose-credential]`.'),
    ('[User] which colour does the logo use?', 'The value in the env is `Stroopwafel-1991`.',
     'The value in the env is `Stroopwafel-1991`.'),
    # a stand-in given to a name is no word the command said: `docker run -d -e KEY=…` prints an id; one
    # the command reads still is, what it prints that credential decoded (round 60)
    ('Tool: shell\n  command: ["bash", "-lc", "docker run -d -e MEILI_MASTER_KEY=[REDACTED:password] '
     'getmeili/meilisearch:v1.8"]', '(exit 0)\ned360796998b89100e162ae937360640e07f5074204a286c08b8cce825fc4601\n',
     '(exit 0)\ned360796998b89100e162ae937360640e07f5074204a286c08b8cce825fc4601\n'),
    ('Tool: Bash\n  command: echo [REDACTED:password] | base64 -d\n  description: Decode it', 'Limonero-381Raven\n',
     '[REDACTED:password]\n'),
]

@pytest.mark.parametrize('first,second,sent', SEAMS)
def test_a_record_is_judged_with_the_one_before_it(first, second, sent):
    from memgate.redact import redact_seams
    assert redact_seams([first, second])[1] == sent


def test_an_accounts_iban_is_kept_and_named_for_review():
    "Round 60's IBANs, digits mostly, were neither taken nor named: each is named by its check digits."
    from memgate.redact import random_review, CHECKED_ID, IBAN_UNCHECKED
    for text, why in [('Zahlungen gehen an DE89826259592052337970, danke', IBAN_UNCHECKED),
                      ('payouts: IBAN DE89370400440532013000 (Commerzbank)', CHECKED_ID)]:
        iban = re.search(r'DE\d{20}', text)
        assert redact(text) == text
        assert (*iban.span(), why) in random_review(text, b'k' * 32)


def test_a_value_a_sentence_says_with_no_credentials_word_is_named_for_review(tmp_path):
    "`… was 0876`, `usa 7230`, a seed a copula says: no word names them, `memgate secrets` lists them (round 61)."
    from memgate.audit import audit, audit_text
    from memgate.projects import load_project
    from synth import cc, write_jsonl
    text = ('The SIM card value I saw earlier was 0876; staging uses the same one.\n'
            'para Qonto card usa 7230, es el nuevo\nThe PKCS#12 value I saw earlier was Tofu2512.\n'
            "La phrase pour Ledger reste reef horizon pigeon glacier sunset nectar walnut jusqu'à lundi\n"
            'It was 2024 then; the timeout is 3000 ms; the entry is main.py.\n')
    write_jsonl(tmp_path / 'p' / 'a.jsonl', [cc('user', '2026-01-01T10:00:00.000Z', text, sid='A')])
    report = audit_text(audit(load_project(tmp_path / 'p')), every=True)
    for shown in ('0876…(4 chars)', '7230…(4 chars)', 'Tofu…(8 chars)', 'reef…(48 chars)'):
        assert shown in report, (shown, report)
    assert not any(f'{v}…' in report for v in ('2024', '3000', 'main')), report


def test_a_fetched_env_files_lines_are_judged_by_their_names_and_a_vault_printed_after_a_secret_file_is_kept():
    "`doppler secrets download --format env` prints `NAME=value` lines; `cat .vault_pass; head vault.yml` (round 64)."
    from memgate.redact import redact_seams
    call = 'Tool: Bash\n  command: doppler secrets download --no-file --format env --config prd'
    out = 'API_TOKEN="hunter2-but-not-really"\nRATE_LIMIT_PER_MIN="120"\n'
    assert redact_seams([call, out]) == [call, out]
    call = 'Tool: Bash\n  command: cat ansible/.vault_pass; head -4 ansible/group_vars/all/vault.yml'
    vault = '$ANSIBLE_VAULT;1.1;AES256\n8d1e6109d2abc184605e1d315e20047017d3fba567265922642e8b7457d2b511\n'
    assert redact_seams([call, 'pixel-maple-saffron-cedar\n' + vault])[1] == '[REDACTED:password]\n' + vault
    # (base64's padding is no `NAME=value`: what a fetch prints first is still its credential)
    call = "Tool: Bash\n  command: kubectl get secret db -n app -o jsonpath='{.data.password}'"
    assert redact_seams([call, 'TGltb25lcm8tMzgxUmF2ZW4='])[1] == '[REDACTED:password]'


def test_a_secret_found_in_base64_with_slashes_spreads():
    "A cookie's value, its base64 cut by `/`, is no path: found once, it is taken in the header beside it (round 64)."
    from memgate.redact import spreads
    assert spreads('rnwe5jqL5TzMugsV1Gi/YNsGbwABpQIfe1TyVfNaF6zL3sgI36Q79IAmFuJqmS4zRG4FgVE/BTgVk7RJ--52475e6caae74b32')
    assert not spreads('src/components/Button2.tsx') and not spreads('docs/api/v2/reference')


def test_words_joined_with_a_number_on_a_line_naming_a_credential_are_a_doubt():
    "`Hasło do routera zmieniłem na monsoon-crystal-satin4.` leaked unnamed: its shape read as a name (round 65)."
    from memgate.positions import line_doubts
    text = 'Hasło do routera zmieniłem na monsoon-crystal-satin4.\nthe password_reset handler in auth-service-v2'
    assert [text[s:e] for s, e, _ in line_doubts(text)] == ['monsoon-crystal-satin4']

def test_a_secret_files_passphrase_printed_amid_other_files_is_taken():
    "Round 68: `cat prod.ini all.yml .vault_pass; head vault.yml` printed its passphrase mid-output, and it was sent."
    from memgate.redact import printed_secrets
    command = 'command: cat inventory/prod.ini group_vars/all.yml .vault_pass; head -2 group_vars/vault.yml'
    output = ('ntp_servers: [0.pool.ntp.org, 1.pool.ntp.org]\nember cedar cobalt lantern 26\n'
              '$ANSIBLE_VAULT;1.1;AES256\n7d2789eae0ff40dc59c6c07fabe921a541bf7110feed7c537997036d9f893e48a9a1968e70ae\n')
    assert [output[s:e] for s, e, _ in printed_secrets(command, output)] == ['ember cedar cobalt lantern 26']

def test_a_command_that_prints_nothing_names_nothing_printed():
    "Round 69: `grep github.com ~/.ssh/known_hosts | head -1; shred -u /tmp/ci_deploy_key` printed a host's public key."
    from memgate.redact import fetched_secret
    command = 'command: ["bash", "-lc", "grep github.com ~/.ssh/known_hosts | head -1; shred -u /tmp/ci_deploy_key"]'
    out = 'github.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl\n'
    assert fetched_secret(command, out) == []
    assert fetched_secret('command: op read op://Eng/db/password', 'Xk9vQ2pLm7Rzz8Ab3\n') == [(0, 17, 'password')]

def test_a_patchs_mark_before_a_name_is_no_part_of_its_value():
    "Round 69: `+SECRET_X=…` in a diff was one random run with its name: the name went, as the value did."
    assert redact('x\n+SECRET_X=Xk9vQ2pLm7Rzz8Ab3yy\n') == 'x\n+SECRET_X=[REDACTED:password]\n'

@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7e, blacklist_characters='"\'\\`$'),
               min_size=8, max_size=40))
def test_a_command_in_exec_form_gives_exactly_its_credential(value):
    "Round 69: `[\"redis-server\", \"--requirepass\", \"…\"]` was sent; what is found maps into its argument only."
    from memgate.positions import exec_argv_findings
    text = f'  command: ["redis-cli", "-h", "cache", "-a", "{value}", "ping"]'
    # (exactly the value or nothing, a stand-in's `00000000` or a flag's `-x`: never a character beside it)
    assert [text[s:e] for s, e, _ in exec_argv_findings(text)] in ([], [value])

def test_a_pipes_last_stage_prints_no_file_and_the_calls_next_line_is_none():
    "Round 73: `… | head -1` ended its line; the call's next, `description: Upload secrets`, was read as its files."
    from memgate.redact import printed_secret_file
    command = ("[Assistant] Tool: Bash\n  command: VONAGE_API_SECRET='njXh9g9u58kjGUDg' make test && \\\n"
               "      grep -o 'G-[A-Z0-9]*' public/index.html | head -1\n  description: Upload secrets\n")
    assert printed_secret_file(command, 'ok\nok\nG-PNDZ4LO0ZU\n') == []
    assert printed_secret_file('command: head -1 secrets.txt', 'G-PNDZ4LO0ZU\n') == [(0, 12, 'password')]

def test_a_short_draw_pasted_below_a_colon_is_named_for_review():
    "Round 74: `here:⏎⏎snHy65QQ` (a VNC password, eight characters) was sent and named nowhere."
    from memgate.positions import short_token_doubts
    text = 'here:\n\nsnHy65QQ\n'
    assert [text[s:e] for s, e, _ in short_token_doubts(text)] == ['snHy65QQ']
    assert short_token_doubts('here:\n\nnpm test\n') == []

def test_a_token_pasted_alone_below_a_colon_or_as_a_whole_message_is_named_for_review():
    "Round 75: `pasting what Marek sent me:⏎<uuid>` and a message of one UUID were sent and named nowhere."
    from memgate.positions import pasted_doubts
    for text in ('pasting what Marek sent me:\n18fb9e0d-733e-4541-b9ba-99e9b1009955',
                 '39578b03-1100-4785-975d-38fcccd32900'):
        assert [text[s:e] for s, e, _ in pasted_doubts(text)] == [text.split('\n')[-1]]
    assert pasted_doubts('services:\n  postgres:\n    image: x\nRun:\n\nnpm install\n') == []

def test_a_recovery_codes_groups_and_a_one_case_key_of_marks_are_named_for_review():
    "Round 76: `try 3jqm5-7bo1h` and Django's key in a traceback's call (`key=\")g9sl…%+\"`) were named nowhere."
    from memgate.positions import marked_token_doubts, short_token_doubts
    text = 'ok\ntry 3jqm5-7bo1h\n'
    assert [text[s:e] for s, e, _ in short_token_doubts(text)] == ['3jqm5-7bo1h']
    call = '    open_session(url="https://api.internal", key=")g9slykuuju%xf%2q!e^u4qgp6!c*z@f7tr#-1lsg@r07)21%+")'
    key = ')g9slykuuju%xf%2q!e^u4qgp6!c*z@f7tr#-1lsg@r07)21%+'
    assert [call[s:e] for s, e, _ in marked_token_doubts(call)] == [key]
    assert marked_token_doubts('key="%Y-%m-%d %H:%M:%S" see src/app/v1/x_y.py') == []

def test_a_prose_password_ends_at_a_full_width_mark():
    "Round 78: a value said in Chinese took the rest of the line with it (`密码是 …，不要提交到仓库。`)."
    text = 'Django 的密码是 ah+cxy-^s2)(b2mtz8od@ilg7xznlh0q5j5l_2lzym7eu4%m_^，不要提交到仓库。'
    assert redact(text).endswith(']，不要提交到仓库。') and 'ah+cxy' not in redact(text)

def test_a_one_case_draw_after_a_name_leaves_the_name():
    "Round 79's fix: a Django key after `key=` is taken, `key=` is sent (a redaction never takes the key's name)."
    sent = redact('ERROR auth failed for key=e&8$c_6^xth-ohjn(%bp3ip$-rnwf+9vdlc0x47&e9i%p62_d) (status=401)')
    assert sent.startswith('ERROR auth failed for key=[REDACTED:') and sent.endswith('] (status=401)'), sent

def test_a_token_ending_the_first_or_the_last_line_after_a_lead_of_words_is_named_for_review():
    "Rounds 81 and 83: `new one: <uuid>⏎old one is revoked`, `why 401?⏎⏎ok use this: <uuid>` were named nowhere."
    from memgate.positions import pasted_doubts
    for text in ('new one: e123442f-59b6-4bce-99f1-56755751787b\nold one is revoked',
                 'why does raven return 401 in staging?\n\nok use this: 2b9c22ca-d0cc-4ea3-953c-045d95453b86'):
        assert [text[s:e] for s, e, _ in pasted_doubts(text)] == [re.search(r'\w{8}-[\w-]{27}', text)[0]]
    assert pasted_doubts('image: nginx:1.25-alpine\nports: 8080') == []
    assert pasted_doubts('services:\n  web:\n    image: nginx:1.25-alpine') == []
