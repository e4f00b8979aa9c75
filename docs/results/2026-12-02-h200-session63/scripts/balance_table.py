"""ncu --csv output of balance_probe.py -> one line per profiled kernel: launch id, kernel template
arguments, grid, duration, and the SMs' balance (sm__cycles_active avg / max, min / max)."""
import csv
import sys

rows = list(csv.reader(open(sys.argv[1])))
header, data, order = None, {}, []
for r in rows:
    if r and r[0] == "ID":
        header = r
        continue
    if header and len(r) == len(header):
        d = dict(zip(header, r))
        key = int(d["ID"])
        if key not in data:
            order.append(key)
            data[key] = {"name": d["Kernel Name"]}
        data[key][d["Metric Name"]] = float(d["Metric Value"].replace(",", ""))
for key in order:
    m = data[key]
    name = m["name"]
    if "fwd_kernel" not in name and "bwd_kernel" not in name:
        continue
    args = name[name.find("<"):name.find(">") + 1]
    print("%4d %-48s grid %6d %9.1f us  avg/max %.3f  min/max %.3f" % (
        key, args, m["launch__grid_size"], m["gpu__time_duration.sum"] / 1e3,
        m["sm__cycles_active.avg"] / m["sm__cycles_active.max"], m["sm__cycles_active.min"] / m["sm__cycles_active.max"]))
