#include "runtime/nccl_collectives.h"

#include <numeric>
#include <utility>

#include "absl/strings/str_cat.h"
#include "hlo/primitive_type.h"

namespace hloc {
namespace cuda {
namespace {

using Op = CollectiveConfig::Op;

bool IsReduction(Op op) {
  return op == Op::kAllReduce || op == Op::kReduceScatter;
}

ncclRedOp_t RedOp(CollectiveReduction reduction) {
  switch (reduction) {
    case CollectiveReduction::kSum:
      return ncclSum;
    case CollectiveReduction::kProduct:
      return ncclProd;
    case CollectiveReduction::kMin:
      return ncclMin;
    case CollectiveReduction::kMax:
      return ncclMax;
  }
  return ncclSum;
}

// How NCCL is given a buffer of `type` in `c`: as `type`, with
// `per_element` of NCCL's elements per HLO element.
absl::StatusOr<NcclCollectives::PreparedStep> ElementsFor(
    PrimitiveType type, const CollectiveConfig& c) {
  auto Elements = [](ncclDataType_t nccl_type, int64_t per_element) {
    NcclCollectives::PreparedStep elements;
    elements.type = nccl_type;
    elements.per_element = per_element;
    return elements;
  };
  const bool reduces = IsReduction(c.op);
  switch (type) {
    case S8:
      return Elements(ncclInt8, 1);
    case U8:
      return Elements(ncclUint8, 1);
    case S32:
      return Elements(ncclInt32, 1);
    case U32:
      return Elements(ncclUint32, 1);
    case S64:
      return Elements(ncclInt64, 1);
    case U64:
      return Elements(ncclUint64, 1);
    case F16:
      return Elements(ncclFloat16, 1);
    case BF16:
      return Elements(ncclBfloat16, 1);
    case F32:
      return Elements(ncclFloat32, 1);
    case F64:
      return Elements(ncclFloat64, 1);
    default:
      break;
  }
  if (!reduces) {
    return Elements(ncclUint8, ByteWidth(type));
  }
  // A pred's min and max are and and or, on bytes that are 0 or 1.
  if (type == PRED && (c.reduction == CollectiveReduction::kMin ||
                       c.reduction == CollectiveReduction::kMax)) {
    return Elements(ncclUint8, 1);
  }
  if ((type == C64 || type == C128) &&
      c.reduction == CollectiveReduction::kSum) {
    return Elements(type == C64 ? ncclFloat32 : ncclFloat64, 2);
  }
  return absl::UnimplementedError(absl::StrCat(
      "NCCL has no ", CollectiveReductionString(c.reduction), " of ",
      PrimitiveTypeName(type)));
}

}  // namespace

// The communicators of one group layout: per device, its communicator and
// the devices of its group in rank order.
struct NcclCollectives::Clique {
  std::vector<ncclComm_t> comms;
  std::vector<std::vector<int64_t>> members;
};

absl::StatusOr<std::vector<ncclComm_t>> MakeCommunicators(
    const NcclLibrary& nccl, absl::Span<const CudaDevice* const> devices,
    const std::string& what) {
  const NcclLibrary* l = &nccl;
  std::vector<ncclComm_t> comms(devices.size(), nullptr);
  ncclUniqueId id;
  absl::Status status = HLOC_NCCL_CALL(l, what, ncclGetUniqueId, &id);
  // Inside one group call, ncclCommInitRank does not wait for the other
  // ranks, so one thread makes them all.
  if (status.ok()) status = HLOC_NCCL_CALL(l, what, ncclGroupStart);
  for (size_t r = 0; status.ok() && r < devices.size(); ++r) {
    status = devices[r]->MakeCurrent();
    if (status.ok()) {
      status = HLOC_NCCL_CALL(l, what, ncclCommInitRank, &comms[r],
                              static_cast<int>(devices.size()), id,
                              static_cast<int>(r));
    }
  }
  const absl::Status ended = HLOC_NCCL_CALL(l, what, ncclGroupEnd);
  if (status.ok()) status = ended;
  if (!status.ok()) {
    for (ncclComm_t comm : comms) {
      if (comm != nullptr) l->ncclCommDestroy(comm);
    }
    return status;
  }
  return comms;
}

absl::StatusOr<std::unique_ptr<NcclCollectives>> NcclCollectives::Create(
    CudaDriver* driver, const std::vector<int>& ordinals) {
  absl::StatusOr<NcclLibrary*> nccl = NcclLibrary::Get();
  if (!nccl.ok()) return nccl.status();
  std::unique_ptr<NcclCollectives> collectives(new NcclCollectives());
  collectives->nccl_ = *nccl;
  for (int ordinal : ordinals) {
    absl::StatusOr<std::unique_ptr<CudaDevice>> device =
        CudaDevice::Open(driver, ordinal);
    if (!device.ok()) return device.status();
    collectives->devices_.push_back(*std::move(device));
  }
  return collectives;
}

NcclCollectives::~NcclCollectives() {
  for (auto& [groups, clique] : cliques_) {
    for (ncclComm_t comm : clique->comms) {
      if (comm != nullptr) nccl_->ncclCommDestroy(comm);
    }
  }
}

absl::StatusOr<const NcclCollectives::Clique*> NcclCollectives::MakeClique(
    const std::vector<std::vector<int64_t>>& groups) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = cliques_.find(groups); it != cliques_.end()) {
    return it->second.get();
  }
  const int64_t n = num_devices();
  auto clique = std::make_unique<Clique>();
  clique->comms.assign(n, nullptr);
  clique->members.assign(n, {});
  const std::string what = absl::StrCat("creating NCCL communicators for ",
                                        groups.size(), " group(s) of ",
                                        groups.empty() ? 0 : groups[0].size());
  for (const std::vector<int64_t>& group : groups) {
    std::vector<const CudaDevice*> members;
    for (int64_t device : group) members.push_back(devices_[device].get());
    absl::StatusOr<std::vector<ncclComm_t>> comms =
        MakeCommunicators(*nccl_, members, what);
    if (!comms.ok()) {
      for (ncclComm_t comm : clique->comms) {
        if (comm != nullptr) nccl_->ncclCommDestroy(comm);
      }
      return comms.status();
    }
    for (size_t r = 0; r < group.size(); ++r) {
      clique->comms[group[r]] = (*comms)[r];
      clique->members[group[r]] = group;
    }
  }
  const Clique* made = clique.get();
  cliques_.emplace(groups, std::move(clique));
  return made;
}

