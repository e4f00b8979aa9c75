"""compute-sanitizer case for the plain-call mainloop copy at every head dim that has it (64, 128,
192): session 58's san_plain_case.py (every d64 / d128 tile) and san_d192_case.py (every 192 tile),
run in one process."""
import os
import runpy

here = os.path.dirname(os.path.abspath(__file__))
runpy.run_path(os.path.join(here, "../../2026-12-01-h200-session58/scripts/san_plain_case.py"), run_name="__main__")
runpy.run_path(os.path.join(here, "san_d192_case.py"), run_name="__main__")
