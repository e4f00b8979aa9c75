"""Example binary for the gpu_bundle self-test: prints its args; `--exit N` exits with N."""

import os
import sys

import gpu_bundle_example_greeting

if __name__ == "__main__":
    print(gpu_bundle_example_greeting.greet("binary"))
    print("args=%r" % (sys.argv[1:],))
    print("cwd_is_runfiles_main=%s" % (os.path.basename(os.getcwd()) == "_main"))
    print("BUILD_WORKING_DIRECTORY=%s" % os.environ.get("BUILD_WORKING_DIRECTORY"))
    if "--exit" in sys.argv:
        sys.exit(int(sys.argv[sys.argv.index("--exit") + 1]))
