"""Tests of tools/rbe/stack_config.py: the size policy, and the settings of the generated files
that verdict persistence depends on. (That BuildGrid accepts the files is checked where BuildGrid
is: `tools/remote up` validates them against its schema, and tools/rbe/ci_remote.sh runs them.)"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stack_config  # noqa: E402


def yaml_block(text, start):
    """The lines of `text` from the line that starts with `start` to the next blank line."""
    lines = text.splitlines()
    i = next(n for n, line in enumerate(lines) if line.strip().startswith(start))
    out = []
    for line in lines[i:]:
        if not line.strip():
            break
        out.append(line.strip())
    return out


class SizeTest(unittest.TestCase):
    def test_parse_size(self):
        self.assertEqual(stack_config.parse_size("10G"), 10 * 10**9)
        self.assertEqual(stack_config.parse_size("512m"), 512 * 10**6)
        self.assertEqual(stack_config.parse_size("1.5T"), 1500 * 10**9)
        self.assertEqual(stack_config.parse_size("0"), 0)
        self.assertEqual(stack_config.parse_size("7GB"), 7 * 10**9)
        for bad in ("", "G", "ten", "-1G", "5X"):
            with self.assertRaises(ValueError, msg=bad):
                stack_config.parse_size(bad)

    def test_watermarks(self):
        high, low, batch = stack_config.cas_watermarks(stack_config.parse_size(stack_config.DEFAULT_CAS_LIMIT))
        self.assertEqual(high, 10 * 10**9)
        self.assertEqual(low, 8 * 10**9)
        self.assertEqual(batch, stack_config.CAS_BATCH_BYTES)
        high, low, batch = stack_config.cas_watermarks(10**8)
        self.assertLess(low, high)
        self.assertLessEqual(batch, high - low)
        self.assertGreater(batch, 0)

    def test_cleanup_rejects_inverted_watermarks(self):
        with self.assertRaisesRegex(ValueError, "low watermark"):
            stack_config.cleanup_yml(5432, "/cas", 100, 100, 10, 0)
        with self.assertRaisesRegex(ValueError, "low watermark"):
            stack_config.cleanup_yml(5432, "/cas", 100, -1, 10, 0)


class BuildGridConfigTest(unittest.TestCase):
    def setUp(self):
        self.yml = stack_config.buildgrid_yml(50061, 5432, 6379, "/state/redis.secret", "/state/cas", 60)

    def test_action_cache_is_redis_and_keeps_no_failures(self):
        ac = yaml_block(self.yml, "- !redis-action-cache")
        self.assertIn("cache-failed-actions: false", ac)
        self.assertIn("allow-updates: true", ac)
        self.assertIn("entry-type: action-result", ac)
        # the hit check runs against the indexed CAS, the one the cleanup evicts from
        self.assertIn("storage: *main-storage", ac)
        self.assertIn("redis: *redis", ac)
        self.assertNotIn("!lru-action-cache", self.yml)

    def test_every_service_uses_the_index(self):
        index = yaml_block(self.yml, "- !sql-index &main-storage")
        self.assertIn("storage: *cas-disk", index)
        self.assertIn("sql: *sql", index)
        for service in ("- !cas", "- !bytestream"):
            self.assertIn("storage: *main-storage", yaml_block(self.yml, service))
        self.assertIn("storage: *main-storage", yaml_block(self.yml, "- !sql-scheduler"))
        self.assertEqual(self.yml.count("*cas-disk"), 1, "only the index may touch the disk storage directly")

    def test_redis_connection(self):
        conn = yaml_block(self.yml, "- !redis-connection &redis")
        self.assertIn("host: 127.0.0.1", conn)
        self.assertIn("port: 6379", conn)
        self.assertIn("password: !read-file /state/redis.secret", conn)

    def test_listens_on_loopback_only(self):
        self.assertIn('address: "127.0.0.1:50061"', self.yml)

    def test_cleanup_config(self):
        yml = stack_config.cleanup_yml(5432, "/state/cas", 1000, 800, 100, 10800)
        entry = yaml_block(yml, "- instance-name:")
        for want in ("index: *main-storage", "high-watermark: 1000", "low-watermark: 800", "batch-size: 100",
                     "seconds: 10800"):
            self.assertIn(want, entry)
        # the cleanup runs over the same index (same database, same disk directory) as the server
        self.assertEqual(yaml_block(yml, "- !sql-index"), yaml_block(self.yml, "- !sql-index"))
        self.assertEqual(yaml_block(yml, "- !disk-storage"), yaml_block(self.yml, "- !disk-storage"))


class RedisConfTest(unittest.TestCase):
    def test_persistence_and_bounds(self):
        conf = stack_config.redis_conf(6379, "/state/redis", "s3cret")
        settings = {}
        for line in conf.splitlines():
            if line.strip() and not line.startswith("#"):
                key, _, value = line.partition(" ")
                settings[key] = value
        self.assertEqual(settings["appendonly"], "yes")
        self.assertEqual(settings["appendfsync"], "always")
        self.assertEqual(settings["save"], '""')
        self.assertEqual(settings["dir"], "/state/redis")
        self.assertEqual(settings["bind"], "127.0.0.1")
        self.assertEqual(settings["requirepass"], "s3cret")
        self.assertEqual(settings["maxmemory"], stack_config.REDIS_MAXMEMORY)
        self.assertEqual(settings["maxmemory-policy"], "allkeys-lru")


if __name__ == "__main__":
    unittest.main()
