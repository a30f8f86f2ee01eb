// HostCollectives on raw buffers, one thread per device: the data each op
// moves, complex arithmetic, results that overlap their operands, and the
// errors that must end a run instead of hanging it (a failed peer, a peer
// that never comes, peers that disagree).
#include "runtime/host_collectives.h"

#include <complex>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace hloc {
namespace {

using Op = CollectiveConfig::Op;

CollectiveConfig Config(
    Op op, std::vector<std::vector<int64_t>> groups, int64_t devices,
    CollectiveReduction reduction = CollectiveReduction::kSum) {
  CollectiveConfig c;
  c.op = op;
  c.reduction = reduction;
  c.replica_count = devices;
  c.groups = std::move(groups);
  return c;
}

// Runs `body(device)` on one thread per device; the statuses in device
// order. Every device is finished (failed on error), as a runtime's driver
// does.
std::vector<absl::Status> OnDevices(
    HostCollectives& collectives,
    const std::function<absl::Status(int64_t)>& body) {
  const int64_t n = collectives.num_devices();
  std::vector<absl::Status> statuses(n);
  std::vector<std::thread> threads;
  for (int64_t d = 0; d < n; ++d) {
    threads.emplace_back([&, d] {
      statuses[d] = body(d);
      collectives.Finish(d, !statuses[d].ok());
    });
  }
  for (std::thread& t : threads) t.join();
  return statuses;
}

template <typename T>
HostCollectiveCall Call(const CollectiveConfig& config, PrimitiveType type,
                        std::vector<T>& in, std::vector<T>& out,
                        std::vector<void*>& buffers,
                        std::vector<int64_t>& sizes) {
  buffers = {in.data(), out.data()};
  sizes = {static_cast<int64_t>(in.size() * sizeof(T)),
           static_cast<int64_t>(out.size() * sizeof(T))};
  HostCollectiveCall call;
  call.step = 7;
  call.name = "op.1";
  call.config = &config;
  call.element_type = type;
  call.buffers = buffers;
  call.sizes = sizes;
  return call;
}

TEST(HostCollectivesTest, AllReduceSumsInGroups) {
  const CollectiveConfig config = Config(Op::kAllReduce, {{0, 2}, {1, 3}}, 4);
  HostCollectives collectives(4);
  std::vector<std::vector<float>> out(4, std::vector<float>(3));
  auto statuses = OnDevices(collectives, [&](int64_t d) {
    std::vector<float> in = {1.0f * d, 10.0f * d, 0.5f};
    std::vector<void*> buffers;
    std::vector<int64_t> sizes;
    return collectives.Run(d, Call(config, F32, in, out[d], buffers, sizes));
  });
  for (const absl::Status& s : statuses) ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0], (std::vector<float>{2, 20, 1}));
  EXPECT_EQ(out[2], (std::vector<float>{2, 20, 1}));
  EXPECT_EQ(out[1], (std::vector<float>{4, 40, 1}));
  EXPECT_EQ(out[3], (std::vector<float>{4, 40, 1}));
}

TEST(HostCollectivesTest, ComplexProductIsComplexArithmetic) {
  using C = std::complex<float>;
  const CollectiveConfig config =
      Config(Op::kAllReduce, {{0, 1}}, 2, CollectiveReduction::kProduct);
  HostCollectives collectives(2);
  std::vector<std::vector<C>> out(2, std::vector<C>(1));
  auto statuses = OnDevices(collectives, [&](int64_t d) {
    std::vector<C> in = {d == 0 ? C(1, 2) : C(3, -1)};
    std::vector<void*> buffers;
    std::vector<int64_t> sizes;
    return collectives.Run(d, Call(config, C64, in, out[d], buffers, sizes));
  });
  for (const absl::Status& s : statuses) ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0][0], C(5, 5));
  EXPECT_EQ(out[1][0], C(5, 5));
}

