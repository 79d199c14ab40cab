"""The Settings dialog's content without Qt: pi's names, what changes, validation, the model list
with context windows, and what the dialog says about the key."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from desktop_app.present.settings_form import (
    PI_VERSION_CHOICES,
    SettingsForm,
    apply_form,
    changed_values,
    form_from_settings,
    key_status,
    model_choices,
    model_label,
    validate,
)
from desktop_app.session.profile import PROFILES
from desktop_app.settings import Settings


def test_changes_are_saved_under_pi_s_names_and_reload(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"compaction": {"enabled": True}, "custom": {"kept": 1}}))
    settings = Settings.load(path)
    before = form_from_settings(settings)
    after = replace(before, reserve_tokens=30000, skip_branch_summary_prompt=True, max_retries=5,
                    base_url=" http://127.0.0.1:8080 ", theme="dark", fsync=False, thinking_level="high")
    changes = changed_values(before, after)
    assert [keys for keys, _ in changes] == [
        ("baseUrl",), ("defaultThinkingLevel",), ("compaction", "reserveTokens"), ("branchSummary", "skipPrompt"),
        ("retry", "maxRetries"), ("fsync",), ("theme",),
    ]
    for keys, value in changes:
        assert settings.save_value(keys, value)
    apply_form(settings, after)
    assert settings.compaction.reserve_tokens == 30000 and settings.base_url == "http://127.0.0.1:8080"
    raw = json.loads(path.read_text())
    assert raw["custom"] == {"kept": 1}  # nothing else in the file is lost
    assert raw["compaction"] == {"enabled": True, "reserveTokens": 30000}
    assert raw["baseUrl"] == "http://127.0.0.1:8080"
    again = form_from_settings(Settings.load(path))
    assert again == replace(after, base_url="http://127.0.0.1:8080")


def test_an_empty_base_url_is_saved_as_null() -> None:
    before = SettingsForm(base_url="http://x")
    assert changed_values(before, replace(before, base_url="  ")) == [(("baseUrl",), None)]
    assert changed_values(before, before) == []


def test_validation_speaks_plainly() -> None:
    assert validate(SettingsForm()) == []
    problems = validate(SettingsForm(reserve_tokens=250_000, base_url="localhost:8080", max_retries=-1))
    assert any("context window (200,000)" in p for p in problems)
    assert any("http://" in p for p in problems)
    assert any("negative" in p for p in problems)


def test_model_choices_carry_context_windows() -> None:
    choices = model_choices("anthropic")
    assert choices and all(c.label.endswith("k context") for c in choices)
    assert model_label("claude-sonnet-4-5") == "Claude Sonnet 4.5 · 200k context"
    custom = model_choices("anthropic", "my-proxy-model")
    assert custom[-1].id == "my-proxy-model" and custom[-1].label == "my-proxy-model · 200k context"
    assert [c.id for c in model_choices("offline")] and all(c.id != "my-proxy-model" for c in model_choices("offline", "x"))


def test_key_status_says_the_environment_wins_and_when_the_keyring_is_missing() -> None:
    env = key_status("env", None)
    assert "ANTHROPIC_API_KEY" in env.text and "wins" in env.text and not env.editable_wins
    missing = key_status(None, "no keyring service was found.")
    assert "not available" in missing.text and "this run only" in missing.text and missing.editable_wins
    assert "stored in the system keyring" in key_status("keyring", None).text
    assert "memory" in key_status("memory", None).text


def test_pi_version_is_saved_as_piVersion_and_reloads(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    settings = Settings.load(path)
    before = form_from_settings(settings)
    assert before.pi_version == "1.6.0"  # today's pi by default
    after = replace(before, pi_version="0.73.1")
    assert changed_values(before, after) == [(("piVersion",), "0.73.1")]
    for keys, value in changed_values(before, after):
        assert settings.save_value(keys, value)
    apply_form(settings, after)
    assert settings.profile.version == "0.73.1"
    assert json.loads(path.read_text())["piVersion"] == "0.73.1"
    assert form_from_settings(Settings.load(path)).pi_version == "0.73.1"


def test_the_pi_versions_offered_are_the_profiles_today_s_first() -> None:
    assert [v for v, _ in PI_VERSION_CHOICES] == ["1.6.0", "0.73.1"]
    assert {v for v, _ in PI_VERSION_CHOICES} == set(PROFILES)
    assert any("pi version" in p for p in validate(SettingsForm(pi_version="2.0")))
