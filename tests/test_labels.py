import numpy as np
import pytest

from stsdemo.errors import InputError
from stsdemo.labels import NLI, STS, LabelScheme, get_scheme, sick_to_sts


def test_builtin_nodes():
    assert NLI.nodes.tolist() == [0, 1, 2] and NLI.node_of("Entailment") == 2
    assert STS.nodes.tolist() == [0, 1, 2, 3, 4, 5]


def test_rounding_to_nearest_node_and_ends():
    assert [NLI.category(v) for v in (-3, 0.49, 0.51, 1.4, 1.6, 9)] == [
        "contradiction",
        "contradiction",
        "neutral",
        "neutral",
        "entailment",
        "entailment",
    ]
    assert STS.snap([0.2, 2.5, 2.6, 4.5001, 5.7, 1.25]).tolist() == [0, 3, 3, 5, 5, 1]


def test_custom_scheme_with_gap():
    scheme = get_scheme("bad, fair, good, perfect", gap=0.5)
    assert scheme.nodes.tolist() == [0, 0.5, 1.0, 1.5] and scheme.category(0.8) == "good"
    assert scheme.high == 1.5


def test_sick_mapping():
    assert sick_to_sts([1, 3, 5]).tolist() == [0, 2.5, 5]


@pytest.mark.parametrize(
    "categories, message", [("only", "unknown label scheme"), ("a,", "at least 2"), ("a, a", "distinct")]
)
def test_bad_schemes(categories, message):
    with pytest.raises(InputError, match=message):
        get_scheme(categories)


def test_bad_gap():
    with pytest.raises(InputError, match="gap d must be > 0"):
        LabelScheme.custom(["a", "b"], gap=0)


def test_unknown_category():
    with pytest.raises(InputError, match="allowed: contradiction, neutral, entailment"):
        NLI.node_of("maybe")


def test_nearest_index_vectorised():
    assert np.array_equal(STS.nearest_index(np.array([0.49, 0.51, 3.5])), [0, 1, 4])
