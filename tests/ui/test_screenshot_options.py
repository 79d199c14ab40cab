"""``arbor screenshot`` options for the shots issue 11 asks for: the sessions panel (``--sessions``), the
theme (``--theme light|dark``) and the Settings dialog over the window (``--settings``)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtGui import QColor, QImage

from desktop_app.agent.startup import SAMPLE_SESSION
from desktop_app.cli import _parser
from desktop_app.session.paths import arbor_sessions_root
from desktop_app.ui.screenshot import take_screenshot
from desktop_app.ui.theme import apply_theme

SIZE = (1000, 700)


@pytest.fixture
def session() -> Iterator[Path]:
    folder = arbor_sessions_root() / "--home-you-trips--"
    folder.mkdir(parents=True)
    path = folder / "2026-01-01T00-00-00-000Z_sample.jsonl"
    shutil.copyfile(SAMPLE_SESSION, path)
    yield path
    apply_theme("light")  # the application palette is shared by every later test


def _lightness(image: QImage, x0: int, y0: int, x1: int, y1: int) -> float:
    values = [QColor(image.pixel(x, y)).lightness() for x in range(x0, x1, 5) for y in range(y0, y1, 5)]
    return sum(values) / len(values)


def test_the_sessions_panel_in_light_and_dark(session: Path, tmp_path: Path) -> None:
    shots = {}
    for theme in ("light", "dark"):
        out = tmp_path / f"{theme}.png"
        take_screenshot(str(session), str(out), size=SIZE, sessions=True, theme=theme)
        shots[theme] = QImage(str(out))
        assert (shots[theme].width(), shots[theme].height()) == SIZE
    # the panel's empty lower half (left edge of the window): the list's base colour
    light, dark = (_lightness(shots[t], 8, 400, 150, 600) for t in ("light", "dark"))
    assert dark < 80 < 180 < light
    assert session.read_bytes() == SAMPLE_SESSION.read_bytes()  # a screenshot never writes


def test_the_settings_dialog_is_drawn_over_the_window(session: Path, tmp_path: Path) -> None:
    plain, dialog = tmp_path / "plain.png", tmp_path / "settings.png"
    take_screenshot(str(session), str(plain), size=SIZE, theme="light")
    take_screenshot(str(session), str(dialog), size=SIZE, theme="light", settings_dialog=True)
    a, b = QImage(str(plain)), QImage(str(dialog))
    assert (b.width(), b.height()) == SIZE
    middle = [(x, y) for x in range(300, 700, 4) for y in range(200, 450, 4)]
    changed = sum(a.pixel(x, y) != b.pixel(x, y) for x, y in middle)
    assert changed > 0.9 * len(middle)  # the dialog (and the dimmed window round it) replaced the middle


def test_the_options_are_in_the_help() -> None:
    shot = next(
        action.choices["screenshot"] for action in _parser()._actions if getattr(action, "choices", None)
        and "screenshot" in action.choices  # type: ignore[operator]
    )
    text = shot.format_help()
    for option in ("--sessions", "--theme", "--settings"):
        assert option in text
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    for option in ("--sessions", "--theme", "--settings"):
        assert f"[{option}" in readme
