"`memgate --help` and `memgate verify` start without the heavy modules (issue 13): no tokenizer, pandas or plots."
import subprocess, sys
import pytest
from conftest import FIXTURES
from helpers import clean_env

HEAVY = ('tiktoken', 'pandas', 'matplotlib', 'httpx')
PROBE = """
import contextlib, io, sys
from memgate.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    try: code = main(sys.argv[1:])
    except SystemExit as e: code = e.code
print(code, sorted(m for m in {heavy} if m in sys.modules))
"""

@pytest.mark.parametrize('args', [['--help'], ['verify', str(FIXTURES / 'runs' / 'scripted')]])
def test_help_and_verify_import_nothing_heavy(args):
    r = subprocess.run([sys.executable, '-c', PROBE.format(heavy=HEAVY), *args], capture_output=True, text=True,
                       env=clean_env(), timeout=60)
    assert r.stdout.split('\n')[-2] == '0 []', r.stdout + r.stderr
