//===- DescriptorFields.cpp -----------------------------------------------===//
#include "asmevo/CodeObject/DescriptorFields.h"
#include "asmevo/CodeObject/KernelDescriptor.h"
#include <cassert>

using namespace llvm;

namespace asmevo {

// Byte offsets of the words the bit fields live in.
enum : unsigned {
  Rsrc3 = 44 * 8,
  Rsrc1 = 48 * 8,
  Rsrc2 = 52 * 8,
  Props = 56 * 8,
  Preload = 58 * 8,
};

static const DescriptorField Fields[] = {
    {"group_segment_fixed_size", 0, 32},
    {"private_segment_fixed_size", 32, 32},
    {"kernarg_size", 64, 32},
    {"reserved0", 96, 32},
    {"kernel_code_entry_byte_offset", 128, 64},
    // 20 reserved bytes, named in 64-bit pieces (a field is read as one
    // integer).
    {"reserved1", 192, 64},
    {"reserved1+8", 256, 64},
    {"reserved1+16", 320, 32},
    // COMPUTE_PGM_RSRC3 (GFX90A, GFX942, GFX950).
    {"accum_offset", Rsrc3 + 0, 6},
    {"compute_pgm_rsrc3.reserved6", Rsrc3 + 6, 10},
    {"tg_split", Rsrc3 + 16, 1},
    {"compute_pgm_rsrc3.reserved17", Rsrc3 + 17, 15},
    // COMPUTE_PGM_RSRC1.
    {"granulated_workitem_vgpr_count", Rsrc1 + 0, 6},
    {"granulated_wavefront_sgpr_count", Rsrc1 + 6, 4},
    {"priority", Rsrc1 + 10, 2},
    {"float_round_mode_32", Rsrc1 + 12, 2},
    {"float_round_mode_16_64", Rsrc1 + 14, 2},
    {"float_denorm_mode_32", Rsrc1 + 16, 2},
    {"float_denorm_mode_16_64", Rsrc1 + 18, 2},
    {"priv", Rsrc1 + 20, 1},
    {"enable_dx10_clamp", Rsrc1 + 21, 1},
    {"debug_mode", Rsrc1 + 22, 1},
    {"enable_ieee_mode", Rsrc1 + 23, 1},
    {"bulky", Rsrc1 + 24, 1},
    {"cdbg_user", Rsrc1 + 25, 1},
    {"fp16_ovfl", Rsrc1 + 26, 1},
    {"compute_pgm_rsrc1.reserved27", Rsrc1 + 27, 2},
    {"wgp_mode", Rsrc1 + 29, 1},
    {"mem_ordered", Rsrc1 + 30, 1},
    {"fwd_progress", Rsrc1 + 31, 1},
    // COMPUTE_PGM_RSRC2.
    {"enable_private_segment", Rsrc2 + 0, 1},
    {"user_sgpr_count", Rsrc2 + 1, 5},
    {"enable_trap_handler", Rsrc2 + 6, 1},
    {"enable_sgpr_workgroup_id_x", Rsrc2 + 7, 1},
    {"enable_sgpr_workgroup_id_y", Rsrc2 + 8, 1},
    {"enable_sgpr_workgroup_id_z", Rsrc2 + 9, 1},
    {"enable_sgpr_workgroup_info", Rsrc2 + 10, 1},
    {"enable_vgpr_workitem_id", Rsrc2 + 11, 2},
    {"enable_exception_address_watch", Rsrc2 + 13, 1},
    {"enable_exception_memory", Rsrc2 + 14, 1},
    {"granulated_lds_size", Rsrc2 + 15, 9},
    {"enable_exception_ieee_754_fp_invalid_operation", Rsrc2 + 24, 1},
    {"enable_exception_fp_denormal_source", Rsrc2 + 25, 1},
    {"enable_exception_ieee_754_fp_division_by_zero", Rsrc2 + 26, 1},
    {"enable_exception_ieee_754_fp_overflow", Rsrc2 + 27, 1},
    {"enable_exception_ieee_754_fp_underflow", Rsrc2 + 28, 1},
    {"enable_exception_ieee_754_fp_inexact", Rsrc2 + 29, 1},
    {"enable_exception_int_divide_by_zero", Rsrc2 + 30, 1},
    {"compute_pgm_rsrc2.reserved31", Rsrc2 + 31, 1},
    // kernel_code_properties.
    {"enable_sgpr_private_segment_buffer", Props + 0, 1},
    {"enable_sgpr_dispatch_ptr", Props + 1, 1},
    {"enable_sgpr_queue_ptr", Props + 2, 1},
    {"enable_sgpr_kernarg_segment_ptr", Props + 3, 1},
    {"enable_sgpr_dispatch_id", Props + 4, 1},
    {"enable_sgpr_flat_scratch_init", Props + 5, 1},
    {"enable_sgpr_private_segment_size", Props + 6, 1},
    {"kernel_code_properties.reserved7", Props + 7, 3},
    {"enable_wavefront_size32", Props + 10, 1},
    {"uses_dynamic_stack", Props + 11, 1},
    {"kernel_code_properties.reserved12", Props + 12, 4},
    // kernarg_preload.
    {"kernarg_preload_spec_length", Preload + 0, 7},
    {"kernarg_preload_spec_offset", Preload + 7, 9},
    {"reserved3", 480, 32},
};

uint64_t DescriptorField::read(const KernelDescriptor &KD) const {
  ArrayRef<uint8_t> B = KD.bytes();
  uint64_t V = 0;
  for (unsigned I = 0; I < Width; ++I) {
    unsigned Pos = Bit + I;
    V |= uint64_t((B[Pos / 8] >> (Pos % 8)) & 1) << I;
  }
  return V;
}

ArrayRef<DescriptorField> descriptorFields() { return Fields; }

const DescriptorField *findDescriptorField(StringRef Name) {
  for (const DescriptorField &F : Fields)
    if (Name == F.Name)
      return &F;
  return nullptr;
}

const DescriptorField &descriptorFieldOfBit(unsigned Bit) {
  assert(Bit < KernelDescriptor::Size * 8 && "bit outside the descriptor");
  for (const DescriptorField &F : Fields)
    if (Bit >= F.Bit && Bit < F.Bit + F.Width)
      return F;
  return Fields[std::size(Fields) - 1];
}

} // namespace asmevo
