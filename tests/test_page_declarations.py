"""One declaration source: the page's scripts read every constant the Python side declares from site.json's
``engine`` (stsdemo.playground.config.engine_declarations) and write none of them; every Playground loss has a page
gradient rule; and every Python name a script's comment cites exists."""

import importlib
import re
from pathlib import Path

import pytest

from stsdemo.playground.config import BUFFER_LOSSES, engine_declarations

WEB = Path(__file__).resolve().parents[1] / "stsdemo" / "playground" / "web"
SCRIPTS = sorted(WEB.glob("*.js"))
DECLARED_NAMES = (
    "SELECT_EVERY",
    "TRAIN_SAMPLE",
    "MAX_HISTORY",
    "SELECTION_SHARE",
    "SELECTION_MIN",
    "SELECTION_MAX",
    "BETA1",
    "BETA2",
    "EPS",
    "READ_BY",
    "LOSSES",
)
CITED = re.compile(r"stsdemo[./][A-Za-z_][\w./]*\w")


def test_every_playground_loss_declares_its_page_gradient_rule():
    losses = engine_declarations()["losses"]
    assert set(losses) == set(BUFFER_LOSSES)
    assert all(isinstance(rule["power"], int) and rule["power"] >= 1 for rule in losses.values())


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.name)
def test_no_script_writes_a_constant_the_python_side_declares(script):
    text = script.read_text(encoding="utf-8")
    for (
        name
    ) in DECLARED_NAMES:  # read from site.json (`let NAME;` then configure()), never given a value here
        assert not re.search(rf"\b{name}\s*=\s*(?:[-\d.]|{{\s*[^\s}}])", text), (
            f"{script.name} declares {name}"
        )
    for name in engine_declarations()["losses"]:
        assert not re.search(rf"\b{name}\s*:\s*{{[^}}]*paperK", text), (
            f"{script.name} declares {name}'s paper k"
        )


def resolves(cited: str) -> bool:
    """Whether ``stsdemo.a.b`` or ``stsdemo/a/b.py`` names a module, or an attribute of one."""
    dotted = cited.removesuffix(".py").replace("/", ".")
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attribute in parts[cut:]:
            if not hasattr(found, attribute):
                return False
            found = getattr(found, attribute)
        return True
    return False


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.name)
def test_every_python_name_a_script_cites_exists(script):
    missing = sorted(
        {name for name in CITED.findall(script.read_text(encoding="utf-8")) if not resolves(name)}
    )
    assert missing == [], f"{script.name} cites {missing}"
