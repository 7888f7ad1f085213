"""Settings: the dialog, what each setting changes in play, and keeping them."""

from __future__ import annotations

from kaldoku_tui.app import KaldokuApp, build_app
from kaldoku_tui.bank import Bank
from kaldoku_tui.cli import app_config, game_parser
from kaldoku_tui.screens.settings import SettingsScreen
from kaldoku_tui.session.settings import Settings
from kaldoku_tui.session.store import open_store

from conftest import EXAMPLE_ID, game_app
from screen import screen_cells

SIZE = (80, 24)


def test_settings_from_saved_json_keep_what_they_understand():
    assert Settings.from_dict({"shade_peers": True, "colour": "blue"}) == Settings(shade_peers=True)
    assert Settings.from_dict({"auto_clean_notes": "no"}) == Settings()
    assert Settings.from_dict([1, 2]) == Settings()
    assert Settings.from_dict(Settings(False, True).to_dict()) == Settings(False, True)


def start(tmp_path, *argv: str) -> KaldokuApp:
    """kaldoku with its files in tmp_path, as `kaldoku ARGV` starts it."""
    app = build_app(app_config(game_parser().parse_args([*argv, "--data-dir", str(tmp_path)])))
    app.services.bank = Bank(app.services.store, depth=0)
    return app


async def test_turning_auto_clean_off_keeps_the_notes_and_is_kept(tmp_path):
    app = start(tmp_path, EXAMPLE_ID)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("right", "n", "1", "2", "n", "left", "o")
        assert isinstance(app.screen, SettingsScreen)
        await pilot.press("enter", "q")
        assert app.services.settings == Settings(auto_clean_notes=False)
        assert "Settings saved" in app.game.message
        await pilot.press("1")
        assert app.game.session.board.notes((0, 1)) == {1, 2}, "the 1 stays in its row's notes"
        assert app.game.message == "", "old news goes with a move"
    assert open_store(tmp_path).settings()["auto_clean_notes"] is False

    assert start(tmp_path).services.settings == Settings(auto_clean_notes=False)

    # The game was saved with clean-up off; turned on again, the setting wins on resuming.
    open_store(tmp_path).save_settings(Settings().to_dict())
    again = start(tmp_path)
    async with again.run_test(size=SIZE) as pilot:
        await pilot.press("right", "n", "3", "n", "left", "3")
        assert again.game.session.board.notes((0, 1)) == {1, 2}, "the 3 noted is cleared"


async def test_auto_clean_on_clears_a_placed_digit_from_its_row(tmp_path):
    app = start(tmp_path, EXAMPLE_ID)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("right", "n", "1", "2", "n", "left", "1")
        assert app.game.session.board.notes((0, 1)) == {2}


async def test_shading_changes_what_the_grid_draws(example):
    app = game_app(example)

    async with app.run_test(size=SIZE) as pilot:
        def peer_row() -> list:
            # The cursor's row, far from the cursor: its styles change with shading only.
            return screen_cells(app)[app.game.grid.region.y + 4][-40:]

        await pilot.pause()
        plain = peer_row()
        await pilot.press("o", "tab", "space", "escape")
        await pilot.pause()
        assert app.game.grid.highlight_peers
        assert peer_row() != plain
        await pilot.press("o", "tab", "right", "q")
        await pilot.pause()
        assert peer_row() == plain


async def test_lighting_the_numbers_is_off_by_default_and_kept(tmp_path):
    app = start(tmp_path, EXAMPLE_ID)
    async with app.run_test(size=SIZE) as pilot:
        assert not app.game.grid.light_numbers
        await pilot.press("o", "tab", "tab", "space", "escape")
        assert app.services.settings == Settings(light_numbers=True)
        assert app.game.grid.light_numbers
        await pilot.pause()
        grid = app.game.grid
        label = grid.board_layout.label_region((0, 0))
        strip = grid.board_line(label.y).crop(label.x, label.x + 3)
        assert all(segment.style.reverse for segment in strip), "the cursor's cage label, lit"
    again = start(tmp_path)
    async with again.run_test(size=SIZE):
        assert again.game.grid.light_numbers


def test_a_corrupt_settings_file_of_0_1_0_is_set_aside(tmp_path):
    (tmp_path / "settings.json").write_text("{not json")
    app = start(tmp_path, EXAMPLE_ID)
    assert app.services.settings == Settings()
    assert "settings.json" in app.game.message
    assert (tmp_path / "settings.json.unusable").read_text() == "{not json"
    assert open_store(tmp_path).settings() == {}


def test_a_theme_setting_must_look_like_a_theme_name():
    assert Settings.from_dict({"theme": "nord"}) == Settings(theme="nord")
    for bad in ("", "Nord!", "x" * 41, 3, None, "../../etc", "a b"):
        assert Settings.from_dict({"theme": bad}) == Settings(), bad


async def test_a_theme_picked_in_the_palette_is_kept(tmp_path):
    app = start(tmp_path, EXAMPLE_ID)
    async with app.run_test(size=SIZE) as pilot:
        assert app.theme == "textual-dark"
        app.theme = "nord"  # what the palette's theme picker does
        await pilot.pause()
        assert app.services.settings.theme == "nord" and "Settings saved" in app.game.message
    assert open_store(tmp_path).settings()["theme"] == "nord"
    again = start(tmp_path)
    assert again.theme == "nord"
    # A theme this Textual does not have: the default.
    open_store(tmp_path).save_settings({"theme": "no-such-theme"})
    assert start(tmp_path).theme == "textual-dark"


async def test_the_cursor_is_where_it_was_when_the_game_is_resumed(tmp_path):
    app = start(tmp_path, EXAMPLE_ID)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("down", "down", "right", "1")
    again = start(tmp_path)
    async with again.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert again.game.grid.cursor == (2, 1)
        assert "Resumed" in again.game.message
    # Another game's cursor, or a damaged one, leaves the cursor at the top left.
    open_store(tmp_path).save_settings({"cursor": {"game": 999, "cell": [3, 3]}})
    third = start(tmp_path)
    async with third.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert third.game.grid.cursor == (0, 0)
    open_store(tmp_path).save_settings({"cursor": {"game": third.game.session.journal.game_id,
                                              "cell": ["x", None]}})
    fourth = start(tmp_path)
    async with fourth.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert fourth.game.grid.cursor == (0, 0)
