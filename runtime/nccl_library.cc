#include "runtime/nccl_library.h"

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "runtime/dlopen_symbols.h"

namespace hloc {
namespace cuda {

absl::StatusOr<NcclLibrary*> NcclLibrary::Get() {
  static absl::StatusOr<NcclLibrary*>* loaded = [] {
    auto* result = new absl::StatusOr<NcclLibrary*>();
    // NCCL_NVLS_ENABLE=0 before NCCL reads its environment: NVLink SHARP
    // (multicast objects) stays off unless the caller asked for it, since
    // on hosts whose GPUs are shared a program using it can put them out
    // of service.
    setenv("NCCL_NVLS_ENABLE", "0", /*overwrite=*/0);
    absl::StatusOr<OpenedLibrary> opened = OpenFirstLibrary(
        LibraryNames("HLOC_LIBNCCL", "libnccl.so.2"), "NCCL");
    if (!opened.ok()) {
      *result = opened.status();
      return result;
    }
    auto* nccl = new NcclLibrary();
    nccl->library_ = opened->name;
    nccl->handle_ = opened->handle;
    SymbolBinder bind(opened->handle);
    NcclLibrary& l = *nccl;
    bind.Bind(&l.ncclGetVersion, {"ncclGetVersion"});
    bind.Bind(&l.ncclGetErrorString, {"ncclGetErrorString"});
    bind.Bind(&l.ncclGetLastError, {"ncclGetLastError"});
    bind.Bind(&l.ncclGetUniqueId, {"ncclGetUniqueId"});
    bind.Bind(&l.ncclCommInitRank, {"ncclCommInitRank"});
    bind.Bind(&l.ncclCommDestroy, {"ncclCommDestroy"});
    bind.Bind(&l.ncclGroupStart, {"ncclGroupStart"});
    bind.Bind(&l.ncclGroupEnd, {"ncclGroupEnd"});
    bind.Bind(&l.ncclAllReduce, {"ncclAllReduce"});
    bind.Bind(&l.ncclAllGather, {"ncclAllGather"});
    bind.Bind(&l.ncclReduceScatter, {"ncclReduceScatter"});
    bind.Bind(&l.ncclSend, {"ncclSend"});
    bind.Bind(&l.ncclRecv, {"ncclRecv"});
    absl::Status status = bind.Check(l.library_, "NCCL 2.18 or newer");
    if (status.ok()) {
      status = HLOC_NCCL_CALL(nccl, "reading the version", ncclGetVersion,
                              &nccl->version_);
    }
    if (!status.ok()) {
      *result = status;
      return result;
    }
    *result = nccl;
    return result;
  }();
  return *loaded;
}

absl::Status NcclLibrary::Check(ncclResult_t result,
                                absl::string_view function,
                                absl::string_view context) const {
  if (result == ncclSuccess) return absl::OkStatus();
  const char* text = ncclGetErrorString(result);
  const char* last = ncclGetLastError(nullptr);
  return absl::InternalError(absl::StrCat(
      context, ": ", function, " failed: ", text != nullptr ? text : "?",
      last != nullptr && *last != '\0' ? absl::StrCat(" (", last, ")") : ""));
}

}  // namespace cuda
}  // namespace hloc
