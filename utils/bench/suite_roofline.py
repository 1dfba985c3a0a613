"""Roofline bound of a suite kernel at its spec's timing size, in the cycle
model's configuration (used by utils/bench/optimize).

bound = max(bytes moved / achievable HBM bandwidth, FLOPs / peak FLOP rate)

Bytes moved are the spec's buffers once at the timing size (an `inout`
buffer twice: read and written), the convention of
test/Timing/roofline.test; embedding_gather reads only the table rows it
gathers. FLOPs (a multiply-add is 2) are counted for the kernels whose
work is products (GEMMs, GEMV, convolutions); every other suite kernel
does a few FLOPs per 4-byte element, far below the ridge (~40 FLOP/B for
vector FP32), so its FLOP term cannot decide the max and is left at 0.

The rates are the model's (`asmevo-verify time --print-config`): the
achievable HBM bandwidth `hbm_tbs` (the SC25 STREAM read figure, not the
5.3 TB/s peak), the clock and CU count, and the vector FP32 peak of its
SIMDs (simds_per_cu x 64 lanes / valu_cycles, x2 for a fused
multiply-add, x2 for packed v_pk_fma_f32). The matrix FP16/BF16 rate per
CU and clock is what the model's MFMA pipe gives (LLVM's pass counts x
mfma_cycles_per_pass 4): v_mfma_f32_16x16x16f16 takes 4 passes on gfx942,
2048 FLOP/clk/CU (AMD's 1307.4 TF at 304 CUs, 2100 MHz; ROCm mi300.md),
and 8 on gfx90a, 1024 (CDNA2's dense rate). gfx90a code objects are timed
in the same mi300x configuration (CU count, clock, memory), so their bound
is that machine's, not an MI250X's.

The timing sizes are small: every suite footprint fits in the 256 MiB
Infinity Cache, so the model can run a memory-bound kernel below the HBM
term (a ratio under 1.0), and most kernels sit far above the bound
(launch ramp, latency, tail). The spec file is read with a parser for the
one-line flow mappings the suite's specs use, not a general YAML reader.
"""
import ast
import re
import subprocess

ELEM_BYTES = {'f32': 4, 'i32': 4, 'u32': 4, 'f16': 2, 'bf16': 2, 'u8': 1,
              'i8': 1, 'f64': 8, 'i64': 8, 'u64': 8, 'i16': 2, 'u16': 2}
MFMA_FLOP_PER_CLK_CU = {'gfx942': 2048, 'gfx90a': 1024}

# FLOPs as spec expressions, and whether the matrix cores do them.
FLOPS = {
    'gemm_mfma_f16': ('2 * M * N * K', True),
    'gemm_mfma_bf16': ('2 * M * N * K', True),
    'matmul_naive': ('2 * M * N * K', False),
    'matmul_tiled': ('2 * M * N * K', False),
    'matmul_bias_relu': ('2 * M * N * K', False),
    'batched_matmul': ('2 * batch * M * N * K', False),
    'gemv': ('2 * m * n', False),
    'conv1d': ('2 * batch * cout * olen * cin * klen', False),
    'conv2d': ('2 * n * k * ho * wo * c * r * s', False),
    'conv_bn_relu': ('2 * n * k * h * w * c * 9', False),
}
# Buffers a kernel reads only in part: name -> bytes expression.
PARTIAL_READS = {('embedding_gather', 'table'): '4 * min(num_rows, n_idx) * dim'}


def _split_top(text, sep=','):
    """Splits at sep outside brackets and quotes."""
    out, depth, quote, cur = [], 0, None, ''
    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in '"\'':
            quote = ch
        elif ch in '{[':
            depth += 1
        elif ch in '}]':
            depth -= 1
        elif ch == sep and depth == 0:
            out.append(cur)
            cur = ''
            continue
        cur += ch
    if cur.strip():
        out.append(cur)
    return out


def _flow_map(text):
    """'{a: 1, b: "x y", c: {d: 2}}' -> {'a': '1', 'b': 'x y', 'c': '{d: 2}'}"""
    text = text.strip()
    assert text.startswith('{') and text.endswith('}'), text
    out = {}
    for item in _split_top(text[1:-1]):
        k, v = item.split(':', 1)
        out[k.strip()] = v.strip().strip('"\'')
    return out


