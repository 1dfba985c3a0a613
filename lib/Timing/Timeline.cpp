//===- Timeline.cpp - The modelled launch as a Chrome trace ---------------===//
#include "asmevo/Timing/Timeline.h"
#include "asmevo/Timing/Model.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include <cmath>

using namespace llvm;
using namespace asmevo;
using namespace asmevo::timing;

void Timeline::beginLaunch(std::string Label, double ClockMHz) {
  Procs.push_back({std::move(Label), ClockMHz});
  ThreadBase = Threads.size();
}

void Timeline::wave(unsigned Id, unsigned Simd, uint64_t Group,
                    unsigned Wave) {
  size_t I = ThreadBase + Id;
  if (Threads.size() <= I)
    Threads.resize(I + 1);
  Threads[I] = {unsigned(Procs.size() - 1), Id, Simd, Wave, Group};
}

void Timeline::slice(unsigned Id, double Start, double Cycles,
                     const char *Name, bool Stall) {
  if (Cycles <= 0)
    return;
  Thread &Th = Threads[ThreadBase + Id];
  if (Th.LastSlice != ~size_t(0)) {
    Slice &L = Slices[Th.LastSlice];
    // Names are static strings: equal names are equal pointers.
    if (L.Name == Name && std::abs(L.Start + L.Cycles - Start) < 1e-6) {
      L.Cycles += Cycles;
      return;
    }
  }
  Th.LastSlice = Slices.size();
  Slices.push_back({Th.Pid, Th.Tid, Start, Cycles, Name, uint8_t(!Stall)});
}

void Timeline::memory(unsigned Id, double Start, double End,
                      const char *Level) {
  const Thread &Th = Threads[ThreadBase + Id];
  Slices.push_back({Th.Pid, Th.Tid, Start, End - Start, Level, 2});
}

void Timeline::write(json::OStream &J) const {
  J.object([&] {
    J.attribute("displayTimeUnit", "ns");
    J.attributeObject("otherData", [&] {
      J.attribute("source", ModelNote);
      J.attribute("what",
                  "cycle model of the modelled CU's sampled workgroups; "
                  "ts and dur in microseconds at the model's clock, "
                  "args.cycles in model cycles");
    });
    J.attributeArray("traceEvents", [&] {
      for (size_t P = 0; P < Procs.size(); ++P)
        J.object([&] {
          J.attribute("ph", "M");
          J.attribute("name", "process_name");
          J.attribute("pid", int64_t(P));
          J.attributeObject("args", [&] {
            J.attribute("name", Procs[P].Label + " (" + ModelNote + ")");
          });
        });
      for (const Thread &T : Threads)
        J.object([&] {
          J.attribute("ph", "M");
          J.attribute("name", "thread_name");
          J.attribute("pid", int64_t(T.Pid));
          J.attribute("tid", int64_t(T.Tid));
          J.attributeObject("args", [&] {
            J.attribute("name", formatv("SIMD {0} group {1} wave {2}",
                                        T.Simd, T.Group, T.Wave)
                                    .str());
          });
        });
      uint64_t AsyncId = 0;
      for (const Slice &S : Slices) {
        double MHz = Procs[S.Pid].ClockMHz;
        auto Common = [&](const char *Ph) {
          J.attribute("name", S.Name);
          J.attribute("cat", S.Kind == 0   ? "stall"
                             : S.Kind == 1 ? "issue"
                                           : "memory");
          J.attribute("ph", Ph);
          J.attribute("pid", int64_t(S.Pid));
          J.attribute("tid", int64_t(S.Tid));
        };
        if (S.Kind != 2) {
          J.object([&] {
            Common("X");
            J.attribute("ts", S.Start / MHz);
            J.attribute("dur", S.Cycles / MHz);
            J.attributeObject("args",
                              [&] { J.attribute("cycles", S.Cycles); });
          });
          continue;
        }
        // Memory operations overlap: async begin/end pairs.
        ++AsyncId;
        J.object([&] {
          Common("b");
          J.attribute("id", int64_t(AsyncId));
          J.attribute("ts", S.Start / MHz);
          J.attributeObject("args",
                            [&] { J.attribute("cycles", S.Cycles); });
        });
        J.object([&] {
          Common("e");
          J.attribute("id", int64_t(AsyncId));
          J.attribute("ts", (S.Start + S.Cycles) / MHz);
        });
      }
    });
  });
}
