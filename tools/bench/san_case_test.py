"""CPU checks of san_case.py's arguments: head dims and pairs, feature sets (an unknown name is an
error naming the known ones), forced tiles, passes."""
from absl.testing import absltest
import torch

import san_case


class SanCaseArgsTest(absltest.TestCase):

    def test_dims_and_pairs(self):
        self.assertEqual(san_case.parse_dims("80,72,192:128"), [(80, 80), (72, 72), (192, 128)])

    def test_feature_sets(self):
        self.assertEqual(san_case.parse_features("plain,softcap+gqa,negscale"),
                         [set(), {"softcap", "gqa"}, {"negscale"}])
        with self.assertRaisesRegex(ValueError, "unknown \\['alibi'\\].*negscale"):
            san_case.parse_features("plain,alibi")

    def test_args(self):
        a = san_case.parse_args(["--dims", "96", "--tiles", "auto,long_rows", "--passes", "fwd,bwd",
                                 "--dtypes", "bf16", "--causal", "causal", "--shape", "2,130,77"])
        self.assertEqual(a.tiles, [None, "long_rows"])
        self.assertEqual(a.passes, {"fwd", "bwd"})
        self.assertEqual(a.dtypes, [torch.bfloat16])
        self.assertEqual(a.causal, [True])
        self.assertEqual(a.shape, (2, 130, 77))
        with self.assertRaises(SystemExit):
            san_case.parse_args(["--dims", "96", "--passes", "fwd,dq"])


if __name__ == "__main__":
    absltest.main()
