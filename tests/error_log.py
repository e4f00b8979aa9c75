"""The error record of a GPU oracle suite (gpu_attention_test, gpu_attention_bwd_test,
gpu_features_test): each oracle case appends its errors as one JSON line to a file in the test's
output folder, and the suite's main prints the worst ratios at the end (the figures docs/results
quotes). Each suite keeps its own record fields and line format."""

import json
import os


class ErrorLog:
    def __init__(self, filename):
        out_dir = os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR", os.environ.get("TEST_TMPDIR", "/tmp"))
        self.path = os.path.join(out_dir, filename)

    def reset(self):
        if os.path.exists(self.path):
            os.remove(self.path)

    def record(self, entry):
        with open(self.path, "a") as f:
            f.write(json.dumps(entry) + "\n")

    def rows(self):
        """The records so far; None when the run recorded none (no file)."""
        if not os.path.exists(self.path):
            return None
        with open(self.path) as f:
            return [json.loads(line) for line in f]

    @staticmethod
    def print_worst(rows, title, line, count, quantity):
        """`title`, then line(row) for the `count` rows of largest "ratio", then the count, max and
        median of the ratios over `quantity` (e.g. "cases")."""
        rows = sorted(rows, key=lambda r: -r["ratio"])
        print(title)
        for r in rows[:count]:
            print(line(r))
        print("  %s: %d, max ratio %.2f, median ratio %.2f" % (quantity, len(rows), rows[0]["ratio"],
                                                               rows[len(rows) // 2]["ratio"]))
