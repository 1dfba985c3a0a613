//===- ArrayFile.cpp - Raw and NumPy .npy buffer files ---------------------===//
//
// NumPy format 1.0/2.0 (numpy.lib.format): magic "\x93NUMPY", version,
// header length (u16 for 1.0, u32 for 2.0), a Python dict literal with
// 'descr', 'fortran_order' and 'shape', padded to a multiple of 64 bytes.
//
//===----------------------------------------------------------------------===//
#include "asmevo/Emulator/LaunchSession.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace asmevo;
using namespace asmevo::emu;

/// NumPy dtype of an element type (bf16 and fp8 travel as raw bits).
static const char *dtypeOf(ElemType T) {
  switch (T) {
  case ElemType::I8: return "|i1";
  case ElemType::U8: case ElemType::FP8: case ElemType::BF8: return "|u1";
  case ElemType::I16: return "<i2";
  case ElemType::U16: case ElemType::BF16: return "<u2";
  case ElemType::I32: return "<i4";
  case ElemType::U32: return "<u4";
  case ElemType::I64: return "<i8";
  case ElemType::U64: case ElemType::Ptr: return "<u8";
  case ElemType::F16: return "<f2";
  case ElemType::F32: return "<f4";
  case ElemType::F64: return "<f8";
  }
  return "|u1";
}

static bool dtypeCompatible(StringRef D, ElemType T) {
  std::string Want = dtypeOf(T);
  if (D == Want)
    return true;
  // Same-size raw bits are accepted for the types numpy lacks.
  if (T == ElemType::BF16 && (D == "<i2" || D == "<u2"))
    return true;
  if ((T == ElemType::FP8 || T == ElemType::BF8) && (D == "|i1" || D == "|u1"))
    return true;
  return false;
}

