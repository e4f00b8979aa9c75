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


def _runs_its_tests(path):
    """Whether the module has an `if __name__ == "__main__":` block whose body (not an else branch)
    exits with the test run's status: sys.exit(pytest.main(...)) (directly or through a name bound
    to it), raise SystemExit(pytest.main(...)), or absltest.main() (which exits itself). A bare
    pytest.main(...) would exit 0 on failures."""
    tree = ast.parse(open(path).read(), path)

    def is_call(node, owner, name):
        return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == name
                and isinstance(node.func.value, ast.Name) and node.func.value.id == owner)

    for node in tree.body:
        if not (isinstance(node, ast.If) and isinstance(node.test, ast.Compare)
                and isinstance(node.test.left, ast.Name) and node.test.left.id == "__name__"
                and [type(op) for op in node.test.ops] == [ast.Eq]
                and isinstance(node.test.comparators[0], ast.Constant) and node.test.comparators[0].value == "__main__"):
            continue
        statuses = set()  # names bound to pytest.main(...) in this body (rc = pytest.main(...); sys.exit(rc))
        for stmt in node.body:
            if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                    and is_call(stmt.value, "pytest", "main")):
                statuses.add(stmt.targets[0].id)
            call = stmt.value if isinstance(stmt, ast.Expr) else stmt.exc if isinstance(stmt, ast.Raise) else None
            if call is None:
                continue
            if is_call(call, "absltest", "main"):
                return True
            exits = (is_call(call, "sys", "exit")
                     or (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "SystemExit"))
            if exits and call.args and (is_call(call.args[0], "pytest", "main")
                                        or isinstance(call.args[0], ast.Name) and call.args[0].id in statuses):
                return True
    return False


def test_the_test_files_are_here():
    # The data glob reached this package's files (this one and the suites it guards).
    assert "cpu_test_files_test.py" in TEST_FILES and "gpu_kvcache_test.py" in TEST_FILES, TEST_FILES
    assert len(TEST_FILES) >= 20, TEST_FILES


@pytest.mark.parametrize("name", TEST_FILES)
def test_each_test_file_runs_its_tests_as_a_script(name):
    assert _runs_its_tests(os.path.join(HERE, name)), (
        "%s has no `if __name__ == \"__main__\":` block exiting with its tests' status "
        "(sys.exit(pytest.main(...)) or absltest.main()): Bazel would run it as a script that defines "
        "its tests and exits 0" % name)


@pytest.mark.parametrize("source,runs", [
    ("def test_x():\n    assert False\n", False),
    ("if __name__ == '__main__':\n    pytest.main([__file__])\n", False),  # exits 0 on failures
    ("if __name__ != '__main__':\n    sys.exit(pytest.main([__file__]))\n", False),
    ("if __name__ == '__main__':\n    pass\nelse:\n    sys.exit(pytest.main([__file__]))\n", False),
    ("if __name__ == '__main__':\n    sys.exit(pytest.main([__file__]))\n", True),
    ("if __name__ == '__main__':\n    raise SystemExit(pytest.main([__file__]))\n", True),
    ("if __name__ == '__main__':\n    absltest.main()\n", True),
    ("if __name__ == '__main__':\n    rc = pytest.main([__file__])\n    report()\n    sys.exit(rc)\n", True),
    ("if __name__ == '__main__':\n    rc = pytest.main([__file__])\n    sys.exit(0)\n", False),
])
def test_the_check_itself(tmp_path, source, runs):
    f = tmp_path / "probe_test.py"
    f.write_text(source)
    assert _runs_its_tests(str(f)) == runs


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q", "-p", "no:cacheprovider"]
                         + (["--junitxml", os.environ["XML_OUTPUT_FILE"]] if "XML_OUTPUT_FILE" in os.environ else [])))
