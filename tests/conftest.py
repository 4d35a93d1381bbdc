"Shared helpers for memgate's integration tests."
import asyncio
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / 'fixtures'

def run(coro):
    "Run a coroutine to completion (the tests need no pytest-asyncio)."
    return asyncio.run(coro)

@pytest.fixture
def fixtures(): return FIXTURES
