//===- KernelDescriptor.cpp -----------------------------------------------===//
#include "asmevo/CodeObject/KernelDescriptor.h"
#include "asmevo/CodeObject/TargetInfo.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include <cstring>

using namespace llvm;
using namespace asmevo;

KernelDescriptor::KernelDescriptor(ArrayRef<uint8_t> Raw) {
  Bytes.fill(0);
  std::memcpy(Bytes.data(), Raw.data(), std::min<size_t>(Raw.size(), Size));
}

uint16_t KernelDescriptor::read16(unsigned Off) const {
  return support::endian::read16le(Bytes.data() + Off);
}
uint32_t KernelDescriptor::read32(unsigned Off) const {
  return support::endian::read32le(Bytes.data() + Off);
}
uint64_t KernelDescriptor::read64(unsigned Off) const {
  return support::endian::read64le(Bytes.data() + Off);
}
void KernelDescriptor::write32(unsigned Off, uint32_t V) {
  support::endian::write32le(Bytes.data() + Off, V);
}

Error KernelDescriptor::validate(StringRef Kernel, const TargetInfo &T) const {
  auto Fail = [&](const Twine &Msg) {
    return createStringError("kernel '" + Kernel + "': corrupt descriptor: " +
                             Msg);
  };
  if (userSGPRCount() > 32)
    return Fail("user SGPR count " + Twine(userSGPRCount()) + " > 32");
  if (groupSegmentFixedSize() > 160 * 1024)
    return Fail("group_segment_fixed_size " + Twine(groupSegmentFixedSize()) +
                " exceeds any supported LDS size");
  if (workItemIDDims() == 3)
    return Fail("ENABLE_VGPR_WORKITEM_ID has reserved value 3");
  if ((T.isGFX90A() || T.isGFX94X() || T.isGFX950()) &&
      accumOffset() > allocatedVGPRs())
    return Fail("accum_offset " + Twine(accumOffset()) +
                " beyond the allocated " + Twine(allocatedVGPRs()) +
                " VGPRs");
  return Error::success();
}

void KernelDescriptor::printYAML(raw_ostream &OS, unsigned Indent) const {
  auto Line = [&](StringRef Key) -> raw_ostream & {
    return OS.indent(Indent) << Key << ": ";
  };
  Line("group_segment_fixed_size") << groupSegmentFixedSize() << "\n";
  Line("private_segment_fixed_size") << privateSegmentFixedSize() << "\n";
  Line("kernarg_size") << kernargSize() << "\n";
  Line("kernel_code_entry_byte_offset") << entryByteOffset() << "\n";
  Line("compute_pgm_rsrc1") << format_hex(pgmRsrc1(), 10) << "\n";
  Line("compute_pgm_rsrc2") << format_hex(pgmRsrc2(), 10) << "\n";
  Line("compute_pgm_rsrc3") << format_hex(pgmRsrc3(), 10) << "\n";
  Line("kernel_code_properties") << format_hex(kernelCodeProperties(), 6)
                                 << "\n";
  Line("kernarg_preload") << format_hex(kernargPreload(), 6) << "\n";
  Line("vgpr_granule") << vgprGranule() << "\n";
  Line("sgpr_granule") << sgprGranule() << "\n";
  Line("accum_offset") << accumOffset() << "\n";
  Line("user_sgpr_count") << userSGPRCount() << "\n";
  Line("workgroup_id_xyz") << "[" << enablesWorkgroupID(0) << ", "
                           << enablesWorkgroupID(1) << ", "
                           << enablesWorkgroupID(2) << "]\n";
  Line("workitem_id_dims") << workItemIDDims() << "\n";
  Line("private_segment") << enablesPrivateSegment() << "\n";
  Line("preload_length") << preloadLength() << "\n";
  Line("preload_offset") << preloadOffset() << "\n";
}
