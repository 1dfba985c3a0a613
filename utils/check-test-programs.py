#!/usr/bin/env python3
"""Checks that every program the test suite runs comes from a package that
utils/install-deps.sh installs.

Usage: utils/check-test-programs.py [--build BUILD_DIR] [--list]

A test passing on a developer's machine proves nothing about a fresh one: a
program installed by hand (or pulled in as a recommendation) makes it green
there and "command not found" elsewhere. This script finds the programs
statically, so it needs no test to run:

  * every command of every lit RUN line (parsed with lit's own shell parser,
    through `not`, `env`, `sh -c` and pipelines);
  * every program a helper script starts (utils/*.py, utils/bench/*,
    test/**/Inputs/*.py: subprocess calls whose command is a list literal);
  * every program the build runs (the tools CMake records in
    BUILD_DIR/asmevo-tools.json).

Each program is resolved to a file (CMake's recorded path, else the LLVM 22
tool directory, else PATH), the file to the Debian package that owns it
(`dpkg -S`), and the package is accepted only if it is in install-deps.sh's
list, is pulled in by that list through Depends/Pre-Depends, or is Essential
(present on every Debian system by definition). With a build directory it
also checks that each program the tests run is one CMake found, since lit
hands the tests only those (test/lit.cfg.py).

Exit status: 0 when every program is accounted for, 1 otherwise (each
problem on a line of its own).
"""
import argparse
import ast
import glob
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
LLVM_BIN = '/usr/lib/llvm-22/bin'
LIT_DIR = '/usr/lib/llvm-22/utils/lit'

# Commands lit's internal shell runs itself (TestRunner.py), and shell
# keywords: no program is started for them.
LIT_BUILTINS = {'cd', 'export', 'mkdir', 'popd', 'pushd', 'rm',
                'umask', 'ulimit', 'unset', ':', 'not', 'env', 'cat', 'diff'}
# Inside `sh -c '...'`: the shell's keywords and builtins.
SH_BUILTINS = {'for', 'in', 'do', 'done', 'if', 'then', 'else', 'elif', 'fi',
               'while', 'until', 'case', 'esac', '{', '}', '!', 'exit', 'true',
               'false', 'test', '[', 'set', 'printf', 'echo', 'cd', 'export',
               'read', 'shift', 'break', 'continue', 'return', 'local', ':'}
# The project's own programs, built into BUILD_DIR/bin.
OWN_PREFIX = 'asmevo-'


def fail(msg):
    print('check-test-programs: ' + msg)


def install_deps_packages():
    text = open(os.path.join(HERE, 'install-deps.sh')).read()
    m = re.search(r'pkgs=\(([^)]*)\)', text)
    if not m:
        sys.exit('check-test-programs: no pkgs=(...) list in install-deps.sh')
    return set(m.group(1).split())


def installed_packages():
    """Package -> (depends list of alternative-groups, provides, essential)."""
    fmt = '${Package}\t${Status}\t${Depends}\t${Pre-Depends}\t${Provides}\t${Essential}\n'
    out = subprocess.run(['dpkg-query', '-W', '-f', fmt], capture_output=True,
                         text=True, check=True).stdout
    pkgs, providers = {}, {}
    for line in out.splitlines():
        f = line.split('\t')
        if len(f) < 6 or 'install ok installed' not in f[1]:
            continue
        name = f[0]
        groups = []
        for field in (f[2], f[3]):
            for grp in filter(None, (g.strip() for g in field.split(','))):
                alts = [re.sub(r'[\s(:].*', '', a.strip()) for a in grp.split('|')]
                groups.append([a for a in alts if a])
        pkgs[name] = (groups, f[5] == 'yes')
        for p in filter(None, (x.strip() for x in f[4].split(','))):
            providers.setdefault(re.sub(r'[\s(:].*', '', p), []).append(name)
    return pkgs, providers


def closure(roots, pkgs, providers):
    """Every installed package reachable from roots through Depends and
    Pre-Depends (an alternative or a virtual package counts through whichever
    installed package satisfies it)."""
    seen, todo = set(), list(roots)
    while todo:
        p = todo.pop()
        cands = [p] if p in pkgs else providers.get(p, [])
        for c in cands:
            if c in seen:
                continue
            seen.add(c)
            for grp in pkgs[c][0]:
                todo.extend(grp)
    return seen


def how_provided(pkg, wanted, pulled, pkgs):
    if pkg in wanted:
        return 'listed'
    if pkg in pulled:
        return 'pulled in'
    if pkg in pkgs and pkgs[pkg][1]:
        return 'essential'
    return None


