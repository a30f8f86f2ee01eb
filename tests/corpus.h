// Locates the shared JAX corpus (shared/corpus/jax: one directory per case
// holding module.hlo, xla_gpu_opt.hlo, module.pb, in*.npy, out*.npy) from
// tests, whether they run under `bazel test` or from a checkout.
//
// Lookup: $HLOC_CORPUS_DIR if set; else, starting from the real (symlink-
// resolved) path of this library's runfiles data file -- which is inside the
// source checkout -- and then from the working directory, each ancestor
// directory is tried for shared/corpus/jax. The checkout normally sits next
// to shared/, so nothing is hardcoded.
#ifndef TESTS_CORPUS_H_
#define TESTS_CORPUS_H_

#include <string>
#include <vector>

namespace hloc {

// Absolute path of shared/corpus/jax, or "" if it cannot be found.
std::string CorpusDir();

// Names of the corpus cases (the subdirectories of CorpusDir()), sorted;
// empty if the corpus is not found.
std::vector<std::string> CorpusCases();

// CorpusDir()/case_name/file.
std::string CorpusFile(const std::string& case_name, const std::string& file);

// Reads a whole file; false if it cannot be read.
bool ReadFileToString(const std::string& path, std::string* contents);

}  // namespace hloc

#endif  // TESTS_CORPUS_H_