Expected<std::vector<uint8_t>> emu::readArrayFile(StringRef Path, ElemType T,
                                                  uint64_t Count) {
  uint64_t Want;
  if (__builtin_mul_overflow(Count, uint64_t(elemSize(T)), &Want))
    return createStringError("'%s': %llu elements of %s do not fit in 64 bits",
                             Path.str().c_str(), (unsigned long long)Count,
                             elemTypeName(T).str().c_str());
  // Only a regular file of the right size is read: a device (/dev/zero), a
  // FIFO or a file far larger than the buffer would be read until memory
  // runs out. A .npy file adds a header of at most 4 GiB (format 2.0).
  bool Npy = Path.ends_with(".npy");
  sys::fs::file_status St;
  if (std::error_code EC = sys::fs::status(Path, St))
    return createStringError(EC, "cannot read '%s'", Path.str().c_str());
  if (St.type() != sys::fs::file_type::regular_file)
    return createStringError("'%s' is not a regular file", Path.str().c_str());
  uint64_t Size = St.getSize();
  if (!Npy && Size != Want)
    return createStringError(
        "'%s': %llu bytes, but the buffer needs %llu "
        "(%llu x %s)",
        Path.str().c_str(), (unsigned long long)Size, (unsigned long long)Want,
        (unsigned long long)Count, elemTypeName(T).str().c_str());
  if (Npy && (Size < Want || Size - Want > 12 + uint64_t(UINT32_MAX)))
    return createStringError("'%s': %llu bytes cannot hold the buffer's %llu "
                             "bytes and a .npy header",
                             Path.str().c_str(), (unsigned long long)Size,
                             (unsigned long long)Want);
  auto MB = MemoryBuffer::getFile(Path, /*IsText=*/false);
  if (!MB)
    return createStringError(MB.getError(), "cannot read '%s'",
                             Path.str().c_str());
  StringRef B = (*MB)->getBuffer();
  if (!Npy) {
    if (B.size() != Want)
      return createStringError("'%s': %zu bytes, but the buffer needs %llu "
                               "(%llu x %s)",
                               Path.str().c_str(), B.size(),
                               (unsigned long long)Want,
                               (unsigned long long)Count,
                               elemTypeName(T).str().c_str());
    return std::vector<uint8_t>(B.begin(), B.end());
  }
  if (B.size() < 10 || !B.starts_with("\x93NUMPY"))
    return createStringError("'%s' is not a .npy file", Path.str().c_str());
  unsigned Major = uint8_t(B[6]);
  size_t HLen, HOff;
  if (Major == 1) {
    HLen = uint8_t(B[8]) | (size_t(uint8_t(B[9])) << 8);
    HOff = 10;
  } else if (B.size() >= 12) {
    HLen = uint8_t(B[8]) | (size_t(uint8_t(B[9])) << 8) |
           (size_t(uint8_t(B[10])) << 16) | (size_t(uint8_t(B[11])) << 24);
    HOff = 12;
  } else {
    return createStringError("'%s': truncated .npy header",
                             Path.str().c_str());
  }
  if (HLen > B.size() - HOff)
    return createStringError("'%s': truncated .npy header", Path.str().c_str());
  StringRef H = B.substr(HOff, HLen);
  auto Field = [&](StringRef Key) -> StringRef {
    size_t P = H.find("'" + Key.str() + "'");
    if (P == StringRef::npos)
      return "";
    StringRef R = H.substr(P + Key.size() + 2).ltrim(" :");
    return R;
  };
  StringRef Descr = Field("descr");
  if (!Descr.consume_front("'"))
    return createStringError("'%s': .npy header without descr",
                             Path.str().c_str());
  Descr = Descr.take_until([](char C) { return C == '\''; });
  if (Field("fortran_order").starts_with("True"))
    return createStringError("'%s': Fortran-order arrays are not supported",
                             Path.str().c_str());
  if (!dtypeCompatible(Descr, T))
    return createStringError("'%s': dtype '%s' does not match buffer type %s "
                             "(expected '%s')",
                             Path.str().c_str(), Descr.str().c_str(),
                             elemTypeName(T).str().c_str(), dtypeOf(T));
  StringRef Shape = Field("shape");
  if (!Shape.consume_front("("))
    return createStringError("'%s': .npy header without shape",
                             Path.str().c_str());
  Shape = Shape.take_until([](char C) { return C == ')'; });
  uint64_t N = 1;
  SmallVector<StringRef, 4> Dims;
  Shape.split(Dims, ',', -1, false);
  for (StringRef D : Dims) {
    D = D.trim();
    if (D.empty())
      continue;
    uint64_t V;
    if (D.getAsInteger(10, V))
      return createStringError("'%s': bad shape", Path.str().c_str());
    if (__builtin_mul_overflow(N, V, &N))
      return createStringError("'%s': shape (%s): the element count "
                               "overflows 64 bits",
                               Path.str().c_str(), Shape.str().c_str());
  }
  size_t DataOff = HOff + HLen;
  if (N != Count)
    return createStringError("'%s': %llu elements, but the buffer has %llu",
                             Path.str().c_str(), (unsigned long long)N,
                             (unsigned long long)Count);
  if (B.size() - DataOff != Want)
    return createStringError("'%s': data size does not match its header",
                             Path.str().c_str());
  return std::vector<uint8_t>(B.begin() + DataOff, B.end());
}

Error emu::writeArrayFile(StringRef Path, ElemType T, ArrayRef<uint8_t> Bytes) {
  std::error_code EC;
  raw_fd_ostream OS(Path, EC, sys::fs::OF_None);
  if (EC)
    return createStringError(EC, "cannot write '%s'", Path.str().c_str());
  if (Path.ends_with(".npy")) {
    uint64_t N = Bytes.size() / elemSize(T);
    std::string H = "{'descr': '" + std::string(dtypeOf(T)) +
                    "', 'fortran_order': False, 'shape': (" +
                    std::to_string(N) + ",), }";
    size_t Total = 10 + H.size() + 1;
    size_t Pad = (64 - Total % 64) % 64;
    H.append(Pad, ' ');
    H += '\n';
    OS << "\x93NUMPY";
    OS << char(1) << char(0);
    uint16_t L = uint16_t(H.size());
    OS << char(L & 0xff) << char(L >> 8);
    OS << H;
  }
  OS.write(reinterpret_cast<const char *>(Bytes.data()), Bytes.size());
  return Error::success();
}
