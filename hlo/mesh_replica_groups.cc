#include "hlo/mesh_replica_groups.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "absl/strings/str_cat.h"

namespace hloc {
namespace {

absl::Status Invalid(const std::string& message) {
  return absl::InvalidArgumentError(
      absl::StrCat("mesh-axes replica groups: ", message));
}

// Row-major strides of `dims`.
std::vector<int64_t> Strides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int64_t d = static_cast<int64_t>(dims.size()) - 2; d >= 0; --d) {
    strides[d] = strides[d + 1] * dims[d + 1];
  }
  return strides;
}

// iota(product(dims)) reshaped to `dims`, transposed by `perm`, flattened.
std::vector<int64_t> TransposedIota(const std::vector<int64_t>& dims,
                                    const std::vector<int64_t>& perm) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<int64_t> out_dims;
  for (int64_t p : perm) out_dims.push_back(dims[p]);
  const std::vector<int64_t> in_strides = Strides(dims);
  std::vector<int64_t> out(n);
  std::vector<int64_t> index(out_dims.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t source = 0;
    for (size_t d = 0; d < perm.size(); ++d) {
      source += index[d] * in_strides[perm[d]];
    }
    out[i] = source;
    for (int64_t d = static_cast<int64_t>(index.size()) - 1; d >= 0; --d) {
      if (++index[d] < out_dims[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<std::vector<std::vector<int64_t>>> ExpandMeshAxesReplicaGroups(
    const DeviceMesh& mesh, absl::Span<const MeshAxisRef> axes) {
  const int64_t num_axes = static_cast<int64_t>(mesh.axis_sizes.size());
  int64_t n = 1;
  for (int64_t size : mesh.axis_sizes) {
    if (size < 1) return Invalid("an axis of size < 1");
    n *= size;
    if (n > (int64_t{1} << 24)) return Invalid("too many devices");
  }
  // The mesh's devices, row-major over its axes.
  std::vector<int64_t> devices;
  if (!mesh.device_ids.empty()) {
    devices = mesh.device_ids;
  } else if (!mesh.iota_reshape_dims.empty()) {
    const std::vector<int64_t>& dims = mesh.iota_reshape_dims;
    std::vector<int64_t> perm = mesh.iota_transpose_perm;
    if (perm.empty()) {
      perm.resize(dims.size());
      std::iota(perm.begin(), perm.end(), 0);
    }
    std::vector<int64_t> sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int64_t> identity(perm.size());
    std::iota(identity.begin(), identity.end(), 0);
    int64_t product = 1;
    for (int64_t d : dims) product *= std::max<int64_t>(d, 0);
    if (perm.size() != dims.size() || product != n || sorted != identity) {
      return Invalid("the iota transform does not fit the mesh");
    }
    devices = TransposedIota(dims, perm);
  } else {
    devices.resize(n);
    std::iota(devices.begin(), devices.end(), 0);
  }
  std::vector<int64_t> sorted = devices;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> all(n);
  std::iota(all.begin(), all.end(), 0);
  if (sorted != all) {
    return Invalid("the device ids are not a permutation of 0..n-1");
  }
  // Each mesh axis named by the list is split into the factors its
  // sub-axes name (sorted by pre_size, with the sizes between them as
  // factors of their own); the named factors are grouped over, those of one
  // axis in the order the list names them, the axes in mesh order.
  std::vector<std::vector<const MeshAxisRef*>> refs(num_axes);
  for (const MeshAxisRef& ref : axes) {
    const int64_t a = ref.axis;
    if (a < 0 || a >= num_axes) return Invalid("an axis index out of range");
    if (!refs[a].empty() && (ref.size == 0 || refs[a][0]->size == 0)) {
      return Invalid("an axis named twice");
    }
    refs[a].push_back(&ref);
  }
  std::vector<int64_t> dims, grouped;
  for (int64_t a = 0; a < num_axes; ++a) {
    const int64_t whole = mesh.axis_sizes[a];
    if (refs[a].empty()) {
      dims.push_back(whole);
      continue;
    }
    if (refs[a][0]->size == 0) {
      grouped.push_back(static_cast<int64_t>(dims.size()));
      dims.push_back(whole);
      continue;
    }
    std::vector<int64_t> by_pre(refs[a].size());
    std::iota(by_pre.begin(), by_pre.end(), 0);
    std::sort(by_pre.begin(), by_pre.end(), [&](int64_t x, int64_t y) {
      return refs[a][x]->pre_size < refs[a][y]->pre_size;
    });
    std::vector<int64_t> position(refs[a].size());
    int64_t product = 1;
    for (int64_t r : by_pre) {
      const int64_t pre = refs[a][r]->pre_size;
      const int64_t size = refs[a][r]->size;
      if (pre < product || size < 1 || pre % product != 0) {
        return Invalid("sub-axes that overlap or do not divide their axis");
      }
      if (pre != product) dims.push_back(pre / product);
      position[r] = static_cast<int64_t>(dims.size());
      dims.push_back(size);
      product = pre * size;
    }
    if (whole % product != 0) {
      return Invalid("sub-axes that do not divide their axis");
    }
    if (product != whole) dims.push_back(whole / product);
    for (int64_t p : position) grouped.push_back(p);
  }
  // The other dimensions pick the group, the grouped ones order it.
  std::vector<int64_t> order;
  int64_t group_size = 1;
  for (int64_t d = 0; d < static_cast<int64_t>(dims.size()); ++d) {
    if (std::find(grouped.begin(), grouped.end(), d) == grouped.end()) {
      order.push_back(d);
    }
  }
  for (int64_t d : grouped) {
    order.push_back(d);
    group_size *= dims[d];
  }
  const std::vector<int64_t> positions = TransposedIota(dims, order);
  std::vector<std::vector<int64_t>> groups(n / group_size);
  for (int64_t i = 0; i < n; ++i) {
    groups[i / group_size].push_back(devices[positions[i]]);
  }
  return groups;
}

}  // namespace hloc
