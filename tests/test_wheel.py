"The built wheel carries templates/ (the prompt, the answer template, the shipped queries) as memgate/templates/."
import site, subprocess, sys, sysconfig, zipfile
from pathlib import Path
from conftest import FIXTURES, ROOT
from helpers import clean_env

def lend_packages(venv: Path):
    """Let the venv at `venv` import this interpreter's packages, wherever they are installed.

    `venv --system-site-packages` would lend the *base* interpreter's packages, which inside a user's venv, a conda
    env or a uv env are not the ones installed: the wheel's import failed there. A `.pth` file lists this
    interpreter's own package folders instead. Its lines are plain paths, so the `.pth` files in those folders are
    not run, and memgate's editable install of the checkout stays out: memgate comes from the wheel only."""
    ours = dict.fromkeys([sysconfig.get_paths()['purelib'], sysconfig.get_paths()['platlib'], *site.getsitepackages()])
    (theirs,) = (venv / 'lib').glob('python*/site-packages')
    (theirs / 'lent.pth').write_text(''.join(f'{d}\n' for d in ours if Path(d).is_dir()))

def test_the_wheel_ships_the_templates_and_memgate_prompt_runs_from_outside_the_checkout(tmp_path):
    subprocess.run([sys.executable, '-m', 'pip', 'wheel', '-q', '--no-deps', '--no-build-isolation', '-w',
                    tmp_path / 'wheel', ROOT], check=True, capture_output=True, env=clean_env())
    (wheel,) = (tmp_path / 'wheel').glob('memgate-*.whl')
    shipped = sorted(n for n in zipfile.ZipFile(wheel).namelist() if n.startswith('memgate/templates/'))
    names = ('answer.txt', 'gru-mem.txt', 'queries.toml', 'secret-rules.toml')
    assert shipped == [f'memgate/templates/{n}' for n in names]
    for n in names:                                            # byte for byte the checkout's
        assert zipfile.ZipFile(wheel).read(f'memgate/templates/{n}') == (ROOT / 'templates' / n).read_bytes()
    venv = tmp_path / 'venv'                   # its dependencies from this interpreter's, memgate from the wheel only
    subprocess.run([sys.executable, '-m', 'venv', '--without-pip', venv], check=True)
    lend_packages(venv)
    py = venv / 'bin' / 'python'
    subprocess.run([sys.executable, '-m', 'pip', '--python', py, 'install', '-q', '--no-deps', '--no-index', wheel],
                   check=True, capture_output=True)
    outside = tmp_path / 'elsewhere'
    outside.mkdir()
    where = subprocess.run([py, '-c', 'from memgate.domain import templates_dir; print(templates_dir())'], cwd=outside,
                           capture_output=True, text=True, env=clean_env(), check=True).stdout.strip()
    assert Path(where).is_relative_to(venv) and Path(where).name == 'templates', where
    r = subprocess.run([venv / 'bin' / 'memgate', 'prompt', '--project', FIXTURES / 'transcripts', '--query',
                        'infra-root-causes', '--chunk', '1'], cwd=outside, capture_output=True, text=True,
                       env=clean_env())
    template = (ROOT / 'templates' / 'gru-mem.txt').read_text()
    assert r.returncode == 0 and r.stdout.startswith(template[:template.index('{')]), r.stderr
