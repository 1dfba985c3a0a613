//===- ArrayFile.cpp ------------------------------------------------------===//
//
// .npy layout (numpy.lib.format): "\x93NUMPY", major, minor, header length
// (u16 for 1.0, u32 for 2.0/3.0), then a Python dict literal
// {'descr': '<f4', 'fortran_order': False, 'shape': (N,), } padded with
// spaces and ended by '\n' so the data starts at a multiple of 64.
//
//===----------------------------------------------------------------------===//
#include "ArrayFile.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileOutputBuffer.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include <cstring>

using namespace llvm;
using namespace asmevo::suite;

static const char NpyMagic[] = "\x93NUMPY";

static Error fail(StringRef Path, const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), "'" + Path + "': " + Msg);
}

/// The value text after 'Key': in a .npy header dict.
static std::optional<StringRef> dictValue(StringRef Header, StringRef Key) {
  for (char Q : {'\'', '"'}) {
    std::string Pattern = (Twine(Q) + Key + Twine(Q)).str();
    size_t Pos = Header.find(Pattern);
    if (Pos == StringRef::npos)
      continue;
    StringRef Rest = Header.substr(Pos + Pattern.size()).ltrim();
    if (!Rest.consume_front(":"))
      return std::nullopt;
    return Rest.ltrim();
  }
  return std::nullopt;
}

static Expected<HostBuffer> readNpy(StringRef Path, StringRef Data,
                                    ElemType Type, uint64_t Count) {
  if (Data.size() < 10)
    return fail(Path, "truncated .npy header");
  unsigned Major = (uint8_t)Data[6];
  size_t HeaderLen, HeaderStart;
  if (Major == 1) {
    HeaderLen = support::endian::read16le(Data.data() + 8);
    HeaderStart = 10;
  } else if (Major == 2 || Major == 3) {
    if (Data.size() < 12)
      return fail(Path, "truncated .npy header");
    HeaderLen = support::endian::read32le(Data.data() + 8);
    HeaderStart = 12;
  } else {
    return fail(Path, "unsupported .npy version " + Twine(Major));
  }
  if (HeaderStart + HeaderLen > Data.size())
    return fail(Path, ".npy header length " + Twine(HeaderLen) +
                          " exceeds the file size");
  StringRef Header = Data.substr(HeaderStart, HeaderLen);

  std::optional<StringRef> Descr = dictValue(Header, "descr");
  if (!Descr || Descr->empty() || ((*Descr)[0] != '\'' && (*Descr)[0] != '"'))
    return fail(Path, ".npy header has no 'descr' string");
  StringRef D = Descr->drop_front().take_until(
      [](char C) { return C == '\'' || C == '"'; });
  if (D.size() < 3)
    return fail(Path, "unsupported .npy dtype '" + D + "'");
  char Order = D[0];
  if (Order == '>' && D.substr(2) != "1")
    return fail(Path, "big-endian .npy dtype '" + D + "' is not supported");
  unsigned ItemSize = 0;
  if (D.substr(2).getAsInteger(10, ItemSize))
    return fail(Path, "unsupported .npy dtype '" + D + "'");
  if (ItemSize != elemSize(Type))
    return fail(Path, ".npy dtype '" + D + "' has " + Twine(ItemSize) +
                          "-byte items, buffer type " + elemTypeName(Type) +
                          " needs " + Twine(elemSize(Type)));

  std::optional<StringRef> Fortran = dictValue(Header, "fortran_order");
  std::optional<StringRef> Shape = dictValue(Header, "shape");
  if (!Shape || !Shape->starts_with("("))
    return fail(Path, ".npy header has no 'shape' tuple");
  StringRef Dims =
      Shape->drop_front().take_until([](char C) { return C == ')'; });
  uint64_t Elems = 1;
  unsigned Rank = 0;
  SmallVector<StringRef, 4> Parts;
  Dims.split(Parts, ',', -1, /*KeepEmpty=*/false);
  for (StringRef P : Parts) {
    P = P.trim();
    if (P.empty())
      continue;
    uint64_t Dim;
    if (P.getAsInteger(10, Dim))
      return fail(Path, "bad .npy shape '(" + Dims + ")'");
    Elems *= Dim;
    ++Rank;
  }
  if (Rank > 1 && Fortran && Fortran->starts_with("True"))
    return fail(Path, "Fortran-order .npy arrays are not supported");
  if (Elems != Count)
    return fail(Path, ".npy array has " + Twine(Elems) + " elements, the " +
                          "buffer has " + Twine(Count));
  StringRef Payload = Data.substr(HeaderStart + HeaderLen);
  if (Payload.size() != Count * ItemSize)
    return fail(Path, ".npy data is " + Twine(Payload.size()) +
                          " bytes, expected " + Twine(Count * ItemSize));
  HostBuffer B(Type, Count);
  std::memcpy(B.bytes().data(), Payload.data(), Payload.size());
  return B;
}

Expected<HostBuffer> asmevo::suite::readArrayFile(StringRef Path, ElemType Type,
                                                  uint64_t Count) {
  auto MB = MemoryBuffer::getFile(Path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!MB)
    return fail(Path, MB.getError().message());
  StringRef Data = (*MB)->getBuffer();
  if (Data.starts_with(StringRef(NpyMagic, 6)))
    return readNpy(Path, Data, Type, Count);
  if (Data.size() != Count * elemSize(Type))
    return fail(Path, "raw file is " + Twine(Data.size()) + " bytes, " +
                          Twine(Count) + " elements of " + elemTypeName(Type) +
                          " are " + Twine(Count * elemSize(Type)));
  HostBuffer B(Type, Count);
  std::memcpy(B.bytes().data(), Data.data(), Data.size());
  return B;
}

static StringRef npyDescr(ElemType T) {
  switch (T) {
  case ElemType::I8:
    return "|i1";
  case ElemType::U8:
    return "|u1";
  case ElemType::I16:
    return "<i2";
  case ElemType::U16:
  case ElemType::BF16:
    return "<u2";
  case ElemType::I32:
    return "<i4";
  case ElemType::U32:
    return "<u4";
  case ElemType::I64:
    return "<i8";
  case ElemType::U64:
    return "<u8";
  case ElemType::F16:
    return "<f2";
  case ElemType::F32:
    return "<f4";
  case ElemType::F64:
    return "<f8";
  }
  return "|u1";
}

Error asmevo::suite::writeArrayFile(StringRef Path, const HostBuffer &B,
                                    bool Npy) {
  std::string Header;
  if (Npy) {
    std::string Dict =
        ("{'descr': '" + npyDescr(B.type()) +
         "', 'fortran_order': False, 'shape': (" + Twine(B.count()) + ",), }")
            .str();
    size_t Unpadded = 10 + Dict.size() + 1;
    size_t Padded = alignTo(Unpadded, 64);
    Dict.append(Padded - Unpadded, ' ');
    Dict.push_back('\n');
    Header.assign(NpyMagic, 6);
    Header.push_back('\x01');
    Header.push_back('\x00');
    Header.push_back((char)(Dict.size() & 0xff));
    Header.push_back((char)(Dict.size() >> 8));
    Header += Dict;
  }
  auto Out = FileOutputBuffer::create(Path, Header.size() + B.bytes().size());
  if (!Out)
    return fail(Path, toString(Out.takeError()));
  uint8_t *P = (*Out)->getBufferStart();
  std::memcpy(P, Header.data(), Header.size());
  if (!B.bytes().empty())
    std::memcpy(P + Header.size(), B.bytes().data(), B.bytes().size());
  if (Error E = (*Out)->commit())
    return fail(Path, toString(std::move(E)));
  return Error::success();
}
