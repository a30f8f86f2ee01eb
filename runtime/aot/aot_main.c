/* The driver of an ahead-of-time compiled module (backends/cpu/aarch64_aot.h):
 * a fixed C program, the same for every module, linked with the module's
 * object file. Everything module-specific comes from the object:
 *
 *   void hloc_aot_entry(void** parameters, void* scratch, void** results);
 *     runs the module's kernels in order. parameters: one pointer per
 *     parameter leaf (entry parameters in order, tuples depth-first), each
 *     laid out as its shape says; scratch: hloc_aot_scratch_bytes bytes,
 *     64-byte aligned (intermediates and outputs); results: the entry
 *     stores there the address of each result leaf.
 *   const long long hloc_aot_num_parameters, hloc_aot_num_results;
 *   const long long hloc_aot_parameter_bytes[], hloc_aot_result_bytes[];
 *   const long long hloc_aot_scratch_bytes;
 *
 * Usage: PROGRAM DIR [REPEAT]. Reads DIR/param<i>.bin (exactly
 * hloc_aot_parameter_bytes[i] bytes each), runs the entry REPEAT times
 * (default 1; the time of the last run goes to stderr), writes
 * DIR/result<j>.bin. Exit status 0 on success, 1 with a message on error.
 */
#define _POSIX_C_SOURCE 200809L  /* clock_gettime */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern void hloc_aot_entry(void** parameters, void* scratch, void** results);
extern const long long hloc_aot_num_parameters;
extern const long long hloc_aot_num_results;
extern const long long hloc_aot_parameter_bytes[];
extern const long long hloc_aot_result_bytes[];
extern const long long hloc_aot_scratch_bytes;

static int Fail(const char* what, const char* path) {
  fprintf(stderr, "hloc aot driver: %s%s%s\n", what, path ? ": " : "",
          path ? path : "");
  return 1;
}

static size_t RoundUp(long long bytes) {
  return (size_t)((bytes + 63) / 64 * 64 + 64);
}

static void* Allocate(long long bytes) {
  void* p = aligned_alloc(64, RoundUp(bytes));
  if (p != NULL) memset(p, 0, RoundUp(bytes));
  return p;
}

/* Compiled while loops ask before each iteration whether to stop
 * (runtime/while_limit.h); this driver sets no iteration limit. */
int hloc_while_iteration(const char* loop, long long iteration) {
  (void)loop;
  (void)iteration;
  return 0;
}

static double Seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: %s DIR [REPEAT]\n", argv[0]);
    return 1;
  }
  const char* dir = argv[1];
  long repeat = argc == 3 ? strtol(argv[2], NULL, 10) : 1;
  if (repeat < 1) return Fail("REPEAT must be a positive integer", argv[2]);
  char path[4096];
  void** parameters =
      calloc((size_t)hloc_aot_num_parameters + 1, sizeof(void*));
  void** results = calloc((size_t)hloc_aot_num_results + 1, sizeof(void*));
  void* scratch = Allocate(hloc_aot_scratch_bytes);
  if (parameters == NULL || results == NULL || scratch == NULL) {
    return Fail("out of memory", NULL);
  }
  for (long long i = 0; i < hloc_aot_num_parameters; ++i) {
    snprintf(path, sizeof(path), "%s/param%lld.bin", dir, i);
    FILE* f = fopen(path, "rb");
    if (f == NULL) return Fail("cannot open", path);
    const long long bytes = hloc_aot_parameter_bytes[i];
    parameters[i] = Allocate(bytes);
    if (parameters[i] == NULL) return Fail("out of memory reading", path);
    if (fread(parameters[i], 1, (size_t)bytes, f) != (size_t)bytes ||
        fgetc(f) != EOF) {
      return Fail("size differs from the parameter's", path);
    }
    fclose(f);
  }
  double seconds = 0;
  for (long r = 0; r < repeat; ++r) {
    const double start = Seconds();
    hloc_aot_entry(parameters, scratch, results);
    seconds = Seconds() - start;
  }
  fprintf(stderr, "hloc aot driver: ran in %.3f ms\n", 1e3 * seconds);
  for (long long j = 0; j < hloc_aot_num_results; ++j) {
    snprintf(path, sizeof(path), "%s/result%lld.bin", dir, j);
    FILE* f = fopen(path, "wb");
    if (f == NULL) return Fail("cannot create", path);
    const size_t bytes = (size_t)hloc_aot_result_bytes[j];
    if (fwrite(results[j], 1, bytes, f) != bytes || fclose(f) != 0) {
      return Fail("cannot write", path);
    }
  }
  return 0;
}
