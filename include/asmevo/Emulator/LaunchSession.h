//===- LaunchSession.h - Running a launch spec in the emulator --*- C++ -*-===//
//
// Turns a LaunchSpec into concrete launches: evaluates the scalars (the
// spec's values, a variant, overrides, or draws from the ranges), sizes and
// fills the buffers (seeded distributions, files, pointers), lays out the
// kernarg segment of each launch from the kernel metadata (or raw fields),
// runs the launches in order on one DeviceMemory, and reads every buffer
// back. The verifier (lib/Verify) builds on this; asmevo-verify run is a
// thin wrapper.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_EMULATOR_LAUNCHSESSION_H
#define ASMEVO_EMULATOR_LAUNCHSESSION_H

#include "asmevo/Emulator/Emulator.h"
#include "asmevo/Emulator/LaunchSpec.h"
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace asmevo {
namespace emu {

/// The default device-memory budget of a launch spec: 16 GiB.
constexpr uint64_t DefaultMaxDeviceMemory = 16ull << 30;

struct SessionOptions {
  /// Seed of generated inputs; 0 uses the spec's seed.
  uint64_t Seed = 0;
  /// Problem size: 0 = the spec's values, N = LaunchSpec::Variants[N-1]
  /// (the numbering asmevo-suite-ref uses too).
  unsigned Variant = 0;
  /// Scalar values replacing the spec's (text, as in the spec).
  std::map<std::string, std::string> Overrides;
  /// Buffer contents from files (raw little-endian or .npy).
  std::map<std::string, std::string> InputFiles;
  /// Draw every scalar with a range/values list from it (seeded).
  bool RandomizeScalars = false;
  /// Device memory the spec's buffers may take, guard bands and alignment
  /// included (`--max-device-memory`): checked before anything is allocated.
  uint64_t MaxDeviceMemory = DefaultMaxDeviceMemory;
};

struct HostBuffer {
  const SpecBuffer *Spec = nullptr;
  uint64_t Count = 0;
  uint64_t Addr = 0;          ///< Device address (after run()).
  /// Results of the last run() (before it: the initial contents).
  std::vector<uint8_t> Bytes;
  /// What every run() starts from (generated, from a file, or canary for
  /// outputs). A caller may rewrite it between create() and run() (e.g. to
  /// scale or negate inputs); each run() copies it afresh, so repeated
  /// runs see identical inputs. Pointer elements/patches are written at
  /// run() time.
  std::vector<uint8_t> Initial;
};

struct LaunchOutcome {
  std::string Kernel;
  RunResult Result;
};

/// One launch of a spec made concrete for a device other than the emulator
/// (lib/Verify/HsaDispatch.cpp): the same values run() would use.
struct DeviceLaunch {
  /// Kernel (resolved name, no ".kd"), Grid (workgroups), Block and
  /// DynamicLDS; KernargAddr is left 0 for the device to fill.
  LaunchParams Params;
  /// The kernarg segment: explicit arguments and hidden arguments (the
  /// aperture bases are the emulator's; a device overwrites what it knows
  /// better).
  std::vector<uint8_t> Kernarg;
};

class LaunchSession {
public:
  static llvm::Expected<std::unique_ptr<LaunchSession>>
  create(const LaunchSpec &Spec, const Emulator &Emu,
         const SessionOptions &O);

  /// Runs every launch in order in a fresh device memory.
  llvm::Expected<std::vector<LaunchOutcome>> run(const RunOptions &RO);

  const ScalarEnv &scalars() const { return Env; }
  std::vector<HostBuffer> &buffers() { return Bufs; }
  HostBuffer *buffer(llvm::StringRef Name);
  /// Guard bands overwritten during the last run().
  const std::vector<std::string> &guardErrors() const { return GuardErrors; }

  /// Prepares a run on another device whose buffers live at \p Addrs (one
  /// device address per buffers() entry, in order): sets each buffer's Addr,
  /// resets its Bytes to Initial with pointer elements and patches resolved
  /// against those addresses (what the device must be given), and returns
  /// every launch's parameters and kernarg segment. The caller copies the
  /// results back into Bytes, as run() does.
  llvm::Expected<std::vector<DeviceLaunch>>
  prepareDeviceRun(llvm::ArrayRef<uint64_t> Addrs);

private:
  LaunchSession(const LaunchSpec &Spec, const Emulator &Emu)
      : Spec(Spec), Emu(Emu) {}
  llvm::Error evalScalars(const SessionOptions &O);
  llvm::Error makeBuffers(const SessionOptions &O);
  llvm::Expected<std::vector<uint8_t>>
  kernarg(const SpecLaunch &L, size_t Index, const LaunchParams &P);
  /// Resets Bytes to Initial and writes pointer elements and patches
  /// (buffer addresses must be set).
  llvm::Error resolvePointers();
  /// Grid, block, dynamic LDS and resolved kernel name of launch \p LI.
  llvm::Expected<LaunchParams> launchParams(size_t LI);

  const LaunchSpec &Spec;
  const Emulator &Emu;
  ScalarEnv Env;
  uint64_t Seed = 1;
  std::vector<HostBuffer> Bufs;
  std::vector<std::string> GuardErrors;
};

/// Reads a buffer file: raw bytes, or a NumPy .npy array whose dtype and
/// element count must match.
llvm::Expected<std::vector<uint8_t>> readArrayFile(llvm::StringRef Path,
                                                   ElemType T, uint64_t Count);
/// Writes \p Bytes as raw bytes, or as .npy when \p Path ends in ".npy".
llvm::Error writeArrayFile(llvm::StringRef Path, ElemType T,
                           llvm::ArrayRef<uint8_t> Bytes);

/// Encodes a scalar value in \p T (little-endian) into \p Out.
void encodeScalar(const ScalarValue &V, ElemType T, uint8_t *Out);

} // namespace emu
} // namespace asmevo

#endif
