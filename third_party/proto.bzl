"""local_cc_proto_library: C++ protos with the system protoc, fully offline.

Bazel 4.2.3 has no usable proto rules offline, so this macro runs the system
`protoc` (protobuf-compiler, via @system_libs//:protoc) in a genrule and wraps
the generated .pb.h/.pb.cc in a cc_library that depends on the system
libprotobuf (@system_libs//:protobuf).

Usage (in hlo/proto/BUILD.bazel):

    load("//third_party:proto.bzl", "local_cc_proto_library")

    local_cc_proto_library(
        name = "xla_data_proto",
        srcs = ["xla_data.proto"],
    )

    local_cc_proto_library(
        name = "hlo_proto",
        srcs = ["hlo.proto"],                # import "hlo/proto/xla_data.proto";
        deps = [":xla_data_proto"],          # other local_cc_proto_library targets
        visibility = ["//visibility:public"],
    )

and in C++: #include "hlo/proto/hlo.pb.h"  (paths are relative to the
workspace root, and so are `import` statements inside .proto files).

Besides <name> (the cc_library), the macro creates <name>_genproto (the
genrule) and <name>_proto_srcs (a filegroup with the .proto files of <name>
and of its deps, transitively; protoc needs them all to resolve imports).
Google's well-known types (google/protobuf/*.proto) come with protoc.
Limitations: the protos must live in this (the main) repository, and each
entry in `deps` must be a full label naming a local_cc_proto_library target
(":foo" or "//pkg:foo", not the "//pkg" shorthand).
"""

def local_cc_proto_library(
        name,
        srcs,
        deps = [],
        cc_deps = [],
        visibility = None,
        testonly = None,
        tags = [],
        **kwargs):
    """C++ library for .proto files, generated with the system protoc.

    Args:
      name: name of the cc_library to create.
      srcs: .proto files of this package (may be in subdirectories of it).
      deps: other local_cc_proto_library targets whose protos these import.
      cc_deps: extra cc deps for the generated library (rarely needed).
      visibility: visibility of the cc_library and the .proto filegroup.
      testonly: forwarded to all generated targets.
      tags: forwarded to all generated targets.
      **kwargs: forwarded to the cc_library (e.g. copts).
    """
    for s in srcs:
        if not s.endswith(".proto"):
            fail("local_cc_proto_library(%s): %s is not a .proto file" % (name, s))
    hdrs = [s[:-len(".proto")] + ".pb.h" for s in srcs]
    ccs = [s[:-len(".proto")] + ".pb.cc" for s in srcs]
    dep_protos = [d + "_proto_srcs" for d in deps]

    native.filegroup(
        name = name + "_proto_srcs",
        srcs = srcs + dep_protos,
        visibility = visibility,
        testonly = testonly,
        tags = tags,
    )

    native.genrule(
        name = name + "_genproto",
        srcs = srcs + dep_protos,
        outs = hdrs + ccs,
        tools = ["@system_libs//:protoc"],
        # Proto paths are resolved against the execution root (= workspace
        # root for main-repo files), so generated files land at
        # $(GENDIR)/<package>/<file>.pb.{h,cc} == the declared outs.
        cmd = "$(location @system_libs//:protoc) --proto_path=. --cpp_out=$(GENDIR) " +
              " ".join(["$(location %s)" % s for s in srcs]),
        message = "protoc (C++) %s" % name,
        testonly = testonly,
        tags = tags,
    )

    native.cc_library(
        name = name,
        srcs = ccs,
        hdrs = hdrs,
        deps = deps + cc_deps + ["@system_libs//:protobuf"],
        visibility = visibility,
        testonly = testonly,
        tags = tags,
        **kwargs
    )