TEST(HostCollectivesTest, MaxOfComplexIsAnErrorOnEveryDevice) {
  using C = std::complex<double>;
  const CollectiveConfig config =
      Config(Op::kAllReduce, {{0, 1}}, 2, CollectiveReduction::kMax);
  HostCollectives collectives(2);
  auto statuses = OnDevices(collectives, [&](int64_t d) {
    std::vector<C> in(2), out(2);
    std::vector<void*> buffers;
    std::vector<int64_t> sizes;
    return collectives.Run(d, Call(config, C128, in, out, buffers, sizes));
  });
  for (const absl::Status& s : statuses) {
    EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
    EXPECT_NE(std::string(s.message()).find("max is not defined on c128"),
              std::string::npos)
        << s;
  }
}

// A result in its operand's memory (buffer reuse): peers still read the
// operand while this device reduces, so it must not be overwritten early.
TEST(HostCollectivesTest, InPlaceAllReduceAndPermute) {
  HostCollectives collectives(4);
  const CollectiveConfig reduce = Config(Op::kAllReduce, {{0, 1, 2, 3}}, 4);
  CollectiveConfig permute = Config(Op::kCollectivePermute, {}, 4);
  permute.sources = {3, 0, -1, 2};
  std::vector<std::vector<int32_t>> sums(4), moved(4);
  auto statuses = OnDevices(collectives, [&](int64_t d) -> absl::Status {
    std::vector<int32_t> data(1000, static_cast<int32_t>(d + 1));
    std::vector<void*> buffers = {data.data(), data.data()};
    std::vector<int64_t> sizes = {4000, 4000};
    HostCollectiveCall call;
    call.step = 0;
    call.name = "all-reduce.0";
    call.config = &reduce;
    call.element_type = S32;
    call.buffers = buffers;
    call.sizes = sizes;
    absl::Status status = collectives.Run(d, call);
    if (!status.ok()) return status;
    sums[d] = data;
    std::fill(data.begin(), data.end(), static_cast<int32_t>(d + 1));
    call.step = 1;
    call.config = &permute;
    status = collectives.Run(d, call);
    moved[d] = data;
    return status;
  });
  for (const absl::Status& s : statuses) ASSERT_TRUE(s.ok()) << s;
  for (int64_t d = 0; d < 4; ++d) {
    EXPECT_EQ(sums[d], std::vector<int32_t>(1000, 10)) << d;
  }
  EXPECT_EQ(moved[0], std::vector<int32_t>(1000, 4));
  EXPECT_EQ(moved[1], std::vector<int32_t>(1000, 1));
  EXPECT_EQ(moved[2], std::vector<int32_t>(1000, 0));
  EXPECT_EQ(moved[3], std::vector<int32_t>(1000, 3));
}

TEST(HostCollectivesTest, AFailedPeerReleasesTheGroup) {
  const CollectiveConfig config = Config(Op::kAllReduce, {{0, 1, 2}}, 3);
  HostCollectives collectives(3);
  auto statuses = OnDevices(collectives, [&](int64_t d) -> absl::Status {
    if (d == 1) return absl::InternalError("kernel failed");
    std::vector<float> in(4), out(4);
    std::vector<void*> buffers;
    std::vector<int64_t> sizes;
    return collectives.Run(d, Call(config, F32, in, out, buffers, sizes));
  });
  EXPECT_TRUE(absl::IsAborted(statuses[0])) << statuses[0];
  EXPECT_NE(std::string(statuses[0].message()).find("device 1 stopped"),
            std::string::npos);
  EXPECT_TRUE(absl::IsAborted(statuses[2])) << statuses[2];
}

TEST(HostCollectivesTest, APeerThatFinishesWithoutComingIsReported) {
  const CollectiveConfig config = Config(Op::kAllReduce, {{0, 1}}, 2);
  HostCollectives collectives(2);
  auto statuses = OnDevices(collectives, [&](int64_t d) -> absl::Status {
    if (d == 1) return absl::OkStatus();
    std::vector<float> in(4), out(4);
    std::vector<void*> buffers;
    std::vector<int64_t> sizes;
    return collectives.Run(d, Call(config, F32, in, out, buffers, sizes));
  });
  EXPECT_TRUE(absl::IsFailedPrecondition(statuses[0])) << statuses[0];
  EXPECT_NE(std::string(statuses[0].message()).find("control flow differs"),
            std::string::npos);
}

