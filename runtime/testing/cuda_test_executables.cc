#include "runtime/testing/cuda_test_executables.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "runtime/dense_buffer.h"

namespace hloc {
namespace testing {
namespace {

constexpr int64_t kBlock = 256;
constexpr int64_t kSharedBytes = 64 * 1024;

// The global index of this thread in %r4; returns (to DONE) past the end.
std::string IndexPrologue(const std::string& name) {
  return absl::StrCat(R"(
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.s32 %r4, %r1, %r2, %r3;
  setp.ge.s32 %p1, %r4, )",
                      kVectorSize, ";\n  @%p1 bra ", name, "_done;\n");
}

// out[i] = a[i] OP b[i] on f32.
std::string ElementwiseKernel(const std::string& name, const std::string& op) {
  return absl::StrCat(
      ".visible .entry ", name,
      "(.param .u64 pa, .param .u64 pb, .param .u64 pout)\n{\n"
      "  .reg .pred %p<2>;\n  .reg .b32 %r<5>;\n  .reg .f32 %f<4>;\n"
      "  .reg .b64 %rd<8>;",
      IndexPrologue(name), R"(  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pb];
  ld.param.u64 %rd3, [pout];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  cvta.to.global.u64 %rd3, %rd3;
  mul.wide.s32 %rd4, %r4, 4;
  add.s64 %rd5, %rd1, %rd4;
  add.s64 %rd6, %rd2, %rd4;
  add.s64 %rd7, %rd3, %rd4;
  ld.global.f32 %f1, [%rd5];
  ld.global.f32 %f2, [%rd6];
  )",
      op, R"( %f3, %f1, %f2;
  st.global.f32 [%rd7], %f3;
)",
      name, "_done:\n  ret;\n}\n\n");
}

std::string ScalarKernels() {
  return R"(.visible .entry increment_s32(.param .u64 pin, .param .u64 pout)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<3>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  or.b32 %r1, %r1, %r2;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra increment_s32_done;
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  ld.global.u32 %r3, [%rd1];
  add.s32 %r3, %r3, 1;
  st.global.u32 [%rd2], %r3;
increment_s32_done:
  ret;
}

.visible .entry less_than_s32(.param .u64 pa, .param .u64 pb,
                              .param .u64 pout)
{
  .reg .pred %p<3>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  or.b32 %r1, %r1, %r2;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra less_than_s32_done;
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pb];
  ld.param.u64 %rd3, [pout];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  cvta.to.global.u64 %rd3, %rd3;
  ld.global.u32 %r3, [%rd1];
  ld.global.u32 %r4, [%rd2];
  setp.lt.s32 %p2, %r3, %r4;
  selp.u32 %r5, 1, 0, %p2;
  st.global.u8 [%rd3], %r5;
less_than_s32_done:
  ret;
}

)";
}

// out[i] = in[i], staged through the top of a 64 KiB dynamic shared array
// (so the launch needs the opt-in above 48 KiB).
std::string SharedCopyKernel() {
  return absl::StrCat(
      ".extern .shared .align 16 .b8 dynamic_shared[];\n\n"
      ".visible .entry shared_copy_f32(.param .u64 pin, .param .u64 pout)\n"
      "{\n  .reg .pred %p<2>;\n  .reg .b32 %r<10>;\n  .reg .f32 %f<3>;\n"
      "  .reg .b64 %rd<6>;",
      IndexPrologue("shared_copy_f32"), R"(  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mul.wide.s32 %rd3, %r4, 4;
  add.s64 %rd4, %rd1, %rd3;
  add.s64 %rd5, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4];
  mov.u32 %r5, dynamic_shared;
  shl.b32 %r6, %r3, 2;
  mov.u32 %r7, )",
      kSharedBytes - 4, R"(;
  sub.u32 %r8, %r7, %r6;
  add.u32 %r9, %r5, %r8;
  st.shared.f32 [%r9], %f1;
  ld.shared.f32 %f2, [%r9];
  st.global.f32 [%rd5], %f2;
shared_copy_f32_done:
  ret;
}
)");
}

void SetLaunch(ExecutableStep* step, int64_t elements) {
  step->launch.grid[0] = (elements + kBlock - 1) / kBlock;
  step->launch.block[0] = kBlock;
}

Shape Vector() { return Shape::Array(F32, {kVectorSize}); }

float Start(int64_t i) { return 0.5f * static_cast<float>(i); }

}  // namespace

std::string TestPtx() {
  return absl::StrCat(".version 7.0\n.target sm_80\n.address_size 64\n\n",
                      ElementwiseKernel("add_f32", "add.f32"),
                      ElementwiseKernel("mul_f32", "mul.f32"), ScalarKernels(),
                      SharedCopyKernel());
}

