"""settings.json with pi's names; a broken file never stops the app."""

from __future__ import annotations

import json
from pathlib import Path

from desktop_app.settings import Settings


def test_defaults_match_pi(tmp_path: Path) -> None:
    s = Settings.load(tmp_path / "missing.json")
    assert (s.compaction.enabled, s.compaction.reserve_tokens, s.compaction.keep_recent_tokens) == (True, 16384, 20000)
    assert (s.branch_summary.reserve_tokens, s.branch_summary.skip_prompt) == (16384, False)
    assert (s.retry.max_retries, s.retry.base_delay_ms, s.retry.max_retry_delay_ms) == (3, 2000, 60000)
    assert s.default_thinking_level == "medium" and s.warnings == []


def test_reads_pi_names_and_arbor_keys(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({
        "compaction": {"enabled": False, "reserveTokens": 1000, "keepRecentTokens": 500},
        "branchSummary": {"skipPrompt": True},
        "retry": {"baseDelayMs": 5, "maxDelayMs": 70},
        "defaultThinkingLevel": "high", "baseUrl": "http://127.0.0.1:9", "theme": "dark", "fsync": False,
    }))
    s = Settings.load(path)
    assert s.compaction == type(s.compaction)(False, 1000, 500)
    assert s.branch_summary.skip_prompt and s.retry.base_delay_ms == 5 and s.retry.max_retry_delay_ms == 70
    assert (s.default_thinking_level, s.base_url, s.theme, s.fsync) == ("high", "http://127.0.0.1:9", "dark", False)


def test_broken_values_are_reported_not_fatal(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"compaction": {"reserveTokens": "lots"}, "defaultThinkingLevel": "extreme"}')
    s = Settings.load(path)
    assert s.compaction.reserve_tokens == 16384 and s.default_thinking_level == "medium"
    assert any("reserveTokens" in w for w in s.warnings)
    path.write_text("{not json")
    assert Settings.load(path).warnings


def test_arbor_home_holds_settings(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("ARBOR_HOME", str(tmp_path))
    (tmp_path / "settings.json").write_text('{"retry": {"baseDelayMs": 1}}')
    assert Settings.load().retry.base_delay_ms == 1


def test_save_value_keeps_other_settings(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"theme": "dark", "branchSummary": {"reserveTokens": 100}}')
    s = Settings.load(path)
    assert s.save_value(("branchSummary", "skipPrompt"), True)
    again = Settings.load(path)
    assert again.branch_summary.skip_prompt and again.branch_summary.reserve_tokens == 100 and again.theme == "dark"
    path.write_text("{broken")
    assert Settings.load(path).save_value(("x",), 1) is False and path.read_text() == "{broken"


def test_network_settings_load(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"network": {"connectTimeoutMs": 2500, "idleTimeoutMs": 90000, "waitingNoticeMs": -1}}')
    settings = Settings.load(path)
    assert settings.network.connect_timeout_ms == 2500 and settings.network.idle_timeout_ms == 90000
    assert settings.network.waiting_notice_ms == 3000 and any("waitingNoticeMs" in w for w in settings.warnings)


def test_tool_settings_default_to_pis_set_and_the_folder(tmp_path: Path) -> None:
    tools = Settings.load(tmp_path / "missing.json").tools
    assert tools.enabled == ("read", "bash", "edit", "write")
    assert tools.allow_outside_folder is False and tools.allowed_roots == ()
    assert tools.always_allow == () and tools.remember_approvals is False
    assert tools.shell_path is None and tools.shell_command_prefix is None


def test_tool_settings_load_and_bad_values_are_reported(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({
        "tools": {"enabled": ["read", "grep", "ls", "read", "teleport"], "allowOutsideFolder": True,
                  "allowedRoots": ["/data"], "alwaysAllow": ["bash"], "rememberApprovals": True},
        "shellPath": "/bin/sh", "shellCommandPrefix": "set -e",
    }))
    s = Settings.load(path)
    assert s.tools.enabled == ("read", "grep", "ls")  # order kept, duplicates and unknown names dropped
    assert any("teleport" in w for w in s.warnings)
    assert s.tools.allow_outside_folder and s.tools.allowed_roots == ("/data",)
    assert s.tools.always_allow == ("bash",) and s.tools.remember_approvals
    assert (s.tools.shell_path, s.tools.shell_command_prefix) == ("/bin/sh", "set -e")

    path.write_text('{"tools": {"enabled": "read", "allowOutsideFolder": "yes"}}')
    s = Settings.load(path)
    assert s.tools.enabled == ("read", "bash", "edit", "write") and s.tools.allow_outside_folder is False
    assert any("'enabled'" in w for w in s.warnings) and any("allowOutsideFolder" in w for w in s.warnings)
    path.write_text('{"tools": {"enabled": []}}')
    assert Settings.load(path).tools.enabled == ()


def test_pi_version_chooses_the_profile(tmp_path: Path) -> None:
    from desktop_app.session.profile import PI_0_73_1, PI_1_6_0

    assert Settings.load(tmp_path / "missing.json").profile is PI_1_6_0  # today's pi by default
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"piVersion": "0.73.1"}))
    assert Settings.load(path).profile is PI_0_73_1
    path.write_text(json.dumps({"piVersion": "9.9"}))
    s = Settings.load(path)
    assert s.profile is PI_1_6_0 and "piVersion" in s.warnings[0] and "0.73.1, 1.6.0" in s.warnings[0]


def test_checkpoint_settings_load_and_bad_values_are_reported(tmp_path: Path) -> None:
    from desktop_app.workspace.store import DEFAULT_SIZE_LIMIT

    s = Settings.load(tmp_path / "missing.json")
    assert s.checkpoints.enabled and s.checkpoints.size_limit == DEFAULT_SIZE_LIMIT  # the store's own default
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"checkpoints": {"enabled": False, "maxFileSizeMB": 25}}))
    s = Settings.load(path)
    assert not s.checkpoints.enabled and s.checkpoints.size_limit == 25 * 1024 * 1024 and s.warnings == []
    path.write_text(json.dumps({"checkpoints": {"enabled": "no", "maxFileSizeMB": 0}}))
    s = Settings.load(path)
    assert s.checkpoints.enabled and s.checkpoints.max_file_size_mb == 10
    assert any("'enabled'" in w for w in s.warnings) and any("maxFileSizeMB" in w for w in s.warnings)
