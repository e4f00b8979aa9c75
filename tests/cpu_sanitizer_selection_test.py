"""The sanitizer sweep's part selection (tests/sanitizer_check.py sweep_selection) without a GPU:
the default is the whole sweep, a part is parsed exactly, and a malformed one is an error that
names its variable (never silently the whole sweep or nothing)."""

import pytest
from sanitizer_check import TOOLS, sweep_selection


def test_default_is_every_tool_and_every_case():
    assert sweep_selection({}) == (TOOLS, 0, 1)


def test_a_part_of_the_sweep():
    env = {"FLASHCORE_SANITIZER_TOOLS": "racecheck, synccheck", "FLASHCORE_SANITIZER_SHARD": "2/4"}
    assert sweep_selection(env) == (("racecheck", "synccheck"), 2, 4)
    cases = list(range(10))
    parts = [cases[i::4] for i in range(4)]  # how the sweep uses the shard: together, every case once
    assert sorted(sum(parts, [])) == cases


@pytest.mark.parametrize("tools", ["racechek", "memcheck,", ","])
def test_unknown_tools_raise_naming_the_variable(tools):
    with pytest.raises(ValueError, match="FLASHCORE_SANITIZER_TOOLS"):
        sweep_selection({"FLASHCORE_SANITIZER_TOOLS": tools})


@pytest.mark.parametrize("shard", ["4/4", "1", "-1/2", "0/0", "a/b", "1/2/3"])
def test_malformed_shards_raise_naming_the_variable(shard):
    with pytest.raises(ValueError, match="FLASHCORE_SANITIZER_SHARD"):
        sweep_selection({"FLASHCORE_SANITIZER_SHARD": shard})


if __name__ == "__main__":
    import sys
    sys.exit(pytest.main([__file__, "-q", "-p", "no:cacheprovider"]))
