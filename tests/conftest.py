"""Shared fixtures. Runs and checkpoints go to a temporary folder, never into the repository."""

import os

import pytest
import torch

torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))


def pytest_configure(config):
    """pytest resets the warning filters around each test: give it the package's exact library filters."""
    from stsdemo import library_warnings

    for line in library_warnings.pytest_filters():
        config.addinivalue_line("filterwarnings", line)


@pytest.fixture(autouse=True)
def _isolated_output_dir(tmp_path_factory, monkeypatch):
    base = tmp_path_factory.getbasetemp()
    monkeypatch.setenv("STSDEMO_OUTPUT_DIR", str(base / "runs"))
    monkeypatch.setenv("STSDEMO_MODEL_ROOTS", str(base))  # tests may load models from their tmp_path


@pytest.fixture(scope="session")
def embedded_model():
    """The embedded all-MiniLM-L6-v2 with a fresh regression head, loaded once per test session."""
    from stsdemo.model import SiameseRegressor

    return SiameseRegressor.from_encoder(None)
