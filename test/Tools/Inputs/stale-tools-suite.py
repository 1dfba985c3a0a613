"""Writes a lit suite that loads the project's lit.cfg.py with a tools file
in which one program points into an empty folder.

Usage: stale-tools-suite.py TOOLS_JSON --program=NAME EMPTY_DIR SUITE_DIR SRC_ROOT TOOLS_DIR
"""
import json
import os
import sys

tools_json, program, empty, suite, src, tools_dir = sys.argv[1:7]
program = program.split('=', 1)[-1]  # --program=NAME: a bare name would be substituted
tools = json.load(open(tools_json))
tools[program]['path'] = os.path.join(empty, program)
os.makedirs(suite, exist_ok=True)
json.dump(tools, open(os.path.join(suite, 'tools.json'), 'w'))
with open(os.path.join(suite, 'lit.site.cfg.py'), 'w') as f:
    for k, v in [('asmevo_src_root', src), ('asmevo_obj_root', os.path.join(suite, 'obj')),
                 ('asmevo_tools_dir', tools_dir), ('llvm_tools_dir', empty),
                 ('asmevo_tools_file', os.path.join(suite, 'tools.json')),
                 ('asmevo_kernels_dir', empty), ('asmevo_corpus_dir', empty)]:
        f.write('config.%s = %r\n' % (k, v))
    f.write('import os\nlit_config.load_config(config, os.path.join(%r, "test", "lit.cfg.py"))\n' % src)
