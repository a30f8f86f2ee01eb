"""OpenMP for cc targets.

Native cc rules cannot propagate compile flags to dependents, so a target
with `#pragma omp` in its own sources needs both:

    load("//third_party:openmp.bzl", "OPENMP_COPTS")

    cc_library(
        name = "parallel_kernels",
        srcs = ["parallel_kernels.cc"],
        copts = OPENMP_COPTS,                  # compile with -fopenmp
        deps = ["//third_party:openmp"],       # link the OpenMP runtime
    )

(g++ links libgomp; clang-19 would link libomp from libomp-19-dev.)
"""

OPENMP_COPTS = ["-fopenmp"]
OPENMP_LINKOPTS = ["-fopenmp"]
