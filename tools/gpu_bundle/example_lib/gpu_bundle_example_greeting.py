"""Example library for the gpu_bundle self-test (imported as a top-level module)."""


def greet(who):
    return "hello, %s" % who
