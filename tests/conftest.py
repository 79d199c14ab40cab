"""Suite-wide isolation: no test touches the real home directory (DESIGN.md §9)."""

from __future__ import annotations

import gc
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.pop("ANTHROPIC_API_KEY", None)


@pytest.fixture(scope="session")
def _homes_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("homes", numbered=False)


@pytest.fixture(autouse=True)
def _isolated_homes(_homes_root: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    # mkdtemp, not tmp_path_factory.mktemp: a numbered mktemp lists the whole base folder to pick its
    # number, ~4 ms a call once a worker has made 2,700 of them (7 s of a run), and every tmp_path after
    # them listed those too.
    home = Path(tempfile.mkdtemp(prefix="arbor-home-", dir=_homes_root))
    monkeypatch.setenv("ARBOR_HOME", str(home))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(home / "pi-agent"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / "claude"))  # Claude Code's transcripts (issue 27)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    yield


@pytest.fixture(scope="session", autouse=True)
def _private_tmp() -> Iterator[None]:
    with tempfile.TemporaryDirectory(prefix="arbor-tests-") as tmp:
        os.environ.setdefault("XDG_RUNTIME_DIR", tmp)
        Path(tmp).chmod(0o700)
        yield


@pytest.fixture(scope="session", autouse=True)
def _imports_frozen() -> None:
    """Everything imported for the run (Qt, the SDK, every test module: ~200,000 objects) is frozen
    once, before the first test, as the app freezes what a loaded session holds (``gui_gc``): the
    interpreter's full collections then walk only what tests made (they were 13 s of a run)."""
    gc.collect()
    gc.freeze()

