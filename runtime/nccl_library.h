// NCCL, NVIDIA's collective communication library, loaded at run time with
// dlopen ("libnccl.so.2", or the comma-separated list in $HLOC_LIBNCCL) as
// the rest of the CUDA stack is, so that the project builds without it and
// one binary runs wherever it is found. Nothing here includes nccl.h: the
// types, enum values and functions the runtime uses are declared below
// with nccl.h's ABI (NCCL 2.18 and newer, LP64), which NVIDIA keeps stable.
#ifndef RUNTIME_NCCL_LIBRARY_H_
#define RUNTIME_NCCL_LIBRARY_H_

#include <cstddef>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "runtime/cuda_driver.h"

namespace hloc {
namespace cuda {

// nccl.h: typedef enum { ncclSuccess = 0, ... } ncclResult_t.
using ncclResult_t = int;
inline constexpr ncclResult_t ncclSuccess = 0;
using ncclComm_t = struct ncclComm*;
// typedef struct { char internal[NCCL_UNIQUE_ID_BYTES]; } ncclUniqueId;
struct ncclUniqueId {
  char internal[128];
};
// ncclDataType_t.
using ncclDataType_t = int;
inline constexpr ncclDataType_t ncclInt8 = 0;
inline constexpr ncclDataType_t ncclUint8 = 1;
inline constexpr ncclDataType_t ncclInt32 = 2;
inline constexpr ncclDataType_t ncclUint32 = 3;
inline constexpr ncclDataType_t ncclInt64 = 4;
inline constexpr ncclDataType_t ncclUint64 = 5;
inline constexpr ncclDataType_t ncclFloat16 = 6;
inline constexpr ncclDataType_t ncclFloat32 = 7;
inline constexpr ncclDataType_t ncclFloat64 = 8;
inline constexpr ncclDataType_t ncclBfloat16 = 9;
// ncclRedOp_t.
using ncclRedOp_t = int;
inline constexpr ncclRedOp_t ncclSum = 0;
inline constexpr ncclRedOp_t ncclProd = 1;
inline constexpr ncclRedOp_t ncclMax = 2;
inline constexpr ncclRedOp_t ncclMin = 3;

class NcclLibrary {
 public:
  // Opens NCCL (once per process; later calls return the same library or
  // the same error). Unavailable when it is not there or too old.
  static absl::StatusOr<NcclLibrary*> Get();

  // OK for ncclSuccess; otherwise an error naming the function, NCCL's
  // text for the result and its last error, and `context`.
  absl::Status Check(ncclResult_t result, absl::string_view function,
                     absl::string_view context) const;

  const std::string& library() const { return library_; }
  // NCCL_VERSION_CODE of the loaded library (22703 for 2.27.3).
  int version() const { return version_; }

  ncclResult_t (*ncclGetVersion)(int* version) = nullptr;
  const char* (*ncclGetErrorString)(ncclResult_t result) = nullptr;
  const char* (*ncclGetLastError)(ncclComm_t comm) = nullptr;
  ncclResult_t (*ncclGetUniqueId)(ncclUniqueId* id) = nullptr;
  ncclResult_t (*ncclCommInitRank)(ncclComm_t* comm, int nranks,
                                   ncclUniqueId id, int rank) = nullptr;
  ncclResult_t (*ncclCommDestroy)(ncclComm_t comm) = nullptr;
  ncclResult_t (*ncclGroupStart)() = nullptr;
  ncclResult_t (*ncclGroupEnd)() = nullptr;
  ncclResult_t (*ncclAllReduce)(const void* send, void* receive, size_t count,
                                ncclDataType_t type, ncclRedOp_t op,
                                ncclComm_t comm, CUstream stream) = nullptr;
  ncclResult_t (*ncclAllGather)(const void* send, void* receive,
                                size_t send_count, ncclDataType_t type,
                                ncclComm_t comm, CUstream stream) = nullptr;
  ncclResult_t (*ncclReduceScatter)(const void* send, void* receive,
                                    size_t receive_count, ncclDataType_t type,
                                    ncclRedOp_t op, ncclComm_t comm,
                                    CUstream stream) = nullptr;
  ncclResult_t (*ncclSend)(const void* send, size_t count, ncclDataType_t type,
                           int peer, ncclComm_t comm,
                           CUstream stream) = nullptr;
  ncclResult_t (*ncclRecv)(void* receive, size_t count, ncclDataType_t type,
                           int peer, ncclComm_t comm,
                           CUstream stream) = nullptr;

 private:
  NcclLibrary() = default;

  std::string library_;
  void* handle_ = nullptr;
  int version_ = 0;
};

#define HLOC_NCCL_CALL(nccl, context, fn, ...) \
  (nccl)->Check((nccl)->fn(__VA_ARGS__), #fn, (context))

}  // namespace cuda
}  // namespace hloc

#endif  // RUNTIME_NCCL_LIBRARY_H_
