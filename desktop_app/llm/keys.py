"""Where the Anthropic API key comes from, and how it is kept out of everything a user or a log sees.

Why: DESIGN.md §6 says the key comes from ``ANTHROPIC_API_KEY`` or the OS keyring and never goes into
session files, logs or error messages. SDK and transport errors can echo request details, so every
error text that leaves the provider is passed through :func:`redact` first.

The keyring is optional: a machine without a usable backend (headless CI, a locked keychain, a broken
D-Bus) simply has no stored key, it is never an error.
"""

from __future__ import annotations

import json
import os
import re
import urllib.parse
from collections.abc import Mapping

__all__ = [
    "ENV_VAR",
    "InvalidApiKeyError",
    "KEYRING_SERVICE",
    "KEYRING_USERNAME",
    "REDACTED",
    "delete_api_key",
    "get_api_key",
    "redact",
    "store_api_key",
    "validate_api_key",
]

ENV_VAR = "ANTHROPIC_API_KEY"
KEYRING_SERVICE = "arbor"
KEYRING_USERNAME = "anthropic"
REDACTED = "[redacted]"

# Anthropic keys (sk-ant-api03-…, sk-ant-oat01-…): redacted even when they are not *our* key, since a
# key pasted into a prompt or a proxy's error page is just as secret.
_ANTHROPIC_KEY = re.compile(r"sk-ant-[A-Za-z0-9_\-]{8,}")


class InvalidApiKeyError(ValueError):
    """The configured key cannot be a real key (it holds a control character); the text says where."""


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def validate_api_key(key: str, source: str) -> str:
    """``key`` if usable; a key with a control character (a pasted newline, say) is refused.

    Such a key would be rejected by the HTTP layer with an error that quotes it, escaped, so it must
    never get that far. The error names the source, never the key.
    """
    if _CONTROL.search(key):
        raise InvalidApiKeyError(
            f"The API key from {source} contains a control character (such as a line break); "
            "paste it again as one line"
        )
    return key


def get_api_key(env: Mapping[str, str] | None = None, *, use_keyring: bool = True) -> str | None:
    """The API key: ``$ANTHROPIC_API_KEY`` if set and non-blank, else the keyring entry, else ``None``.

    Raises :class:`InvalidApiKeyError` for a key with a control character inside.
    """
    environ = os.environ if env is None else env
    key = (environ.get(ENV_VAR) or "").strip()
    if key:
        return validate_api_key(key, ENV_VAR)
    if not use_keyring:
        return None
    try:
        import keyring

        stored = keyring.get_password(KEYRING_SERVICE, KEYRING_USERNAME)
    except Exception:  # any backend failure means "no stored key"
        return None
    stored = (stored or "").strip()
    return validate_api_key(stored, "the system keyring") if stored else None


def store_api_key(key: str) -> bool:
    """Save the key in the OS keyring. Returns False (never raises) when no backend can store it."""
    validate_api_key(key.strip(), "the key given")
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


def _escaped_forms(key: str) -> list[str]:
    """Every way ``key`` can appear in text: raw, JSON-escaped, Python repr (str and bytes), URL-encoded."""
    forms = {
        key,
        json.dumps(key)[1:-1],
        json.dumps(key, ensure_ascii=False)[1:-1],
        repr(key)[1:-1],
        repr(key.encode("utf-8", "backslashreplace"))[2:-1],
        key.encode("unicode_escape").decode("ascii"),
        urllib.parse.quote(key, safe=""),
        urllib.parse.quote_plus(key),
    }
    # Longest first, so a form that contains another is replaced whole.
    return sorted((f for f in forms if f), key=len, reverse=True)


def redact(text: str, key: str | None = None) -> str:
    """``text`` with ``key`` (in every escaped form) and anything shaped like an Anthropic key replaced
    by ``[redacted]``."""
    if key:
        for form in _escaped_forms(key):
            text = text.replace(form, REDACTED)
    return _ANTHROPIC_KEY.sub(REDACTED, text)
