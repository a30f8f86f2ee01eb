"""The hloc Python extensions, one set per CPython they are built for.

Every extension compiles nanobind's sources with the headers of the Python
that loads it, so an extension and the cuda runtime's bindings inside it
are built per interpreter: `python_ext` names the @python_ext-style
repository (third_party/python.bzl) of that interpreter. The compiler and
runtime libraries below them (//backends, //runtime, //tools, ...) do not
depend on Python and are shared by every interpreter's build.
"""

# What the cuda runtime's bindings (python/cuda_bindings.cc) need beside
# nanobind: no compiler, no LLVM.
CUDA_BINDINGS_DEPS = [
    "//hlo:ir",
    "//hlo:math_util",
    "//runtime:cuda_driver",
    "//runtime:cuda_executor",
    "//runtime:executable",
    "//third_party:absl",
]

# What the compiling extension (python/hloc_extension.cc) needs beside the
# cuda runtime's bindings and nanobind.
COMPILER_DEPS = [
    ":program",
    "//hlo:ir",
    "//third_party:absl",
    "//tools:compile_stages",
    "//tools:hlo_run_core",
    "//tools:module_loader",
]

def _rpath_linkopts(rpath):
    # DT_RPATH, not DT_RUNPATH (--disable-new-dtags): the loader also
    # searches it for the dependencies of the libraries the extension
    # needs (libxml2's ICU, say), not only for the extension's own.
    if rpath == None:
        return []
    return ["-Wl,-rpath," + rpath, "-Wl,--disable-new-dtags"]

def cuda_bindings_library(name, python_ext, tags = []):
    """The cuda runtime's bindings, compiled against `python_ext`'s
    nanobind (linked into _hloc as hloc._hloc.cuda, and into the runtime-
    only _hloc_cuda)."""
    native.cc_library(
        name = name,
        srcs = ["cuda_bindings.cc"],
        hdrs = [
            "cuda_bindings.h",
            "status_error.h",
        ],
        # No shared library of its own: nanobind's symbols are hidden
        # (-fvisibility=hidden), so only an extension that links both
        # statically can resolve them.
        linkstatic = True,
        tags = tags,
        deps = CUDA_BINDINGS_DEPS + [python_ext + "//:nanobind"],
    )

def hloc_extension(name, python_ext, cuda_bindings, rpath = None, tags = []):
    """The full extension hloc._hloc (the compiler, the cpu and interpreter
    runtimes, and the cuda runtime as hloc._hloc.cuda) for `python_ext`'s
    Python. `name` is the extension's file name (its EXT_SUFFIX);
    `rpath`, if given, is where it finds the shared libraries it needs
    (e.g. "$$ORIGIN/lib" for a bundle that carries them)."""
    native.cc_binary(
        name = name,
        srcs = [
            "hloc_extension.cc",
            "host_arguments.cc",
            "host_arguments.h",
        ],
        linkopts = _rpath_linkopts(rpath),
        linkshared = True,
        tags = tags,
        deps = COMPILER_DEPS + [
            cuda_bindings,
            python_ext + "//:nanobind",
        ],
    )

def hloc_cuda_extension(name, python_ext, cuda_bindings, rpath = None, tags = []):
    """The runtime-only extension hloc._hloc_cuda (no compiler, no LLVM):
    saved cuda executables run on DLPack arrays."""
    native.cc_binary(
        name = name,
        srcs = ["cuda_runtime_module.cc"],
        linkopts = _rpath_linkopts(rpath),
        linkshared = True,
        tags = tags,
        deps = [
            cuda_bindings,
            python_ext + "//:nanobind",
        ],
    )
