"""The external programs CMake found for a build (cmake/AsmEvoTools.cmake),
for the helper scripts and benchmarks, so that none of them runs whatever a
PATH happens to hold.

    import asmevo_tools
    objdump = asmevo_tools.tool('llvm-objdump', build)

The build's asmevo-tools.json is found from $ASMEVO_TOOLS_FILE (lit sets it
for every test), else from the build directory given, else from
$ASMEVO_BUILD_DIR or <source>/build.
"""
import json
import os
import subprocess
import sys

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _tools_file(build=None):
    if os.environ.get('ASMEVO_TOOLS_FILE'):
        return os.environ['ASMEVO_TOOLS_FILE']
    build = build or os.environ.get('ASMEVO_BUILD_DIR') or os.path.join(_ROOT, 'build')
    return os.path.join(build, 'asmevo-tools.json')


def tool(name, build=None):
    """The path of program `name`, or exit naming what is missing."""
    path = _tools_file(build)
    try:
        with open(path) as f:
            tools = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit('%s: cannot read %s (%s): configure the build first'
                 % (os.path.basename(sys.argv[0]), path, e))
    if name not in tools:
        sys.exit('%s: %s lists no program %r: add it to cmake/AsmEvoTools.cmake'
                 % (os.path.basename(sys.argv[0]), path, name))
    t = tools[name]
    if not os.access(t['path'], os.X_OK):
        sys.exit('%s: %s is missing: install the Debian package %s'
                 % (os.path.basename(sys.argv[0]), t['path'], t['package']))
    return t['path']


def run_timed(cmd, **kw):
    """Runs cmd; returns (returncode, stderr text, user+sys CPU seconds,
    peak resident KiB) from the child's own resource usage (os.wait4), so no
    /usr/bin/time is needed."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, **kw)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return (p.returncode, err.decode(errors='replace'), ru.ru_utime + ru.ru_stime,
            ru.ru_maxrss)


if __name__ == '__main__':
    # For shell scripts: asmevo_tools.py BUILD_DIR NAME prints the path.
    if len(sys.argv) != 3:
        sys.exit('usage: asmevo_tools.py BUILD_DIR NAME')
    os.environ.pop('ASMEVO_TOOLS_FILE', None)
    print(tool(sys.argv[2], sys.argv[1]))
