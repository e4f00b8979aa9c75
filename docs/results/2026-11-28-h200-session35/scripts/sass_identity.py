"""Session 35: SASS identity of two builds' kernels, function by function (cuobjdump -sass of each
_C.so into head.sass and tpl.sass in the working directory; instruction text compared, addresses
and encodings dropped). tpl = prepared/pack_gqa_forward_d64_kernel.diff's build: its new template
argument kPackGqa is mapped back (false -> HEAD's name) and its packed kernels counted apart.
Printed: kernels identical / differing, packed kernels, others new."""
import re, sys, collections
def load(path, tpl):
    funcs = collections.defaultdict(list); cur = None
    for line in open(path):
        m = re.search(r"Function : (\S+)", line)
        if m:
            name = m.group(1)
            if tpl:
                if "hopper10fwd_kernel" in name and "ELb1EEEvNS_9FwdParams" in name: name = "PACKED:" + name
                name = name.replace("ELb0EEEvNS_9FwdParamsENS0_13FwdTensorMapsEbi", "EEEvNS_9FwdParamsENS0_13FwdTensorMapsEb")
            # several images (arch variants) may hold the same name: number them
            k = name; i = 0
            while (k + "#%d" % i) in funcs: i += 1
            cur = k + "#%d" % i; funcs[cur] = []; continue
        if cur is None: continue
        m = re.search(r"/\*[0-9a-f]{4,}\*/\s+(.*?);", line)
        if m: funcs[cur].append(re.sub(r"\s+", " ", m.group(1)))
    return funcs
h = load("head.sass", False); t = load("tpl.sass", True)
same = diff = 0; diffs = []
for k, body in h.items():
    if k not in t: diffs.append(("missing", k)); continue
    if body == t[k]: same += 1
    else: diff += 1; diffs.append(("differs", k, len(body), len(t[k])))
packed = [k for k in t if k.startswith("PACKED:")]
extra = [k for k in t if k not in h and not k.startswith("PACKED:")]
print("identical", same, "differ", diff, "packed kernels", len(packed), "other new", len(extra))
for d in diffs[:20]: print(d)
