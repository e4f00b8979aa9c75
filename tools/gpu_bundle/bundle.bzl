"""gpu_bundle: pack the runfiles of py_test / py_binary targets into one tarball that runs on a
machine without Bazel (the lent GPU machines: no Bazel, no Java, no network). See docs/GPU.md.

    load("//tools/gpu_bundle:bundle.bzl", "gpu_bundle")   # a macro: testonly for kind "test"

    gpu_bundle(
        name = "gpu_h200_bundle",                                   # -> gpu_h200_bundle.tar.gz
        targets = {":gpu_h200": "_main/tests/gpu_attention_test.py"},
        kind = "test",                                              # or "binary"
    )

The tarball holds
    bundle/run.py          the runner (standard library only): python3 bundle/run.py --out results
    bundle/manifest.json   per-target metadata (label, kind, main, python path, env) and files
    bundle/runfiles/...    the union of the targets' runfiles trees, symlinks dereferenced
"""

_KINDS = ["test", "binary"]

def _runfiles_path(ws, short_path):
    """Runfiles-relative path of a File's short_path (or of an empty-file name)."""
    if short_path.startswith("../"):
        return short_path[3:]  # external repository: ../repo/x -> repo/x
    return ws + "/" + short_path  # main repository: x -> _main/x

def _label_str(label):
    """'//pkg:name' for the main repository (as TEST_TARGET has it under bazel test)."""
    if not label.workspace_name:
        return "//%s:%s" % (label.package, label.name)
    return str(label)

def _add(entries, paths, path, file_path, is_dir, bundle, label):
    """Records runfiles path -> file; the same path from two different files fails the build."""
    new = {"path": file_path, "dir": is_dir, "from": label}
    prev = entries.get(path)
    paths[path] = True
    if prev != None and file_path == None:
        return  # an empty __init__.py never shadows a real file (as in Bazel's runfiles trees)
    if prev != None and prev["path"] == None:
        prev = None
    if prev != None and (prev["path"], prev["dir"]) != (file_path, is_dir):
        fail(("gpu_bundle %s: runfiles path %r is provided by two different files: %r (from %s) " +
              "and %r (from %s)") % (bundle, path, prev["path"], prev["from"], file_path, label))
    if prev == None:
        entries[path] = new

