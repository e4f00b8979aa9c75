"""Every Python test file of //tests runs its tests when Bazel executes it.

A py_test runs its source as a script: a file of pytest functions without a __main__ block that
calls pytest.main (or absltest.main for absl tests) exits 0 having run nothing, and Bazel reports
it as passed. cpu_head_dims_test.py was such a file from its first commit until session 26: its
190 tests never ran in //tests:cpu, and five of them had gone stale unseen."""

import ast
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
TEST_FILES = sorted(f for f in os.listdir(HERE) if f.endswith("_test.py"))


def _main_block_calls(path):
    """Names called inside `if __name__ == "__main__":` blocks at the module's top level."""
    tree = ast.parse(open(path).read(), path)
    called = set()
    for node in tree.body:
        if (isinstance(node, ast.If) and isinstance(node.test, ast.Compare)
                and isinstance(node.test.left, ast.Name) and node.test.left.id == "__name__"
                and any(isinstance(c, ast.Constant) and c.value == "__main__" for c in node.test.comparators)):
            for sub in ast.walk(node):
                if isinstance(sub, ast.Call):
                    f = sub.func
                    called.add(f"{f.value.id}.{f.attr}" if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name)
                               else getattr(f, "id", None))
    return called


def test_the_test_files_are_here():
    # The data glob reached this package's files (this one and the suites it guards).
    assert "cpu_test_files_test.py" in TEST_FILES and "gpu_kvcache_test.py" in TEST_FILES, TEST_FILES
    assert len(TEST_FILES) >= 20, TEST_FILES


@pytest.mark.parametrize("name", TEST_FILES)
def test_each_test_file_runs_its_tests_as_a_script(name):
    called = _main_block_calls(os.path.join(HERE, name))
    assert called & {"pytest.main", "absltest.main"}, (
        "%s has no `if __name__ == \"__main__\":` block calling pytest.main or absltest.main: "
        "Bazel would run it as a script that defines its tests and exits 0" % name)


def test_a_file_without_a_main_block_is_caught(tmp_path):
    bare = tmp_path / "bare_test.py"
    bare.write_text("def test_x():\n    assert False\n")
    assert not _main_block_calls(str(bare)) & {"pytest.main", "absltest.main"}


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q", "-p", "no:cacheprovider"]
                         + (["--junitxml", os.environ["XML_OUTPUT_FILE"]] if "XML_OUTPUT_FILE" in os.environ else [])))
