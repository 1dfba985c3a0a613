import os
import lit.formats

config.name = "AsmEvo"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".test", ".mir", ".s"]
config.excludes = ["Inputs", "kernels", "CMakeLists.txt"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.asmevo_obj_root, "test")

# The external programs the tests may run are exactly the ones CMake found
# (cmake/AsmEvoTools.cmake). Each must still exist (a cached path goes stale
# when a package is removed); the suite stops here, naming the package,
# rather than failing test by test with "command not found".
import json
import re

try:
    with open(config.asmevo_tools_file) as f:
        tools = json.load(f)
except (OSError, ValueError) as e:
    lit_config.fatal("cannot read %s (%s): reconfigure the build"
                     % (config.asmevo_tools_file, e))
missing = ["%s (%s): install the Debian package %s" % (n, t["path"], t["package"])
           for n, t in sorted(tools.items())
           if not (os.path.isfile(t["path"]) and os.access(t["path"], os.X_OK))]
if missing:
    lit_config.fatal("programs the tests need are missing (utils/install-deps.sh "
                     "installs them; then reconfigure):\n  " + "\n  ".join(missing))

# PATH holds the project's own tools and a folder of links to the programs
# above, nothing else: a test or helper script that runs any other program
# fails on every machine, not only on a fresh one.
tools_bin = os.path.join(config.asmevo_obj_root, "test", "tools-bin")
os.makedirs(tools_bin, exist_ok=True)
for entry in os.listdir(tools_bin):
    if entry not in tools:
        os.unlink(os.path.join(tools_bin, entry))
for n, t in tools.items():
    link = os.path.join(tools_bin, n)
    if os.path.islink(link) and os.readlink(link) == t["path"]:
        continue
    if os.path.lexists(link):
        os.unlink(link)
    os.symlink(t["path"], link)
config.environment["PATH"] = os.path.pathsep.join([config.asmevo_tools_dir, tools_bin])
config.environment["ASMEVO_TOOLS_FILE"] = config.asmevo_tools_file
config.environment["LLVM_OBJDUMP"] = tools["llvm-objdump"]["path"]

# Each program also reaches the RUN lines as a substitution, resolved to its
# file. Names that are ordinary words (sort, test, count, ...) are replaced
# only where a command starts.
# (lit escapes backslashes in a replacement, so no group references: each
# place a command can start is a fixed-width lookbehind of its own.)
_cmd_start = "(?:" + "|".join("(?<=%s)" % p for p in [
    "^", "^ ", "^  ", r"\) ", r"\)  ", "[|;&(]", "[|;&(] ", "[|;&(]  ", r"\bnot ", r"\bdo ", r"\bthen "]) + ")"
for n, t in sorted(tools.items(), key=lambda kv: -len(kv[0])):
    if n == "python3":
        continue
    if re.match(r"(FileCheck|clang-|ld\.lld|llvm-|lit$)", n):
        config.substitutions.append(
            (r"(?<![\w./=%%-])%s(?![\w.-])" % re.escape(n), t["path"]))
    else:
        config.substitutions.append(
            (_cmd_start + re.escape(n) + r"(?=\s|$)", t["path"]))

config.substitutions.append(("%kernels", config.asmevo_kernels_dir))
config.substitutions.append(("%asmevo_tools_file", config.asmevo_tools_file))
config.substitutions.append(("%asmevo_tools_dir", config.asmevo_tools_dir))
config.substitutions.append(("%asmevo_obj_root", config.asmevo_obj_root))
config.substitutions.append(("%asmevo_src_root", config.asmevo_src_root))
config.substitutions.append(("%corpus", config.asmevo_corpus_dir))
config.substitutions.append(("%utils", os.path.join(config.asmevo_src_root, "utils")))
config.substitutions.append(("%python", tools["python3"]["path"]))
# Programs handed to helper scripts as arguments.
config.substitutions.append(("%clang", tools["clang-22"]["path"]))
config.substitutions.append(("%ninja", tools["ninja"]["path"]))
config.substitutions.append(("%opt", tools["opt"]["path"]))
config.substitutions.append(("%asmevo_bin", config.asmevo_tools_dir))

# The third-party corpus lives outside the project; without it those tests
# are unsupported, never passed.
if os.path.isdir(config.asmevo_corpus_dir):
    config.available_features.add("corpus")

# The official MCP clients (npm; utils/install-deps.sh installs them).
config.substitutions.append(("%mcp_npm", config.asmevo_npm_dir))
if all(os.path.isfile(os.path.join(config.asmevo_npm_dir, "node_modules",
                                   "@modelcontextprotocol", p, "package.json"))
       for p in ("sdk", "client")):
    config.available_features.add("mcp-clients")

# An AMD GPU with its kernel driver: tests that expect the hsa backend to
# find no GPU are unsupported there.
if os.path.exists("/dev/kfd"):
    config.available_features.add("amdgpu")

# Debian's librocrand.so.1 (package librocrand1 5.3.3-4), which
# utils/install-deps.sh downloads once and unpacks into the cache: tests
# never download it, and are unsupported without it.
_rocrand = os.path.join(
    os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
    "asmevo", "librocrand1", "root", "usr", "lib", "x86_64-linux-gnu",
    "librocrand.so.1.1")
config.substitutions.append(("%librocrand", _rocrand))
if os.path.isfile(_rocrand):
    config.available_features.add("librocrand")
