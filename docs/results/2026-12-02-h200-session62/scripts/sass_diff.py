import re,sys,hashlib,collections
def load(p):
    out={}; arch=None; fn=None; buf=[]
    for line in open(p):
        m=re.match(r"\s*code for (sm_\w+)",line)
        if m: arch=m.group(1); continue
        m=re.match(r"\s*Function : (\S+)",line)
        if m:
            if fn: out[(arch,fn)]=hashlib.md5("".join(buf).encode()).hexdigest()
            fn=m.group(1); buf=[]; continue
        if fn:
            i=re.sub(r"/\*[0-9a-f]+\*/","",line)
            buf.append(i)
    if fn: out[(arch,fn)]=hashlib.md5("".join(buf).encode()).hexdigest()
    return out
a=load(sys.argv[1]); b=load(sys.argv[2])
print(len(a),len(b), "functions")
diff=[k for k in set(a)|set(b) if a.get(k)!=b.get(k)]
print(len(diff),"differ")
import subprocess
dem=subprocess.run(["c++filt"],input="\n".join(k[1] for k in diff),capture_output=True,text=True).stdout.split("\n")
for k,d in zip(diff,dem): print(k[0], re.sub(r"\(flashcore::FwdParams.*","",d.replace("flashcore::",""))[:110])