def run_lines(path):
    """The RUN commands of one test file, continuation lines joined."""
    cmds, cur = [], ''
    try:
        lines = open(path, errors='replace').read().splitlines()
    except OSError:
        return cmds
    for line in lines:
        m = re.search(r'\bRUN:(.*)$', line)
        if not m:
            continue
        part = m.group(1).rstrip()
        if part.endswith('\\'):
            cur += part[:-1] + ' '
            continue
        cmds.append(cur + part)
        cur = ''
    return cmds


def commands_of(cmdline, shparser, in_sh=False):
    """Program names of one RUN line (after a neutral substitution)."""
    line = re.sub(r'%python\b', 'python3', cmdline)
    line = re.sub(r'%\{[^}]*\}|%[A-Za-z_][A-Za-z0-9_-]*|%[sStTpd]\b', 'SUBST', line)
    try:
        tree = shparser(line, pipefail=True).parse()
    except Exception as e:  # lit's parser raises ValueError on odd quoting
        return None, str(e)
    names = []

    def walk(node):
        if hasattr(node, 'lhs'):
            walk(node.lhs)
            walk(node.rhs)
        elif hasattr(node, 'commands'):
            for c in node.commands:
                walk(c)
        elif hasattr(node, 'args'):
            args = list(node.args)
            while args:
                a = args[0]
                if a == 'not' or a.startswith('--crash'):
                    args.pop(0)
                elif a == 'env':
                    args.pop(0)
                    while args and ('=' in args[0] or args[0].startswith('-')):
                        if args[0] in ('-u', '--unset'):
                            args.pop(0)
                        args.pop(0)
                else:
                    break
            if not args:
                return
            if in_sh:
                # `for f in a b; do cmd ...; done`: the word after a keyword
                # is the command.
                while args and args[0] in ('do', 'then', 'else', '!', '{', 'if',
                                           'while', 'until', 'elif'):
                    args.pop(0)
                if not args or args[0] in SH_BUILTINS:
                    return
            prog = args[0]
            if prog in ('sh', 'bash') and len(args) > 2 and args[1] == '-c':
                sub, _ = commands_of(args[2], shparser, in_sh=True)
                names.extend(sub or [])
            names.append(prog)

    walk(tree)
    return names, None


def test_programs():
    sys.path.insert(0, LIT_DIR)
    from lit.ShUtil import ShParser
    found = {}
    for path in sorted(glob.glob(os.path.join(ROOT, 'test', '**', '*'), recursive=True)):
        if os.sep + 'Inputs' + os.sep in path or not os.path.isfile(path):
            continue
        if not path.endswith(('.test', '.mir', '.s', '.ll')):
            continue
        for cmd in run_lines(path):
            names, err = commands_of(cmd, ShParser)
            if err:
                fail('%s: cannot parse RUN line (%s): %s' % (path, err, cmd))
                found.setdefault('<unparsable>', set()).add(path)
                continue
            for n in names:
                found.setdefault(n, set()).add(os.path.relpath(path, ROOT))
    return found


def script_programs():
    """Programs started by helper scripts: the first string of a list literal
    passed (directly, or through a variable or a `+`) to subprocess."""
    found = {}
    files = glob.glob(os.path.join(HERE, '**', '*.py'), recursive=True) + \
        glob.glob(os.path.join(HERE, 'bench', '*')) + \
        glob.glob(os.path.join(HERE, 'fuzz', '*.py')) + \
        glob.glob(os.path.join(ROOT, 'test', '**', 'Inputs', '*.py'), recursive=True)
    for path in sorted(files):
        if os.path.abspath(path) == os.path.abspath(__file__):
            continue  # the checker's own dpkg calls are not the suite's
        try:
            src = open(path).read()
            tree = ast.parse(src)
        except (OSError, SyntaxError, UnicodeDecodeError):
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            fname = f.attr if isinstance(f, ast.Attribute) else getattr(f, 'id', '')
            owner = getattr(getattr(f, 'value', None), 'id', '')
            if not (owner == 'subprocess' or fname in ('Popen', 'check_output')):
                continue
            if not node.args:
                continue
            for lst in ast.walk(node.args[0]):
                if isinstance(lst, ast.List) and lst.elts and \
                        isinstance(lst.elts[0], ast.Constant) and \
                        isinstance(lst.elts[0].value, str):
                    found.setdefault(lst.elts[0].value, set()).add(
                        os.path.relpath(path, ROOT))
                    break
        # Command prefixes kept in a variable (e.g. one_core = ['taskset', ...]).
        for m in re.finditer(r"^\s*\w+\s*=\s*\[\s*'([a-z][\w.+-]*)'\s*,\s*'-", src, re.M):
            found.setdefault(m.group(1), set()).add(os.path.relpath(path, ROOT))
    return found


