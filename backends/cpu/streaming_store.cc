#include "backends/cpu/streaming_store.h"

#include <algorithm>
#include <fstream>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "backends/common/loop_emitter.h"
#include "backends/cpu/ir_emitter.h"
#include "hlo/primitive_type.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Metadata.h"

namespace hloc {
namespace {

constexpr int64_t kLine = 64;

// dst[i] = src[i] for i in [from, to), a byte at a time (at most a line's
// worth at either end of a copy).
void EmitByteCopy(llvm::Value* dst, llvm::Value* src, llvm::Value* from,
                  llvm::Value* to, llvm::IRBuilderBase* b) {
  absl::Status ignored = EmitForLoop(
      "stream.bytes", from, to, b->getInt64(1),
      [&](llvm::Value* i) {
        llvm::Value* byte =
            b->CreateLoad(b->getInt8Ty(), b->CreateGEP(b->getInt8Ty(), src, i));
        b->CreateStore(byte, b->CreateGEP(b->getInt8Ty(), dst, i));
        return absl::OkStatus();
      },
      b);
  (void)ignored;  // The body cannot fail.
}

// The size of the largest cache cpu0 sees, from sysfs ("32768K"), or 0.
// sysfs is what lscpu reads; glibc's sysconf(_SC_LEVEL3_CACHE_SIZE) can
// report the whole package's L3 on AMD (10x what one core's CCX has).
int64_t LargestCacheBytes() {
  int64_t largest = 0;
  for (int index = 0; index < 8; ++index) {
    std::ifstream file(absl::StrCat("/sys/devices/system/cpu/cpu0/cache/index",
                                    index, "/size"));
    std::string text;
    if (!(file >> text) || text.empty()) continue;
    int64_t scale = 1;
    if (text.back() == 'K') scale = int64_t{1} << 10;
    if (text.back() == 'M') scale = int64_t{1} << 20;
    if (scale != 1) text.pop_back();
    int64_t value = 0;
    if (absl::SimpleAtoi(text, &value)) {
      largest = std::max(largest, value * scale);
    }
  }
  return largest;
}

}  // namespace

int64_t StreamingStoreThreshold() {
  static const int64_t threshold = [] {
    int64_t llc = LargestCacheBytes();
    return llc > 0 ? llc : int64_t{32} << 20;
  }();
  return threshold;
}

bool UseStreamingStores(const CpuCodegenOptions& options, const Shape& shape) {
  if (!options.target_triple.empty() || options.streaming_store_min_bytes <= 0) {
    return false;
  }
  if (!shape.IsArray() || !IsSupportedElementType(shape.element_type())) {
    return false;
  }
  return shape.ElementCount() * ByteWidth(shape.element_type()) >=
         options.streaming_store_min_bytes;
}

void EmitStreamingCopy(llvm::Value* dst, llvm::Value* src, llvm::Value* bytes,
                       llvm::IRBuilderBase* b) {
  llvm::Type* i64 = b->getInt64Ty();
  llvm::Value* address = b->CreatePtrToInt(dst, i64);
  // Bytes before dst's first line boundary.
  llvm::Value* head = b->CreateBinaryIntrinsic(
      llvm::Intrinsic::umin, bytes,
      b->CreateAnd(b->CreateNeg(address), b->getInt64(kLine - 1)));
  EmitByteCopy(dst, src, b->getInt64(0), head, b);
  llvm::Value* lines =
      b->CreateLShr(b->CreateSub(bytes, head), b->getInt64(6));
  auto* line_type = llvm::FixedVectorType::get(b->getInt32Ty(), kLine / 4);
  llvm::MDNode* nontemporal = llvm::MDNode::get(
      b->getContext(),
      {llvm::ConstantAsMetadata::get(b->getInt32(1))});
  absl::Status ignored = EmitForLoop(
      "stream.lines", b->getInt64(0), lines, b->getInt64(1),
      [&](llvm::Value* j) {
        llvm::Value* offset =
            b->CreateAdd(head, b->CreateShl(j, b->getInt64(6)), "", true, true);
        llvm::Value* line = b->CreateAlignedLoad(
            line_type, b->CreateGEP(b->getInt8Ty(), src, offset),
            llvm::Align(1));
        llvm::StoreInst* store = b->CreateAlignedStore(
            line, b->CreateGEP(b->getInt8Ty(), dst, offset), llvm::Align(kLine));
        store->setMetadata(llvm::LLVMContext::MD_nontemporal, nontemporal);
        return absl::OkStatus();
      },
      b);
  (void)ignored;  // The body cannot fail.
  llvm::Value* tail =
      b->CreateAdd(head, b->CreateShl(lines, b->getInt64(6)), "", true, true);
  EmitByteCopy(dst, src, tail, bytes, b);
}

llvm::Value* EmitStageBuffer(PrimitiveType type, int64_t elements,
                             llvm::IRBuilderBase* b) {
  auto* buffer = llvm::cast<llvm::AllocaInst>(EmitAllocaAtEntry(
      llvm::ArrayType::get(b->getInt8Ty(), elements * ByteWidth(type)),
      "stage", b));
  buffer->setAlignment(llvm::Align(kLine));
  return buffer;
}

void EmitStreamOut(const IrArray& out, llvm::Value* start, llvm::Value* length,
                   llvm::Value* stage, llvm::IRBuilderBase* b) {
  llvm::Value* width = b->getInt64(ByteWidth(out.shape().element_type()));
  EmitStreamingCopy(b->CreateGEP(b->getInt8Ty(), out.base(),
                                 b->CreateMul(start, width, "", true, true)),
                    stage, b->CreateMul(length, width, "", true, true), b);
}

void EmitStreamingFence(llvm::IRBuilderBase* b) {
  b->CreateFence(llvm::AtomicOrdering::SequentiallyConsistent);
}

}  // namespace hloc
