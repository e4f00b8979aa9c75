#!/bin/bash
C=$(cd "$(dirname "$0")" && pwd)
R=/tmp/suites/bundle/runfiles
[ -d $R ] || { mkdir -p /tmp/suites && tar xzf $C/gpu_h100_bundle.tar.gz -C /tmp/suites; }
mkdir -p /tmp/san2 && PYTHONPATH=$R/_main/py:$R/_main/tests OUT=/tmp/san2 timeout ${SAN_T:-150} python3 $C/san_race.py $R > $OUT/san_race.txt 2>&1; echo "rc=$?"; head -1 $OUT/san_race.txt | cut -c1-200; tail -4 $OUT/san_race.txt | cut -c1-300
cp /tmp/san2/racecheck.log $OUT/ 2>/dev/null; grep -E "^swept|SUMMARY" /tmp/san2/racecheck.log | tail -15
