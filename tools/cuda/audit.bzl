"""Build-graph audit: the real command lines of every compile/link action under some targets,
written as JSON for tests (tests/build_graph_test.py) to check BF16-macro leaks, per-library
arch isolation and that no host CUDA is referenced. Read from the analysed action graph, so it
sees exactly what Bazel will run, defines inherited from deps included."""

_AUDITED_MNEMONICS = ["CudaCompile", "CudaArchive", "CppCompile", "CppLink"]

AuditInfo = provider(fields = {"records": "depset of JSON strings, one per action"})

def _audit_aspect_impl(target, ctx):
    tags = getattr(ctx.rule.attr, "tags", []) or []
    records = []
    for action in target.actions:
        if action.mnemonic not in _AUDITED_MNEMONICS:
            continue
        records.append(json.encode({
            "label": str(target.label),
            "mnemonic": action.mnemonic,
            "argv": action.argv or [],
            "inputs": [f.path for f in action.inputs.to_list() if f.is_source or f.basename.endswith(".cu")][:64],
            "tags": tags,
        }))
    transitive = [d[AuditInfo].records for d in getattr(ctx.rule.attr, "deps", []) if AuditInfo in d]
    return [AuditInfo(records = depset(records, transitive = transitive))]

audit_aspect = aspect(implementation = _audit_aspect_impl, attr_aspects = ["deps"])

def _action_audit_impl(ctx):
    records = depset(transitive = [t[AuditInfo].records for t in ctx.attr.targets]).to_list()
    out = ctx.actions.declare_file(ctx.label.name + ".json")
    ctx.actions.write(out, "[\n" + ",\n".join(records) + "\n]\n")
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles([out]))]

action_audit = rule(
    implementation = _action_audit_impl,
    attrs = {"targets": attr.label_list(aspects = [audit_aspect])},
    doc = "Writes <name>.json: command lines of the compile/link actions of targets and deps.",
)
