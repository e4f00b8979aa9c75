import json,sys
d=json.load(open(sys.argv[1]))
key=sys.argv[2] if len(sys.argv)>2 else 'graph_tflops'
print("dtype d causal S | fc fa4 cudnn fa2 | fc/fa4 fc/cudnn fc/fa2 | fa4_ok")
for r in d['records']:
    b=r['backends']
    g=lambda n:(b.get(n) or {}).get(key) or float('nan')
    fc,fa4,cd,fa2=g('flashcore'),g('fa4'),g('cudnn'),g('flash')
    ok=(b.get('fa4') or {}).get('within_tolerance')
    print("%s %3d %-5s %5d | %5.0f %5.0f %5.0f %5.0f | %.2f %.2f %.2f | %s"%(r['dtype'],r['head_dim'],'c' if r['causal'] else 'f',r['seqlen'],fc,fa4,cd,fa2,fc/fa4,fc/cd,fc/fa2,ok))