absl::StatusOr<NcclCollectives::PreparedStep> NcclCollectives::Prepare(
    const Executable& executable, const ExecutableStep& step,
    const std::string& what) {
  const CollectiveConfig& c = step.collective;
  const int64_t devices = c.replica_count * c.num_partitions;
  if (devices != num_devices()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": a collective of a run of ", devices,
                     " devices, in a run of ", num_devices()));
  }
  if (c.op == Op::kReplicaId || c.op == Op::kPartitionId) {
    return PreparedStep();
  }
  const PrimitiveType type =
      executable.buffers[step.buffers[0]].shape.element_type();
  absl::StatusOr<PreparedStep> elements = ElementsFor(type, c);
  if (!elements.ok()) {
    return absl::Status(elements.status().code(),
                        absl::StrCat(what, ": ", elements.status().message()));
  }
  std::vector<std::vector<int64_t>> groups = c.groups;
  if (c.op == Op::kCollectivePermute) {
    groups.assign(1, std::vector<int64_t>(devices));
    std::iota(groups[0].begin(), groups[0].end(), 0);
  }
  absl::StatusOr<const Clique*> clique = MakeClique(groups);
  if (!clique.ok()) {
    return absl::Status(clique.status().code(),
                        absl::StrCat(what, ": ", clique.status().message()));
  }
  PreparedStep prepared = *elements;
  prepared.clique = *clique;
  return prepared;
}