def _gpu_bundle_impl(ctx):
    ws = ctx.workspace_name  # "_main" under bzlmod
    kind = ctx.attr.kind
    entries = {}  # runfiles path -> {"path": exec path or None (empty file), "dir": bool, "from": label}
    inputs = []
    targets_meta = []

    for target, main in ctx.attr.targets.items():
        label = _label_str(target.label)
        files_to_run = target[DefaultInfo].files_to_run
        if files_to_run == None or files_to_run.executable == None:
            fail("gpu_bundle %s: %s is not an executable target (expected a py_test or py_binary)" %
                 (ctx.label, label))
        runfiles = target[DefaultInfo].default_runfiles
        inputs.append(runfiles.files)

        paths = {}  # this target's runfiles paths
        for f in runfiles.files.to_list():
            _add(entries, paths, _runfiles_path(ws, f.short_path), f.path, f.is_directory, ctx.label, label)
        for s in runfiles.symlinks.to_list():
            inputs.append(depset([s.target_file]))
            _add(entries, paths, ws + "/" + s.path, s.target_file.path, s.target_file.is_directory, ctx.label, label)
        for s in runfiles.root_symlinks.to_list():
            inputs.append(depset([s.target_file]))
            _add(entries, paths, s.path, s.target_file.path, s.target_file.is_directory, ctx.label, label)
        for name in runfiles.empty_filenames.to_list():
            _add(entries, paths, _runfiles_path(ws, name), None, False, ctx.label, label)

        # The main .py: given as a runfiles path (_main/pkg/x.py), a workspace-relative path
        # (pkg/x.py), or empty for <package>/<name>.py.
        if not main:
            main = "%s/%s.py" % (target.label.package, target.label.name) if target.label.package else target.label.name + ".py"
        if main not in paths and (ws + "/" + main) in paths:
            main = ws + "/" + main
        if main not in paths:
            py = sorted([p for p in paths if p.endswith(".py") and p.startswith(ws + "/")])
            fail(("gpu_bundle %s: main %r of %s is not in its runfiles. Give its runfiles path, " +
                  "e.g. one of: %s") % (ctx.label, main, label, ", ".join(py[:20]) or "(no .py files)"))

        imports = []
        if PyInfo in target:
            imports = sorted(target[PyInfo].imports.to_list())

        env = {}
        inherited = []
        if RunEnvironmentInfo in target:
            env.update(target[RunEnvironmentInfo].environment)
            inherited = list(target[RunEnvironmentInfo].inherited_environment)
        env.update(ctx.attr.env)

        targets_meta.append({
            "label": label,
            "package": target.label.package,
            "name": target.label.name,
            "repo": target.label.workspace_name,
            "kind": kind,
            "main": main,
            "imports": imports,
            "env": env,
            "inherited_env": inherited,
            "executable": _runfiles_path(ws, files_to_run.executable.short_path),
        })

    manifest = ctx.actions.declare_file(ctx.label.name + ".manifest.json")
    ctx.actions.write(manifest, json.encode_indent({
        "version": 1,
        "bundle": _label_str(ctx.label),
        "workspace": ws,
        "targets": targets_meta,
        "entries": entries,
    }, indent = "  "))

    out = ctx.actions.declare_file(ctx.label.name + ".tar.gz")
    ctx.actions.run(
        executable = ctx.executable._packer,
        arguments = [
            "--manifest",
            manifest.path,
            "--runner",
            ctx.file._runner.path,
            "--output",
            out.path,
            "--max_mb",
            str(ctx.attr.max_size_mb),
        ],
        inputs = depset([manifest, ctx.file._runner], transitive = inputs),
        outputs = [out],
        mnemonic = "GpuBundle",
        progress_message = "Packing GPU bundle %{label}",
    )
    return [
        DefaultInfo(files = depset([out])),
        OutputGroupInfo(manifest = depset([manifest])),
    ]

_gpu_bundle = rule(
    implementation = _gpu_bundle_impl,
    doc = "Packs the runfiles of py_test/py_binary targets into <name>.tar.gz with a runner " +
          "(bundle/run.py) that behaves like `bazel test` / `bazel run` without Bazel.",
    attrs = {
        "targets": attr.label_keyed_string_dict(
            mandatory = True,
            allow_empty = False,
            cfg = "target",
            doc = "Executable py_test/py_binary target -> runfiles path of its main .py " +
                  "(e.g. '_main/tests/gpu_attention_test.py'; a workspace-relative path is " +
                  "accepted too; '' means <package>/<name>.py).",
        ),
        "kind": attr.string(
            default = "test",
            values = _KINDS,
            doc = "'test': run.py runs every target like `bazel test` (logs, XML, summary). " +
                  "'binary': run.py runs the target(s) like `bazel run`, passing the args after --.",
        ),
        "env": attr.string_dict(
            doc = "Extra environment for every target, on top of its RunEnvironmentInfo.",
        ),
        "max_size_mb": attr.int(
            default = 30,
            doc = "The build fails if the compressed tarball is larger than this many MB (10^6 bytes).",
        ),
        "_packer": attr.label(
            default = Label("//tools/gpu_bundle:packer"),
            executable = True,
            cfg = "exec",
        ),
        "_runner": attr.label(
            default = Label("//tools/gpu_bundle:run.py"),
            allow_single_file = True,
        ),
    },
)

def gpu_bundle(name, targets, kind = "test", testonly = None, **kwargs):
    """Packs `targets` into <name>.tar.gz. Attributes: see _gpu_bundle above.

    Args:
      name: the target; its output is <name>.tar.gz.
      targets: {executable py_test/py_binary label: runfiles path of its main .py}.
      kind: "test" (run like bazel test) or "binary" (run like bazel run).
      testonly: defaults to True for kind "test" (py_test targets are testonly).
      **kwargs: env, max_size_mb, tags, visibility, ...
    """
    if testonly == None:
        testonly = kind == "test"
    _gpu_bundle(name = name, targets = targets, kind = kind, testonly = testonly, **kwargs)
