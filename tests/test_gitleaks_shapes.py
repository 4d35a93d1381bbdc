"""memgate's own rules take the shapes of gitleaks' rule set (issue 26): 621 random samples of 207 of its rules
(`tests/data/gitleaks_shapes.jsonl`, made by `bench/gitleaks_shapes.py` from gitleaks' `config/gitleaks.toml`, each
a string its rule's regex matches and reports), redacted by memgate's defaults, without any `--secret-rules`: at least
90% of the rules have every sample's secret gone. gitleaks' file itself is not shipped; given as MEMGATE_GITLEAKS_TOML
it is loaded unchanged as `--secret-rules`, and then every sample goes."""
import json, os
from pathlib import Path
import pytest
from memgate.redact import redact
from memgate.rules import RULES_ENV

SAMPLES = [json.loads(line) for line in (Path(__file__).parent / 'data' / 'gitleaks_shapes.jsonl').open()]

def leaked(text: str, secret: str) -> bool:
    "Whether any 12-character piece of `secret` (all of a shorter one) is left in `text`."
    if len(secret) <= 12: return secret in text
    return any(secret[i:i + 12] in text for i in range(len(secret) - 11))

def not_fully_redacted() -> set[str]:
    return {s['rule'] for s in SAMPLES if leaked(redact(s['text']), s['secret'])}

def test_memgates_defaults_fully_redact_nine_in_ten_of_gitleaks_rule_shapes(monkeypatch):
    monkeypatch.delenv(RULES_ENV, raising=False)
    rules = {s['rule'] for s in SAMPLES}
    bad = not_fully_redacted()
    print(f"\n{len(rules) - len(bad)} of {len(rules)} rule shapes fully redacted; not: {' '.join(sorted(bad))}")
    assert len(SAMPLES) >= 600 and len(rules) >= 200
    assert (len(rules) - len(bad)) / len(rules) >= 0.90

@pytest.mark.skipif(not os.environ.get('MEMGATE_GITLEAKS_TOML'),
                    reason="gitleaks' config/gitleaks.toml is not shipped: set MEMGATE_GITLEAKS_TOML to its path")
def test_gitleaks_own_file_as_secret_rules_redacts_every_sample(monkeypatch):
    monkeypatch.setenv(RULES_ENV, os.environ['MEMGATE_GITLEAKS_TOML'])
    assert not_fully_redacted() == set()