absl::Status NcclCollectives::Issue(const Executable& executable,
                                    const ExecutableStep& step,
                                    const PreparedStep& prepared,
                                    const std::string& what, int64_t device,
                                    absl::Span<const CUdeviceptr> address,
                                    CUstream stream) const {
  const CollectiveConfig& c = step.collective;
  if (prepared.clique == nullptr) {
    return absl::InternalError(absl::StrCat(what, ": not prepared"));
  }
  ncclComm_t comm = prepared.clique->comms[device];
  const int64_t group_size =
      static_cast<int64_t>(prepared.clique->members[device].size());
  const ncclDataType_t nccl_type = prepared.type;
  const int64_t width =
      ByteWidth(executable.buffers[step.buffers[0]].shape.element_type());
  // NCCL's element count of slot i.
  auto count = [&](size_t i) {
    return static_cast<size_t>(executable.buffers[step.buffers[i]].size /
                               width * prepared.per_element);
  };
  auto bytes_of = [&](size_t i) {
    return executable.buffers[step.buffers[i]].size;
  };
  auto ptr = [&](size_t i, int64_t offset = 0) {
    return reinterpret_cast<void*>(address[i] + offset);
  };
  const size_t operands = step.buffers.size() / 2;
  const NcclLibrary* l = nccl_;
  absl::Status status = HLOC_NCCL_CALL(l, what, ncclGroupStart);
  switch (c.op) {
    case Op::kAllReduce:
      for (size_t i = 0; status.ok() && i < operands; ++i) {
        status = HLOC_NCCL_CALL(l, what, ncclAllReduce, ptr(i),
                                ptr(operands + i), count(i), nccl_type,
                                RedOp(c.reduction), comm, stream);
      }
      break;
    case Op::kAllGather:
      for (size_t i = 0; status.ok() && i < operands; ++i) {
        status = HLOC_NCCL_CALL(l, what, ncclAllGather, ptr(i),
                                ptr(operands + i), count(i), nccl_type, comm,
                                stream);
      }
      break;
    case Op::kReduceScatter:
      for (size_t i = 0; status.ok() && i < operands; ++i) {
        status = HLOC_NCCL_CALL(l, what, ncclReduceScatter, ptr(i),
                                ptr(operands + i), count(operands + i),
                                nccl_type, RedOp(c.reduction), comm, stream);
      }
      break;
    case Op::kAllToAll:
      if (operands == 1) {
        // Chunk j of the operand to rank j; chunk k of the result from k.
        const size_t chunk = count(0) / group_size;
        const int64_t chunk_bytes = bytes_of(0) / group_size;
        for (int64_t j = 0; status.ok() && j < group_size; ++j) {
          status = HLOC_NCCL_CALL(l, what, ncclSend, ptr(0, j * chunk_bytes),
                                  chunk, nccl_type, static_cast<int>(j), comm,
                                  stream);
          if (status.ok()) {
            status = HLOC_NCCL_CALL(l, what, ncclRecv,
                                    ptr(1, j * chunk_bytes), chunk, nccl_type,
                                    static_cast<int>(j), comm, stream);
          }
        }
      } else {
        for (int64_t j = 0; status.ok() && j < group_size; ++j) {
          status = HLOC_NCCL_CALL(l, what, ncclSend, ptr(j), count(j),
                                  nccl_type, static_cast<int>(j), comm, stream);
          if (status.ok()) {
            status = HLOC_NCCL_CALL(l, what, ncclRecv, ptr(operands + j),
                                    count(operands + j), nccl_type,
                                    static_cast<int>(j), comm, stream);
          }
        }
      }
      break;
    case Op::kCollectivePermute: {
      // Ranks of the clique of all devices are device ids.
      for (int64_t target = 0; status.ok() && target < num_devices();
           ++target) {
        if (c.sources[target] != device) continue;
        status = HLOC_NCCL_CALL(l, what, ncclSend, ptr(0), count(0), nccl_type,
                                static_cast<int>(target), comm, stream);
      }
      if (status.ok() && c.sources[device] >= 0) {
        status = HLOC_NCCL_CALL(l, what, ncclRecv, ptr(1), count(1), nccl_type,
                                static_cast<int>(c.sources[device]), comm,
                                stream);
      }
      break;
    }
    default:
      status = absl::InternalError(
          absl::StrCat(what, ": not an NCCL collective"));
  }
  // The group must end even after a failed call.
  const absl::Status ended = HLOC_NCCL_CALL(l, what, ncclGroupEnd);
  return status.ok() ? ended : status;
}

}  // namespace cuda
}  // namespace hloc
