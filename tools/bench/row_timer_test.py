"""CPU checks of row_timer.py with a stand-in timer: rotation of the order, setup before each
reading, warm-up outside the rounds, lines that ab_table.py reads back, FLOP counts."""
from absl.testing import absltest

import ab_table
import row_timer


class RowTimerTest(absltest.TestCase):

    def _run(self, rows, rounds, warmup=False):
        order, lines = [], []

        def bench(fn, rep):
            order.append(fn())
            return {"a": 1.0, "b": 2.0, "c": 4.0}[order[-1]]

        row_timer.time_rows(rows, rounds, bench=bench, warmup=warmup, emit=lines.append)
        return order, lines

    def test_rounds_rotate_the_order(self):
        rows = [row_timer.Row("r1", 4e12, [(x, (lambda x=x: x)) for x in "abc"]),
                row_timer.Row("r2", 2e12, [(x, (lambda x=x: x)) for x in "ab"])]
        order, lines = self._run(rows, 3)
        self.assertEqual(order, list("abc") + list("ab") + list("bca") + list("ba") + list("cab") + list("ab"))
        self.assertEqual(lines[0], "a_r1 r1 1.0000 ms 4000.0 TFLOP/s")
        self.assertEqual(lines[3], "a_r1 r2 1.0000 ms 2000.0 TFLOP/s")
        best = ab_table.best_by_row(lines)
        self.assertEqual(best["r1"], {"a": 4000.0, "b": 2000.0, "c": 1000.0})
        self.assertEqual(ab_table.table(best, "a", ["b"])[1].split()[-1], "0.500")

    def test_setup_runs_before_each_reading_and_warmup_outside_the_rounds(self):
        seen = []
        state = {}
        row = row_timer.Row("r", 1e12, [("a", lambda: state["v"]), ("b", lambda: state["v"])],
                            setup=lambda label: (seen.append(label), state.update(v=label)))
        order, lines = self._run([row], 2, warmup=True)
        # warm-up a, b (eager, untimed); round 1 a, b; round 2 b, a -- each call saw its own setup
        self.assertEqual(seen, ["a", "b", "a", "b", "b", "a"])
        self.assertEqual(order, ["a", "b", "b", "a"])
        self.assertLen(lines, 4)

    def test_bad_rows_are_refused(self):
        with self.assertRaisesRegex(ValueError, "repeats a label"):
            self._run([row_timer.Row("r", 1.0, [("a", lambda: "a"), ("a", lambda: "a")])], 1)
        with self.assertRaisesRegex(ValueError, "single words"):
            self._run([row_timer.Row("r", 1.0, [("a b", lambda: "a")])], 1)
        with self.assertRaisesRegex(ValueError, "no calls"):
            self._run([row_timer.Row("r", 1.0, [])], 1)
        with self.assertRaisesRegex(ValueError, "rounds"):
            self._run([row_timer.Row("r", 1.0, [("a", lambda: "a")])], 0)
        with self.assertRaisesRegex(ValueError, "positive"):
            row_timer.line("a", 1, "r", 0.0, 1.0)

    def test_attention_flops(self):
        # full: 4 * pairs * d
        self.assertEqual(row_timer.attention_flops(2, 8, 1024, 1024, 128, False), 4 * 2 * 8 * 1024 * 1024 * 128)
        # causal, Sq == Sk: S (S + 1) / 2 pairs
        self.assertEqual(row_timer.attention_flops(1, 1, 4, 4, 64, True), 4 * 10 * 64)
        # causal bottom-right, Sq < Sk: query i sees i + Sk - Sq + 1 keys
        self.assertEqual(row_timer.attention_flops(1, 1, 2, 5, 8, True), 4 * (4 + 5) * 8)
        # causal, Sq > Sk: the first Sq - Sk rows see no key
        self.assertEqual(row_timer.attention_flops(1, 1, 5, 2, 8, True), 4 * (0 + 0 + 0 + 1 + 2) * 8)
        # (192, 128): 2 * pairs * (d + dv)
        self.assertEqual(row_timer.attention_flops(1, 1, 3, 3, 192, False, 128), 2 * 9 * 320)


if __name__ == "__main__":
    absltest.main()