def resolve(name, tools):
    if name in tools:
        return tools[name]['path']
    if os.path.isabs(name):
        return name if os.path.exists(name) else None
    for d in [LLVM_BIN] + os.environ.get('PATH', '').split(os.pathsep):
        p = os.path.join(d, name)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return None


def owner(path):
    """The package owning path (usr-merge and alternatives tolerated)."""
    cands = [path, os.path.realpath(path)]
    for c in list(cands):
        for a, b in (('/usr/bin/', '/bin/'), ('/bin/', '/usr/bin/'),
                     ('/usr/sbin/', '/sbin/'), ('/sbin/', '/usr/sbin/')):
            if c.startswith(a):
                cands.append(b + c[len(a):])
    for c in cands:
        r = subprocess.run(['dpkg', '-S', c], capture_output=True, text=True)
        if r.returncode == 0:
            line = r.stdout.splitlines()[0]
            if not line.startswith('diversion'):
                return line.split(':')[0].split(',')[0].strip()
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--build', default=os.environ.get('ASMEVO_BUILD_DIR',
                                                      os.path.join(ROOT, 'build')))
    ap.add_argument('--list', action='store_true', help='print every program')
    args = ap.parse_args()

    tools = {}
    tools_file = os.path.join(args.build, 'asmevo-tools.json')
    if os.path.isfile(tools_file):
        tools = json.load(open(tools_file))
    else:
        print('check-test-programs: %s not found (configure first): '
              'checking packages only' % tools_file)

    from_tests = test_programs()
    from_scripts = script_programs()
    programs = {}
    for src in (from_tests, from_scripts):
        for n, where in src.items():
            programs.setdefault(n, set()).update(where)
    for n in tools:
        programs.setdefault(n, set()).add('CMake (asmevo-tools.json)')

    wanted = install_deps_packages()
    pkgs, providers = installed_packages()
    pulled = closure(wanted, pkgs, providers)
    problems = 0
    if '<unparsable>' in programs:
        problems += 1
        del programs['<unparsable>']
    for name in sorted(programs):
        where = sorted(programs[name])
        if name.startswith(OWN_PREFIX) or name in LIT_BUILTINS or name == 'SUBST':
            continue
        if tools and name not in tools:
            fail("'%s' is run by %s but not found by CMake: add it to "
                 "cmake/AsmEvoTools.cmake (tests and helper scripts get only those)"
                 % (name, ', '.join(where[:3])))
            problems += 1
        path = resolve(name, tools)
        if not path:
            fail("'%s' (run by %s) is not installed: no such program"
                 % (name, ', '.join(where[:3])))
            problems += 1
            continue
        pkg = owner(path)
        if not pkg:
            fail("'%s' -> %s belongs to no Debian package" % (name, path))
            problems += 1
            continue
        declared = tools.get(name, {}).get('package')
        if declared and not how_provided(declared, wanted, pulled, pkgs):
            fail("'%s': CMake names package %s, which install-deps.sh neither "
                 "lists nor pulls in" % (name, declared))
            problems += 1
        if declared and pkg != declared and \
                pkg not in closure([declared], pkgs, providers):
            fail("'%s' -> %s is owned by %s, not by %s (which CMake names) nor "
                 "by what it pulls in" % (name, path, pkg, declared))
            problems += 1
        how = how_provided(pkg, wanted, pulled, pkgs)
        if not how:
            fail("'%s' -> %s is from package %s, which install-deps.sh neither "
                 "lists nor pulls in (run by %s)"
                 % (name, path, pkg, ', '.join(where[:3])))
            problems += 1
            continue
        if args.list:
            print('%-22s %-44s %-22s %s' % (name, path, pkg, how))
    if problems:
        print('check-test-programs: %d problem(s)' % problems)
        return 1
    print('check-test-programs: %d programs, each from a package install-deps.sh '
          'provides' % len([n for n in programs if not n.startswith(OWN_PREFIX)
                            and n not in LIT_BUILTINS and n != 'SUBST']))
    return 0


if __name__ == '__main__':
    sys.exit(main())