ExecutableBuilder::ExecutableBuilder(std::string name) {
  e_.name = std::move(name);
  e_.platform = "cuda";
  e_.target_triple = "nvptx64-nvidia-cuda";
  e_.device_code.push_back({"ptx", "sm_80", TestPtx()});
}

int64_t ExecutableBuilder::Slot(BufferAllocation::Kind kind, const Shape& shape,
                                std::string data) {
  ExecutableAllocation allocation;
  allocation.kind = kind;
  allocation.size = shape.ElementCount() * ByteWidth(shape.element_type());
  allocation.constant_data = std::move(data);
  if (kind == BufferAllocation::Kind::kParameter) {
    allocation.parameter_number =
        static_cast<int64_t>(e_.parameter_shapes.size());
    allocation.parameter_leaf = 0;
  }
  e_.allocations.push_back(std::move(allocation));
  ExecutableBuffer slot;
  slot.allocation = static_cast<int64_t>(e_.allocations.size()) - 1;
  slot.size = e_.allocations.back().size;
  slot.shape = shape;
  slot.name = absl::StrCat("slot", e_.buffers.size());
  e_.buffers.push_back(slot);
  return static_cast<int64_t>(e_.buffers.size()) - 1;
}

int64_t ExecutableBuilder::Parameter(const Shape& shape) {
  const int64_t slot = Slot(BufferAllocation::Kind::kParameter, shape);
  e_.parameter_shapes.push_back(shape);
  e_.parameter_buffers.push_back({slot});
  return slot;
}

int64_t ExecutableBuilder::Constant(const Literal& value) {
  std::string bytes(static_cast<size_t>(value.size_bytes()), '\0');
  CopyLiteralToBuffer(value, value.shape(),
                      reinterpret_cast<uint8_t*>(bytes.data()));
  return Slot(BufferAllocation::Kind::kConstant, value.shape(),
              std::move(bytes));
}

int64_t ExecutableBuilder::Temporary(const Shape& shape) {
  return Slot(BufferAllocation::Kind::kArena, shape);
}

int64_t ExecutableBuilder::Output(const Shape& shape) {
  return Slot(BufferAllocation::Kind::kOutput, shape);
}

Executable ExecutableBuilder::Build(std::vector<ExecutableStep> steps,
                                    const std::vector<int64_t>& results,
                                    bool tuple, std::string hlo_module) {
  std::vector<Shape> shapes;
  for (int64_t slot : results) shapes.push_back(e_.buffers[slot].shape);
  e_.result_shape = tuple ? Shape::Tuple(shapes) : shapes.at(0);
  e_.result_buffers = results;
  e_.steps = std::move(steps);
  e_.hlo_module = std::move(hlo_module);
  return e_;
}

ExecutableStep KernelStep(const std::string& instruction,
                          const std::string& kernel,
                          std::vector<int64_t> buffers,
                          int64_t shared_memory_bytes) {
  ExecutableStep step;
  step.kind = ExecutableStep::Kind::kKernel;
  step.instruction = instruction;
  step.kernel_name = kernel;
  step.buffers = std::move(buffers);
  // Every test kernel writes its last buffer only.
  step.output_buffers = 1;
  SetLaunch(&step, kVectorSize);
  step.launch.shared_memory_bytes = shared_memory_bytes;
  return step;
}

ExecutableStep CopyStep(const std::string& instruction, int64_t from,
                        int64_t to) {
  ExecutableStep step;
  step.kind = ExecutableStep::Kind::kCopy;
  step.instruction = instruction;
  step.buffers = {from, to};
  return step;
}

