"""Where the Anthropic API key comes from, and how it is kept out of everything a user or a log sees.

Why: DESIGN.md §6 says the key comes from ``ANTHROPIC_API_KEY`` or the OS keyring and never goes into
session files, logs or error messages. SDK and transport errors can echo request details, so every
error text that leaves the provider is passed through :func:`redact` first.

The keyring is optional: a machine without a usable backend (headless CI, a locked keychain, a broken
D-Bus) simply has no stored key, it is never an error. The Settings dialog then says why
(:func:`keyring_problem`) and can keep a key in memory for this run only (:func:`use_key_for_this_run`):
it is never written anywhere as a fallback.
"""

from __future__ import annotations

import json
import os
import re
import urllib.parse
from collections.abc import Mapping
from typing import Literal

__all__ = [
    "ENV_VAR",
    "InvalidApiKeyError",
    "KEYRING_SERVICE",
    "KeySource",
    "KeyringUnavailableError",
    "KEYRING_USERNAME",
    "REDACTED",
    "delete_api_key",
    "forget_key_for_this_run",
    "get_api_key",
    "key_source",
    "keyring_problem",
    "redact",
    "save_api_key",
    "store_api_key",
    "use_key_for_this_run",
    "validate_api_key",
]

KeySource = Literal["env", "memory", "keyring"] | None
"""Where the key in use comes from: the environment, memory (this run only), the keyring, or none."""

_run_key: str | None = None
"""A key kept for this run only (the keyring was not available); never written anywhere."""


class KeyringUnavailableError(RuntimeError):
    """No keyring backend can store the key; the text says why (never holds the key)."""

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
    if _run_key:
        return _run_key
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
    try:
        save_api_key(key)
    except KeyringUnavailableError:
        return False
    return True


def save_api_key(key: str) -> None:
    """Save the key in the OS keyring, or raise :class:`KeyringUnavailableError` saying why.

    Raises :class:`InvalidApiKeyError` for an empty key or one with a control character.
    """
    cleaned = key.strip()
    if not cleaned:
        raise InvalidApiKeyError("The API key is empty")
    validate_api_key(cleaned, "the key given")
    problem = keyring_problem()
    if problem is not None:
        raise KeyringUnavailableError(problem)
    try:
        import keyring

        keyring.set_password(KEYRING_SERVICE, KEYRING_USERNAME, cleaned)
    except Exception as exc:
        raise KeyringUnavailableError(redact(f"The keyring refused the key: {exc}", cleaned)) from None
    forget_key_for_this_run()


def keyring_problem() -> str | None:
    """Why no key can be stored in the OS keyring (``None`` when a usable backend is there)."""
    try:
        import keyring
        from keyring.backends import fail

        backend = keyring.get_keyring()
    except Exception as exc:
        return f"the keyring could not be loaded ({type(exc).__name__})."
    if isinstance(backend, fail.Keyring):
        return "no keyring service was found (on Linux: GNOME Keyring or KWallet, reached through D-Bus)."
    priority = getattr(backend, "priority", 1)
    if isinstance(priority, (int, float)) and priority <= 0 and type(backend).__name__ != "ChainerBackend":
        return f"the only keyring found ({type(backend).__name__}) cannot keep secrets."
    return None


def key_source(env: Mapping[str, str] | None = None) -> KeySource:
    """Where :func:`get_api_key` would take the key from (the dialog says it); never raises."""
    environ = os.environ if env is None else env
    if (environ.get(ENV_VAR) or "").strip():
        return "env"
    if _run_key:
        return "memory"
    try:
        import keyring

        stored = keyring.get_password(KEYRING_SERVICE, KEYRING_USERNAME)
    except Exception:
        return None
    return "keyring" if (stored or "").strip() else None


def use_key_for_this_run(key: str) -> None:
    """Keep ``key`` in memory until Arbor quits (the keyring is not available). Never written."""
    global _run_key
    cleaned = key.strip()
    if not cleaned:
        raise InvalidApiKeyError("The API key is empty")
    _run_key = validate_api_key(cleaned, "the key given")


def forget_key_for_this_run() -> None:
    global _run_key
    _run_key = None


def delete_api_key() -> bool:
    """Remove the stored key (and one kept for this run). False when there was none or the backend refused."""
    forget_key_for_this_run()
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
