"""cuda_library: compiles CUDA sources with the hermetic nvcc of @cuda and returns CcInfo.

Written for flashcore because upstream rules_cuda cannot be fetched here. Attribute names and
meanings follow rules_cuda's cuda_library (srcs, hdrs, deps, defines, local_defines, includes,
copts, host_copts, alwayslink), so that switching to upstream is one load line in the BUILD
files that use it:

    load("@rules_cuda//cuda:defs.bzl", "cuda_library")   # instead of //tools/cuda:defs.bzl

One difference: upstream takes the target architectures from the `--@rules_cuda//cuda:archs`
flag; here `archs` is a per-target attribute (same spelling: "sm_80", "compute_90a:sm_90a"),
because flashcore builds one library per (dtype, arch) in a single configuration. With upstream,
express that as a transition or one `cuda_library` per arch with its own flag value.
"""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain", "use_cpp_toolchain")

CudaLibraryInfo = provider(
    doc = "What a cuda_library compiled for, for build-graph audits.",
    fields = {"archs": "list of arch specs", "gencode": "the -gencode flags it passed"},
)

def gencode_flags(arch):
    """rules_cuda arch spec -> nvcc flag. "sm_80" embeds SASS for sm_80 only (no PTX);
    "compute_90a:sm_90a" spells virtual and real arch explicitly; "compute_80" embeds PTX only
    (JIT-compiled by the driver)."""
    if ":" in arch:
        virtual, real = arch.split(":")
    elif arch.startswith("sm_"):
        virtual, real = "compute_" + arch[3:], arch
    elif arch.startswith("compute_"):
        virtual, real = arch, arch
    else:
        fail("unsupported arch spec %r: use 'sm_XY', 'compute_XY:sm_XY' or 'compute_XY'" % arch)
    return "-gencode=arch=%s,code=%s" % (virtual, real)

def _package_relative(ctx, path):
    base = ctx.label.workspace_root + "/" + ctx.label.package if ctx.label.workspace_root else ctx.label.package
    return (base + "/" + path) if path not in ("", ".") else base

