// Rotates and funnel shifts, by constants and by per-element amounts
// (including amounts >= the width): what clang turns into v_alignbit_b32
// (constant and variable), v_alignbyte_b32, v_perm_b32 and the 64-bit
// shift pairs. test/Emulator/rotate.test checks every output against an
// independent Python model.
#include "asmevo_hip.h"

#define ROT_OUTS 8

extern "C" __global__ void rotate32(asmevo_u32 *out, const asmevo_u32 *x,
                                    const asmevo_u32 *y,
                                    const asmevo_u32 *amt, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  asmevo_u32 v = x[i], w = y[i], s = amt[i];
  asmevo_u32 *o = out + ROT_OUTS * i;
  o[0] = (v << 7) | (v >> 25);                 // rotl by a constant
  o[1] = __builtin_rotateleft32(v, s);         // rotl by s mod 32
  o[2] = __builtin_rotateright32(v, s);        // rotr by s mod 32
  // funnel shift of two words by a variable amount: (w:v) >> (s mod 32)
  o[3] = (asmevo_u32)((((asmevo_u64)w << 32) | v) >> (s & 31));
  // funnel shift by a whole number of bytes
  o[4] = (asmevo_u32)((((asmevo_u64)w << 32) | v) >> (8 * (s & 3)));
  // byte shuffle: bytes of v and w interleaved
  o[5] = (v & 0xff) | ((w & 0xff) << 8) | (((v >> 16) & 0xff) << 16) |
         (((w >> 16) & 0xff) << 24);
  // bitfield extract by variable offset and width, then insert
  asmevo_u32 off = s & 31, wd = (s >> 5) & 31;
  o[6] = wd ? (v >> off) & ((1u << wd) - 1) : 0;
  o[7] = (v & 0xffff0000u) | (w & 0x0000ffffu);
}

extern "C" __global__ void rotate64(asmevo_u64 *out, const asmevo_u64 *x,
                                    const asmevo_u32 *amt, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  asmevo_u64 v = x[i];
  asmevo_u32 s = amt[i];
  asmevo_u64 *o = out + 3 * i;
  o[0] = (v << 13) | (v >> 51);                // rotl64 by a constant
  o[1] = __builtin_rotateleft64(v, s);         // rotl64 by s mod 64
  o[2] = __builtin_rotateright64(v, 40);       // rotr64 by a constant >= 32
}

// The byte-media builtins that have no portable C spelling.
extern "C" __global__ void media(asmevo_u32 *out, const asmevo_u32 *x,
                                 const asmevo_u32 *y, const asmevo_u32 *amt,
                                 int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  asmevo_u32 v = x[i], w = y[i], s = amt[i];
  asmevo_u32 *o = out + 8 * i;
  o[0] = __builtin_amdgcn_alignbit(w, v, s);
  o[1] = __builtin_amdgcn_alignbyte(w, v, s);
  o[2] = __builtin_amdgcn_perm(w, v, s);
  o[3] = __builtin_amdgcn_lerp(v, w, s);
  o[4] = __builtin_amdgcn_sad_u8(v, w, s);
  o[5] = __builtin_amdgcn_sad_hi_u8(v, w, s);
  o[6] = __builtin_amdgcn_msad_u8(v, w, s);
  o[7] = __builtin_amdgcn_ubfe(v, s & 31, (s >> 5) & 31) ^
         (asmevo_u32)__builtin_amdgcn_sbfe((int)w, (s >> 10) & 31,
                                           (s >> 15) & 31);
}