def _eval(expr, env):
    """Integer spec expression (lib/Emulator/LaunchSpec.cpp's grammar)."""
    def ev(n):
        if isinstance(n, ast.Expression):
            return ev(n.body)
        if isinstance(n, ast.Constant) and isinstance(n.value, int):
            return n.value
        if isinstance(n, ast.Name):
            return env[n.id]
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            return -ev(n.operand)
        if isinstance(n, ast.BinOp):
            a, b = ev(n.left), ev(n.right)
            if isinstance(n.op, ast.Add):
                return a + b
            if isinstance(n.op, ast.Sub):
                return a - b
            if isinstance(n.op, ast.Mult):
                return a * b
            if isinstance(n.op, ast.Div):  # C division: toward zero
                return abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
            if isinstance(n.op, ast.Mod):
                return a - b * int(a / b)
        if isinstance(n, ast.Call) and len(n.args) == 2:
            a, b = ev(n.args[0]), ev(n.args[1])
            f = n.func.id
            if f == 'min':
                return min(a, b)
            if f == 'max':
                return max(a, b)
            if f == 'ceil_div':
                return -(-a // b)
            if f == 'align':
                return -(-a // b) * b
        raise ValueError('unsupported spec expression: ' + expr)
    return ev(ast.parse(expr.strip(), mode='eval'))


def timing_size(spec_path):
    """(scalars at the timing size, [(buffer, type, count expr, role)])."""
    scalars, buffers, timing, section = {}, [], {}, None
    for line in open(spec_path):
        line = line.split('#', 1)[0].rstrip()
        if not line:
            continue
        if not line.startswith(' '):
            section = line.split(':', 1)[0]
            if section == 'timing':
                timing = _flow_map(line.split(':', 1)[1])
            continue
        m = re.match(r'\s+(\w+):\s*(\{.*\})$', line)
        if not m:
            continue
        fields = _flow_map(m.group(2))
        if section == 'scalars':
            scalars[m.group(1)] = fields
        elif section == 'buffers':
            buffers.append((m.group(1), fields['type'], fields['count'],
                            fields.get('role', 'in')))
    env, derived = {}, []
    for name, f in scalars.items():
        if name in timing:
            env[name] = int(timing[name])
        elif re.fullmatch(r'-?\d+', f['value']):
            env[name] = int(f['value'])
        elif re.fullmatch(r'[-+0-9.eE]+', f['value']):
            continue  # a float scalar
        else:
            derived.append((name, f['value']))
    for name, expr in derived:  # in spec order, as the emulator does
        env[name] = _eval(expr, env)
    return env, buffers


def model_rates(verify, arch):
    """(achievable HBM B/s, vector FP32 FLOP/s, matrix FP16 FLOP/s)."""
    cfg = subprocess.run([verify, 'time', '--print-config'], check=True,
                         capture_output=True, text=True).stdout
    p = {k: float(v) for k, v in
         re.findall(r'^(\w+): ([0-9.e+]+)$', cfg, re.M)}
    clock = p['clock_mhz'] * 1e6
    cus = p['xcds'] * p['cus_per_xcd']
    vector = p['simds_per_cu'] * 64 / p['valu_cycles'] * 2 * 2
    return (p['hbm_tbs'] * 1e12, vector * cus * clock,
            MFMA_FLOP_PER_CLK_CU[arch] * cus * clock)


def bound_us(kernel, spec_path, rates):
    """The roofline bound in microseconds and which term decides it."""
    env, buffers = timing_size(spec_path)
    nbytes = 0
    for name, ty, count, role in buffers:
        part = PARTIAL_READS.get((kernel, name))
        b = _eval(part, env) if part else _eval(count, env) * ELEM_BYTES[ty]
        nbytes += 2 * b if role == 'inout' else b
    hbm, vector, matrix = rates
    mem = nbytes / hbm * 1e6
    flops, on_matrix = FLOPS.get(kernel, ('0', False))
    comp = _eval(flops, env) / (matrix if on_matrix else vector) * 1e6
    return (mem, 'mem') if mem >= comp else (comp, 'flop')
