import os
import lit.formats

config.name = "AsmEvo"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".test", ".mir", ".s"]
config.excludes = ["Inputs", "kernels", "CMakeLists.txt"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.asmevo_obj_root, "test")

path = os.path.pathsep.join([config.asmevo_tools_dir, config.llvm_tools_dir,
                             config.environment.get("PATH", os.environ["PATH"])])
config.environment["PATH"] = path
config.substitutions.append(("%kernels", config.asmevo_kernels_dir))
config.substitutions.append(("%corpus", config.asmevo_corpus_dir))
config.substitutions.append(("%utils", os.path.join(config.asmevo_src_root, "utils")))
config.substitutions.append(("%python", getattr(config, "asmevo_python", "python3")))
config.substitutions.append(("%clang", config.asmevo_clang))
config.substitutions.append(("%opt", config.asmevo_opt))
config.substitutions.append(("%asmevo_bin", config.asmevo_tools_dir))

# The third-party corpus lives outside the project; without it those tests
# are unsupported, never passed.
if os.path.isdir(config.asmevo_corpus_dir):
    config.available_features.add("corpus")

# An AMD GPU with its kernel driver: tests that expect the hsa backend to
# find no GPU are unsupported there.
if os.path.exists("/dev/kfd"):
    config.available_features.add("amdgpu")
