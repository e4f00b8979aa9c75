"""Session 54: tools/bench/decode.py's decode.json -> a markdown table of % of the HBM floor per
backend and layout (flashcore, FlashInfer's better variant and which, SDPA cuDNN).
Usage: python3 decode_json_table.py decode.json"""
import json
import sys

data = json.load(open(sys.argv[1]))
print("| row | layout | flashcore | FlashInfer (better of CUDA-core / tensor-core) | fc / FI speed | SDPA cuDNN |")
print("|---|---|---|---|---|---|")
for row in data["rows"]:
    if "floor_us" not in row:
        continue
    us, floor = row["us"], row["floor_us"]
    for lay in ("contig", "page16", "page256"):
        fc = us.get("flashcore_" + lay)
        fis = [(us[k], k) for k in ("flashinfer_" + lay, "flashinfer_tc_" + lay) if k in us]
        fi, which = min(fis) if fis else (None, "")
        cudnn = us.get("cudnn") if lay == "contig" else None
        cell = lambda t: "%.1f%% (%.1f us)" % (100 * floor / t, t) if t else "-"
        print("| %s | %s | %s | %s %s | %s | %s |" % (
            row["shape"], lay, cell(fc), cell(fi), "tc" if which.startswith("flashinfer_tc") else "cc" if fi else "",
            "%.3f" % (fi / fc) if fc and fi else "-", cell(cudnn)))