Executable WhileConditionalExecutable(int32_t trips, bool counted) {
  ExecutableBuilder b("while_conditional");
  const int64_t x = b.Parameter(Vector());
  const int64_t flag = b.Parameter(Shape::Scalar(PRED));
  const int64_t zero = b.Constant(Literal::CreateR0<int32_t>(S32, 0));
  const int64_t limit = b.Constant(Literal::CreateR0<int32_t>(S32, trips));
  Literal start(Vector());
  std::vector<std::string> start_text;
  for (int64_t i = 0; i < kVectorSize; ++i) {
    start.data<float>()[i] = Start(i);
    start_text.push_back(absl::StrCat(Start(i)));
  }
  const int64_t init = b.Constant(start);
  const int64_t i = b.Temporary(Shape::Scalar(S32));
  const int64_t i2 = b.Temporary(Shape::Scalar(S32));
  const int64_t acc = b.Temporary(Vector());
  const int64_t acc2 = b.Temporary(Vector());
  const int64_t predicate = b.Temporary(Shape::Scalar(PRED));
  const int64_t out = b.Output(Vector());
  const int64_t count = b.Output(Shape::Scalar(S32));

  ExecutableStep loop;
  loop.kind = ExecutableStep::Kind::kWhile;
  loop.instruction = "w";
  loop.predicate_buffer = predicate;
  if (counted) loop.trip_count = trips;
  loop.condition = {KernelStep("lt", "less_than_s32", {i, limit, predicate})};
  loop.body = {KernelStep("acc2", "add_f32", {acc, x, acc2}),
               KernelStep("i2", "increment_s32", {i, i2}),
               CopyStep("copy.acc", acc2, acc), CopyStep("copy.i", i2, i)};
  ExecutableStep choose;
  choose.kind = ExecutableStep::Kind::kConditional;
  choose.instruction = "r";
  choose.predicate_buffer = flag;
  choose.branches = {{KernelStep("m", "mul_f32", {acc, acc, out})},
                     {CopyStep("c", acc, out)}};
  std::vector<ExecutableStep> steps = {
      CopyStep("copy.zero", zero, i), CopyStep("copy.init", init, acc), loop,
      choose, CopyStep("copy.count", i, count)};

  const std::string hlo = absl::StrReplaceAll(
      R"(HloModule while_conditional

cond {
  p = (s32[], f32[$N], f32[$N]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  limit = s32[] constant($TRIPS)
  ROOT lt = pred[] compare(i, limit), direction=LT
}

body {
  p = (s32[], f32[$N], f32[$N]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  acc = f32[$N] get-tuple-element(p), index=1
  x = f32[$N] get-tuple-element(p), index=2
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  acc2 = f32[$N] add(acc, x)
  ROOT t = (s32[], f32[$N], f32[$N]) tuple(i2, acc2, x)
}

square {
  a = f32[$N] parameter(0)
  ROOT m = f32[$N] multiply(a, a)
}

identity {
  a = f32[$N] parameter(0)
  ROOT c = f32[$N] copy(a)
}

ENTRY e {
  x = f32[$N] parameter(0)
  flag = pred[] parameter(1)
  zero = s32[] constant(0)
  init = f32[$N] constant({$START})
  t = (s32[], f32[$N], f32[$N]) tuple(zero, init, x)
  w = (s32[], f32[$N], f32[$N]) while(t), condition=cond, body=body
  acc = f32[$N] get-tuple-element(w), index=1
  count = s32[] get-tuple-element(w), index=0
  r = f32[$N] conditional(flag, acc, acc), true_computation=square, false_computation=identity
  ROOT out = (f32[$N], s32[]) tuple(r, count)
}
)",
      {{"$TRIPS", absl::StrCat(trips)},
       {"$START", absl::StrJoin(start_text, ", ")},
       {"$N", absl::StrCat(kVectorSize)}});
  return b.Build(std::move(steps), {out, count}, /*tuple=*/true, hlo);
}

Literal WhileConditionalExpected(const Literal& x, bool flag, int32_t trips) {
  Literal out(Vector());
  for (int64_t i = 0; i < kVectorSize; ++i) {
    // The same additions in the same order as the kernels: exact.
    float acc = Start(i);
    for (int32_t t = 0; t < trips; ++t) acc += x.data<float>()[i];
    out.data<float>()[i] = flag ? acc * acc : acc;
  }
  std::vector<Literal> elements;
  elements.push_back(std::move(out));
  elements.push_back(Literal::CreateR0<int32_t>(S32, trips));
  return Literal::MakeTuple(std::move(elements));
}

Executable IndexedConditionalExecutable(bool evaluator_branch) {
  ExecutableBuilder b("indexed_conditional");
  const int64_t x = b.Parameter(Vector());
  const int64_t y = b.Parameter(Vector());
  const int64_t k = b.Parameter(Shape::Scalar(S32));
  const int64_t picked = b.Temporary(Vector());
  const int64_t out = b.Output(Vector());
  ExecutableStep negate;
  negate.kind = ExecutableStep::Kind::kEvaluator;
  negate.instruction = "neg";
  negate.buffers = {x, picked};
  negate.fallback_hlo = absl::StrCat(
      "HloModule neg\n\nENTRY e {\n  p = f32[", kVectorSize,
      "]{0} parameter(0)\n  ROOT n = f32[", kVectorSize, "]{0} negate(p)\n}\n");
  negate.fallback_reason = "a test of evaluator steps";
  ExecutableStep choose;
  choose.kind = ExecutableStep::Kind::kConditional;
  choose.instruction = "c";
  choose.predicate_buffer = k;
  choose.branches = {{KernelStep("add", "add_f32", {x, y, picked})},
                     {KernelStep("mul", "mul_f32", {x, y, picked})},
                     {evaluator_branch ? negate : CopyStep("x", x, picked)}};
  std::vector<ExecutableStep> steps = {
      choose,
      KernelStep("staged", "shared_copy_f32", {picked, out}, kSharedBytes)};
  return b.Build(std::move(steps), {out}, /*tuple=*/false);
}

Executable GemmExecutable(PrimitiveType type, int64_t batch, int64_t m,
                          int64_t n, int64_t k, const std::string& epilogue,
                          bool transposed_lhs) {
  ExecutableBuilder b(absl::StrCat("gemm_", epilogue));
  auto batched = [&](std::vector<int64_t> dims) {
    if (batch > 1) dims.insert(dims.begin(), batch);
    return Shape::Array(type, dims);
  };
  const int64_t lhs =
      b.Parameter(transposed_lhs ? batched({k, m}) : batched({m, k}));
  const int64_t rhs = b.Parameter(batched({k, n}));
  const bool has_bias = epilogue.find("bias") != std::string::npos;
  const int64_t bias = has_bias ? b.Parameter(Shape::Array(type, {n})) : -1;
  const int64_t out = b.Output(batched({m, n}));
  // Row-major out[M,N] is column-major out^T[N,M] = rhs^T[N,K] x lhs^T[K,M]:
  // the library's lhs is our rhs and its rhs our lhs.
  ExecutableStep gemm;
  gemm.kind = ExecutableStep::Kind::kLibraryCall;
  gemm.instruction = "dot";
  gemm.library = "cublas.gemm";
  gemm.buffers = has_bias ? std::vector<int64_t>{rhs, lhs, bias, out}
                          : std::vector<int64_t>{rhs, lhs, out};
  GemmConfig& g = gemm.gemm;
  g.m = n;
  g.n = m;
  g.k = k;
  g.batch = batch;
  g.lda = n;
  g.transpose_rhs = transposed_lhs;
  g.ldb = transposed_lhs ? m : k;
  g.ldc = n;
  g.stride_lhs = k * n;
  g.stride_rhs = m * k;
  g.stride_out = m * n;
  g.lhs_type = g.rhs_type = g.out_type = type;
  g.epilogue = epilogue;
  return b.Build({gemm}, {out}, /*tuple=*/false);
}

Executable FftExecutable(FftType type, const Shape& input, const Shape& output,
                         const std::vector<int64_t>& fft_length) {
  ExecutableBuilder b("fft");
  const int64_t in = b.Parameter(input);
  const int64_t out = b.Output(output);
  ExecutableStep fft;
  fft.kind = ExecutableStep::Kind::kLibraryCall;
  fft.instruction = "fft";
  fft.library = "cufft";
  fft.buffers = {in, out};
  fft.library_config.fft_type = type;
  fft.library_config.fft_length = fft_length;
  return b.Build({fft}, {out}, /*tuple=*/false);
}

Executable ConvExecutable(PrimitiveType type, const ConvTestShape& t) {
  ExecutableBuilder b("conv");
  const bool first = t.channels_first;
  const Shape input_shape =
      Shape::Array(type, first ? std::vector<int64_t>{t.n, t.c, t.h, t.w}
                               : std::vector<int64_t>{t.n, t.h, t.w, t.c});
  const Shape filter_shape = Shape::Array(
      type, first ? std::vector<int64_t>{t.k, t.c / t.groups, t.r, t.s}
                  : std::vector<int64_t>{t.k, t.r, t.s, t.c / t.groups});
  const Shape out_shape = Shape::Array(
      type, first ? std::vector<int64_t>{t.n, t.k, t.OutH(), t.OutW()}
                  : std::vector<int64_t>{t.n, t.OutH(), t.OutW(), t.k});
  ExecutableStep conv;
  conv.kind = ExecutableStep::Kind::kLibraryCall;
  conv.instruction = "convolution";
  conv.library = "cudnn.conv";
  const int64_t input = b.Parameter(input_shape);
  int64_t result;
  if (t.backward_filter) {
    const int64_t out_gradient = b.Parameter(out_shape);
    result = b.Output(filter_shape);
    conv.buffers = {input, out_gradient, result};
  } else {
    const int64_t filter = b.Parameter(filter_shape);
    result = b.Output(out_shape);
    conv.buffers = {input, filter, result};
  }
  ConvConfig& c = conv.conv;
  c.type = type;
  c.channels_last = !first;
  c.batch = t.n;
  c.input_features = t.c;
  c.output_features = t.k;
  c.feature_group_count = t.groups;
  c.input_spatial = {t.h, t.w};
  c.kernel_spatial = {t.r, t.s};
  c.output_spatial = {t.OutH(), t.OutW()};
  c.strides = {t.stride, t.stride};
  c.padding = {t.padding, t.padding};
  c.dilation = {t.dilation, t.dilation};
  c.backward_filter = t.backward_filter;
  return b.Build({conv}, {result}, /*tuple=*/false);
}

}  // namespace testing
}  // namespace hloc
