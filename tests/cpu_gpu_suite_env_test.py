"""The GPU suites' executor check (tests/gpu_suite_env.py) without a GPU: it stops a suite on a
machine with no CUDA device or with the wrong GPU, and lets the right one through."""

import importlib
import os
import sys
import types

import pytest
import gpu_suite_env


def fake_torch(available, name=""):
    cuda = types.SimpleNamespace(is_available=lambda: available, get_device_name=lambda: name)
    return types.SimpleNamespace(cuda=cuda)


@pytest.fixture
def expect_h100(monkeypatch):
    monkeypatch.setenv("FLASHCORE_EXPECTED_GPU", "H100")
    yield importlib.reload(gpu_suite_env)
    monkeypatch.delenv("FLASHCORE_EXPECTED_GPU")
    importlib.reload(gpu_suite_env)


def test_no_device_stops_the_suite(expect_h100):
    with pytest.raises(SystemExit, match="no CUDA device visible .*needs a H100"):
        expect_h100.check_expected_gpu(fake_torch(False))


def test_wrong_gpu_is_named(expect_h100):
    with pytest.raises(SystemExit, match=r"for H100: the visible GPU is 'NVIDIA H200'"):
        expect_h100.check_expected_gpu(fake_torch(True, "NVIDIA H200"))


def test_right_gpu_passes(expect_h100):
    assert expect_h100.check_expected_gpu(fake_torch(True, "NVIDIA H100 80GB HBM3")) is None


def test_no_expectation_takes_any_gpu():
    assert gpu_suite_env.EXPECTED_GPU == ""
    assert gpu_suite_env.check_expected_gpu(fake_torch(True, "NVIDIA B200")) is None


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q", "-p", "no:cacheprovider"]
                         + (["--junitxml", os.environ["XML_OUTPUT_FILE"]] if "XML_OUTPUT_FILE" in os.environ else [])))
