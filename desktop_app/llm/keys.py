"""Where the Anthropic API key comes from, and how it is kept out of everything a user or a log sees.

Why: DESIGN.md §6 says the key comes from ``ANTHROPIC_API_KEY`` or the OS keyring and never goes into
session files, logs or error messages. SDK and transport errors can echo request details, so every
error text that leaves the provider is passed through :func:`redact` first.

The keyring is optional: a machine without a usable backend (headless CI, a locked keychain, a broken
D-Bus) simply has no stored key, it is never an error.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

__all__ = [
    "ENV_VAR",
    "KEYRING_SERVICE",
    "KEYRING_USERNAME",
    "REDACTED",
    "delete_api_key",
    "get_api_key",
    "redact",
    "store_api_key",
]

ENV_VAR = "ANTHROPIC_API_KEY"
KEYRING_SERVICE = "arbor"
KEYRING_USERNAME = "anthropic"
REDACTED = "[redacted]"

# Anthropic keys (sk-ant-api03-…, sk-ant-oat01-…): redacted even when they are not *our* key, since a
# key pasted into a prompt or a proxy's error page is just as secret.
_ANTHROPIC_KEY = re.compile(r"sk-ant-[A-Za-z0-9_\-]{8,}")


def get_api_key(env: Mapping[str, str] | None = None, *, use_keyring: bool = True) -> str | None:
    """The API key: ``$ANTHROPIC_API_KEY`` if set and non-blank, else the keyring entry, else ``None``."""
    environ = os.environ if env is None else env
    key = (environ.get(ENV_VAR) or "").strip()
    if key:
        return key
    if not use_keyring:
        return None
    try:
        import keyring

        stored = keyring.get_password(KEYRING_SERVICE, KEYRING_USERNAME)
    except Exception:  # any backend failure means "no stored key"
        return None
    stored = (stored or "").strip()
    return stored or None


def store_api_key(key: str) -> bool:
    """Save the key in the OS keyring. Returns False (never raises) when no backend can store it."""
    try:
        import keyring

        keyring.set_password(KEYRING_SERVICE, KEYRING_USERNAME, key.strip())
    except Exception:
        return False
    return True


def delete_api_key() -> bool:
    """Remove the stored key. Returns False when there was none or the backend refused."""
    try:
        import keyring

        keyring.delete_password(KEYRING_SERVICE, KEYRING_USERNAME)
    except Exception:
        return False
    return True


def redact(text: str, key: str | None = None) -> str:
    """``text`` with ``key`` and anything shaped like an Anthropic key replaced by ``[redacted]``."""
    if key:
        text = text.replace(key, REDACTED)
    return _ANTHROPIC_KEY.sub(REDACTED, text)
