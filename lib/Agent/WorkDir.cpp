//===- WorkDir.cpp - Paths a client may name ------------------------------===//
#include "asmevo/Agent/WorkDir.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace llvm;
using namespace asmevo;

Expected<WorkDir> WorkDir::open(StringRef Root) {
  SmallString<256> Real;
  if (std::error_code EC = sys::fs::real_path(Root, Real))
    return createStringError(EC, "work directory '%s': %s", Root.str().c_str(),
                             EC.message().c_str());
  if (!sys::fs::is_directory(Real))
    return createStringError("work directory '%s' is not a directory",
                             Root.str().c_str());
  return WorkDir(std::string(Real));
}

bool WorkDir::contains(StringRef Real) const {
  return Real == Root ||
         (Real.starts_with(Root) && sys::path::is_separator(Real[Root.size()]));
}

std::string WorkDir::absolute(StringRef Path) const {
  SmallString<256> P;
  if (sys::path::is_absolute(Path))
    P = Path;
  else
    sys::path::append(P, Root, Path);
  sys::path::remove_dots(P, /*remove_dot_dot=*/true);
  return std::string(P);
}

static Error outside(StringRef Path, StringRef Root) {
  return createStringError("path '%s' is outside the work directory '%s'",
                           Path.str().c_str(), Root.str().c_str());
}

Expected<std::string> WorkDir::input(StringRef Path) const {
  if (Path.empty())
    return createStringError("empty path");
  // Outside by its name is outside, whether or not it exists: a client
  // must not learn which files exist elsewhere.
  std::string Abs = absolute(Path);
  if (!contains(Abs))
    return outside(Path, Root);
  SmallString<256> Real;
  if (std::error_code EC = sys::fs::real_path(Abs, Real))
    return createStringError(EC, "'%s': %s", Path.str().c_str(),
                             EC.message().c_str());
  if (!contains(Real))
    return outside(Path, Root);
  if (!sys::fs::is_regular_file(Real))
    return createStringError("'%s' is not a regular file", Path.str().c_str());
  return std::string(Real);
}

Expected<std::string> WorkDir::output(StringRef Path) const {
  if (Path.empty())
    return createStringError("empty path");
  std::string Abs = absolute(Path);
  if (!contains(Abs))
    return outside(Path, Root);
  StringRef Name = sys::path::filename(Abs);
  if (Name.empty() || Name == "." || Name == "..")
    return createStringError("'%s' names no file", Path.str().c_str());
  SmallString<256> Dir;
  if (std::error_code EC =
          sys::fs::real_path(sys::path::parent_path(Abs), Dir))
    return createStringError(EC, "'%s': %s", Path.str().c_str(),
                             EC.message().c_str());
  if (!contains(Dir))
    return outside(Path, Root);
  SmallString<256> Out(Dir);
  sys::path::append(Out, Name);
  // An existing name may be a symbolic link out of the directory.
  sys::fs::file_status St;
  if (!sys::fs::status(Out, St, /*Follow=*/false)) {
    if (St.type() == sys::fs::file_type::symlink_file)
      return outside(Path, Root);
    if (St.type() != sys::fs::file_type::regular_file)
      return createStringError("'%s' exists and is not a regular file",
                               Path.str().c_str());
  }
  return std::string(Out);
}
