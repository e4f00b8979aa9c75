import re,sys,subprocess
def load(p):
    out={}; fn=None
    for line in open(p):
        m=re.search(r"Function (\S+):",line)
        if m: fn=m.group(1); continue
        m=re.search(r"REG:(\d+) STACK:(\d+) SHARED:(\d+) LOCAL:(\d+)",line)
        if m and fn: out[fn]=m.groups(); fn=None
    return out
a=load(sys.argv[1]); b=load(sys.argv[2])
names=sorted(set(a)|set(b))
dem=subprocess.run(["c++filt"],input="\n".join(names),capture_output=True,text=True).stdout.split("\n")
for n,d in zip(names,dem):
    if a.get(n)!=b.get(n) or (sys.argv[3:] and sys.argv[3] in d):
        d=re.sub(r"flashcore::(hopper::)?","",d); d=re.sub(r"\(FwdParams.*","",d)
        print(a.get(n),b.get(n),d[:120])
