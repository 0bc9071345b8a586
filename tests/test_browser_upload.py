"""A visitor's own labelled pairs in a real browser (issue 33, item 3): a CSV the test writes is uploaded in the
Playground tab at a desktop window and on a 390 px phone, the tab says what it read and switches to it, Play trains
on it, a bad file gets its one line and leaves the upload in place, and (desktop) the run exports as a zip that
holds a scorer, its run.json and its card."""

import zipfile
from pathlib import Path

import pytest
from app_fixtures import CHROMIUM, app_state, app_url, open_page  # noqa: F401  (pytest fixtures)
from test_playground_upload_app import write_pairs

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not Path(CHROMIUM).is_file(), reason="chromium is not installed")]

WINDOWS = {"desktop": dict(viewport={"width": 1400, "height": 1000}),
           "phone": dict(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)}


@pytest.mark.parametrize("kind", WINDOWS)
def test_uploaded_pairs_are_read_played_and_exported(app_url, tmp_path, kind):  # noqa: F811
    from playwright.sync_api import expect

    write_pairs(tmp_path / "animals.csv")
    (tmp_path / "one-class.csv").write_text("sentence1,sentence2,label\n" + "".join(
        f"a {i},b {i},3\n" for i in range(300)), encoding="utf-8")
    for page in open_page(app_url, **WINDOWS[kind]):
        page.get_by_role("tab", name="Playground").click()
        page.get_by_text("Your own labelled pairs").click()
        page.locator("#pg-upload input[type=file]").set_input_files(str(tmp_path / "animals.csv"))
        said = page.locator("#pg-uploaded")
        expect(said).to_contain_text("240 pairs, 50 held out as the report set", timeout=60_000)
        expect(said).to_contain_text("inferred from the labels (0 to 5)")
        expect(said).to_contain_text("Embedded and cached", timeout=60_000)
        expect(page.locator("#pg-data input[value=upload]")).to_be_checked()
        page.locator("#pg-play").click()
        status = page.locator("#pg-status")
        expect(status).to_contain_text("animals.csv", timeout=120_000)
        expect(status).to_contain_text("Stopped at its best")
        page.locator("#pg-pause").click()

        page.locator("#pg-upload input[type=file]").set_input_files(str(tmp_path / "one-class.csv"))
        expect(page.locator(".toast-body").filter(has_text="one class")).to_be_visible(timeout=30_000)
        expect(said).to_contain_text("animals.csv")                      # the pairs in use are still these
        expect(page.locator("#pg-upload")).not_to_contain_text("one-class.csv")
        page.screenshot(path=str(tmp_path / f"upload-{kind}.png"))
        if kind != "desktop":
            continue
        page.get_by_text("Export the trained head").click()
        page.locator("#pg-export").click()
        link = page.locator("#pg-exported a").first
        expect(link).to_be_visible(timeout=120_000)
        with page.expect_download() as download:
            link.click()
        with zipfile.ZipFile(download.value.path()) as archive:
            names = set(archive.namelist())
            card = archive.read("README.md").decode("utf-8")
        assert {"run.json", "README.md", "config.json"} <= names and "animals.csv" in card