def _cuda_library_impl(ctx):
    cc_toolchain = find_cpp_toolchain(ctx)
    feature_configuration = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )
    if not ctx.attr.archs:
        fail("%s: archs must name at least one architecture" % ctx.label)
    deps_cc = cc_common.merge_cc_infos(cc_infos = [d[CcInfo] for d in ctx.attr.deps])
    deps_cctx = deps_cc.compilation_context

    own_includes = []
    for inc in ctx.attr.includes:
        p = _package_relative(ctx, inc)
        own_includes += [p, ctx.bin_dir.path + "/" + p]
    gencode = [gencode_flags(a) for a in ctx.attr.archs]
    headers = depset(ctx.files.hdrs, transitive = [deps_cctx.headers])

    common = ctx.actions.args()
    common.add("-ccbin", cc_toolchain.compiler_executable)
    common.add_all(["-std=c++17", "-O3", "-Xcompiler", "-fPIC", "--expt-relaxed-constexpr", "-Xptxas", "-v"])
    common.add_all(gencode)
    common.add_all(deps_cctx.defines, format_each = "-D%s")
    common.add_all(ctx.attr.defines, format_each = "-D%s")
    common.add_all(ctx.attr.local_defines, format_each = "-D%s")
    common.add("-I.")
    common.add("-I" + ctx.bin_dir.path)
    common.add_all(own_includes, format_each = "-I%s")
    common.add_all(deps_cctx.includes, format_each = "-I%s")
    common.add_all(deps_cctx.quote_includes, format_each = "-I%s")
    common.add_all(deps_cctx.system_includes, format_each = "-isystem=%s")
    for opt in ctx.attr.host_copts:
        common.add("-Xcompiler=" + opt)
    common.add_all(ctx.attr.copts)

    # One depset for every compile of this target (no per-source flattening of the toolchain).
    compile_tools = depset([ctx.executable._nvcc] + ctx.files._toolkit, transitive = [cc_toolchain.all_files])
    objects = []
    reports = []
    for src in ctx.files.srcs:
        if not src.basename.endswith(".cu"):
            fail("%s: cuda_library srcs must be .cu files, got %s" % (ctx.label, src.short_path))
        stem = "_objs/%s/%s" % (ctx.label.name, src.short_path.replace("/", "_").removesuffix(".cu"))
        obj = ctx.actions.declare_file(stem + ".pic.o")
        report = ctx.actions.declare_file(stem + ".ptxas.txt")
        # ptxas -v goes to a report file (registers, shared memory, spills per kernel); the
        # compiler's own diagnostics are shown only when the compile fails.
        ctx.actions.run_shell(
            command = '"$1" "${@:4}" -x cu -c "$2" -o "$3" 2> "$3.log"; rc=$?; ' +
                      'if [ $rc -ne 0 ]; then cat "$3.log" >&2; rm -f "$3.log"; exit $rc; fi; ' +
                      'mv "$3.log" "' + report.path + '"',
            arguments = [ctx.executable._nvcc.path, src.path, obj.path, common],
            inputs = depset([src], transitive = [headers]),
            tools = compile_tools,
            outputs = [obj, report],
            env = {"PATH": "/usr/bin:/bin"},
            mnemonic = "CudaCompile",
            progress_message = "Compiling CUDA %s for %s" % (src.short_path, ",".join(ctx.attr.archs)),
        )
        objects.append(obj)
        reports.append(report)

    archive = ctx.actions.declare_file("lib%s.pic.a" % ctx.label.name)
    ctx.actions.run(
        executable = cc_toolchain.ar_executable,
        arguments = ["rcsD", archive.path] + [o.path for o in objects],
        inputs = objects,
        tools = cc_toolchain.all_files,
        outputs = [archive],
        mnemonic = "CudaArchive",
    )
    library = cc_common.create_library_to_link(
        actions = ctx.actions,
        feature_configuration = feature_configuration,
        cc_toolchain = cc_toolchain,
        pic_static_library = archive,
        alwayslink = ctx.attr.alwayslink,
    )
    own_cc = CcInfo(
        compilation_context = cc_common.create_compilation_context(
            headers = depset(ctx.files.hdrs),
            includes = depset(own_includes),
            defines = depset(ctx.attr.defines),
        ),
        linking_context = cc_common.create_linking_context(
            linker_inputs = depset([cc_common.create_linker_input(
                owner = ctx.label,
                libraries = depset([library]),
            )]),
        ),
    )
    return [
        DefaultInfo(files = depset([archive])),
        cc_common.merge_cc_infos(direct_cc_infos = [own_cc], cc_infos = [deps_cc]),
        CudaLibraryInfo(archs = ctx.attr.archs, gencode = gencode),
        OutputGroupInfo(ptxas_reports = depset(reports)),
    ]

cuda_library = rule(
    implementation = _cuda_library_impl,
    attrs = {
        "srcs": attr.label_list(allow_files = [".cu"]),
        "hdrs": attr.label_list(allow_files = [".h", ".cuh", ".hpp", ".inl"]),
        "deps": attr.label_list(providers = [CcInfo]),
        "defines": attr.string_list(doc = "-D for this library and everything that depends on it"),
        "local_defines": attr.string_list(doc = "-D for this library's own sources only"),
        "includes": attr.string_list(doc = "package-relative include dirs, propagated"),
        "copts": attr.string_list(doc = "extra nvcc flags for this library's sources"),
        "host_copts": attr.string_list(doc = "host compiler flags (passed with -Xcompiler)"),
        "archs": attr.string_list(doc = "target archs, rules_cuda spelling: sm_80, compute_90a:sm_90a"),
        "alwayslink": attr.bool(default = False),
        "_nvcc": attr.label(
            default = "@cuda//:nvidia/cu13/bin/nvcc",
            executable = True,
            allow_single_file = True,
            cfg = "exec",
        ),
        "_toolkit": attr.label(default = "@cuda//:compiler_files", cfg = "exec"),
        "_cc_toolchain": attr.label(default = "@bazel_tools//tools/cpp:current_cc_toolchain"),
    },
    toolchains = use_cpp_toolchain(),
    fragments = ["cpp"],
    provides = [CcInfo, CudaLibraryInfo],
)