TEST(HostCollectivesTest, WaitingTooLongNamesTheStepAndTheMissingDevice) {
  const CollectiveConfig config = Config(Op::kAllGather, {{0, 1}}, 2);
  HostCollectives collectives(2, std::chrono::milliseconds(100));
  std::vector<float> in(2), out(4);
  std::vector<void*> buffers;
  std::vector<int64_t> sizes;
  // Device 1 is never started (and never finished).
  absl::Status status =
      collectives.Run(0, Call(config, F32, in, out, buffers, sizes));
  EXPECT_TRUE(absl::IsDeadlineExceeded(status)) << status;
  EXPECT_NE(std::string(status.message())
                .find("collective step 7 (all-gather op.1), run 1 on device "
                      "0 waited 100 ms for device 1"),
            std::string::npos)
      << status;
}

TEST(HostCollectivesTest, PeersThatDisagreeOnSizesAllFail) {
  const CollectiveConfig config = Config(Op::kAllReduce, {{0, 1}}, 2);
  HostCollectives collectives(2);
  auto statuses = OnDevices(collectives, [&](int64_t d) {
    std::vector<float> in(2 + d), out(2 + d);
    std::vector<void*> buffers;
    std::vector<int64_t> sizes;
    return collectives.Run(d, Call(config, F32, in, out, buffers, sizes));
  });
  for (const absl::Status& s : statuses) {
    EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
    EXPECT_NE(std::string(s.message()).find("disagree"), std::string::npos);
  }
}

TEST(HostCollectivesTest, SizesThatDoNotFitTheOpAreRejected) {
  const CollectiveConfig config = Config(Op::kAllGather, {{0}}, 1);
  HostCollectives collectives(1);
  std::vector<float> in(2), out(3);
  std::vector<void*> buffers;
  std::vector<int64_t> sizes;
  absl::Status status =
      collectives.Run(0, Call(config, F32, in, out, buffers, sizes));
  EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
}

TEST(HostCollectivesTest, AModuleForFourDevicesRunAloneIsAnError) {
  const CollectiveConfig config = Config(Op::kAllReduce, {{0, 1, 2, 3}}, 4);
  HostCollectives collectives(1);
  std::vector<float> in(2), out(2);
  std::vector<void*> buffers;
  std::vector<int64_t> sizes;
  absl::Status status =
      collectives.Run(0, Call(config, F32, in, out, buffers, sizes));
  EXPECT_TRUE(absl::IsFailedPrecondition(status)) << status;
  EXPECT_NE(std::string(status.message()).find("compiled for 4 devices"),
            std::string::npos);
}

TEST(HostCollectivesTest, DeviceIds) {
  CollectiveConfig config;
  config.op = Op::kPartitionId;
  config.replica_count = 2;
  config.num_partitions = 3;
  HostCollectives collectives(6);
  uint32_t id = 99;
  std::vector<void*> buffers = {&id};
  std::vector<int64_t> sizes = {4};
  HostCollectiveCall call;
  call.config = &config;
  call.element_type = U32;
  call.buffers = buffers;
  call.sizes = sizes;
  ASSERT_TRUE(collectives.Run(5, call).ok());
  EXPECT_EQ(id, 2u);
  config.op = Op::kReplicaId;
  ASSERT_TRUE(collectives.Run(5, call).ok());
  EXPECT_EQ(id, 1u);
}

TEST(HostCollectivesTest, RunOnHostDevicesReportsTheRootCause) {
  const CollectiveConfig config = Config(Op::kAllReduce, {{0, 1}}, 2);
  HostCollectives collectives(2);
  absl::StatusOr<std::vector<Literal>> results =
      RunOnHostDevices(collectives, [&](int64_t d) -> absl::StatusOr<Literal> {
        if (d == 1) return absl::ResourceExhaustedError("out of memory");
        std::vector<float> in(4), out(4);
        std::vector<void*> buffers;
        std::vector<int64_t> sizes;
        absl::Status status =
            collectives.Run(d, Call(config, F32, in, out, buffers, sizes));
        if (!status.ok()) return status;
        return Literal();
      });
  ASSERT_FALSE(results.ok());
  EXPECT_TRUE(absl::IsResourceExhausted(results.status())) << results.status();
  EXPECT_EQ(results.status().message(), "device 1: out of memory");
}

}  // namespace
}  // namespace hloc
