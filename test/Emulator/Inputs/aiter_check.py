#!/usr/bin/env python3
"""Runs AITer gfx942 code objects from ../shared/corpus in the emulator and
compares their outputs with a host reference of the operation they compute.

    aiter_check.py BUILD_DIR CORPUS_DIR [CASE...] [--seed N] [--interleave N]

CASEs (default: all): topksoftmax, topksoftmax_bf16, bf16gemm,
bf16gemm_splitk, topk_decode, topk_decode_short. Inputs are generated here
(Python's random, seeded), passed with --input, and the launch specs are
Inputs/aiter/*.yaml. Prints one line per case: 'CASE: ok (...)' or
'CASE: FAIL (...)'; exit 1 if any case fails or the emulator reports a
violation. No NumPy: the references are plain Python (sizes are small).
"""
import math
import os
import random
import struct
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
specs = os.path.join(here, 'aiter')


# --- data helpers ----------------------------------------------------------

def f32(x):
    return struct.unpack('<f', struct.pack('<f', x))[0]


def bf16_bits(x):
    """Round-to-nearest-even f32 -> bf16 (finite inputs)."""
    u = struct.unpack('<I', struct.pack('<f', x))[0]
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF


def bf16_value(b):
    return struct.unpack('<f', struct.pack('<I', b << 16))[0]


def write(path, fmt, values):
    with open(path, 'wb') as f:
        f.write(struct.pack('<%d%s' % (len(values), fmt), *values))


def read(path, fmt):
    data = open(path, 'rb').read()
    size = struct.calcsize(fmt)
    return list(struct.unpack('<%d%s' % (len(data) // size, fmt), data))


class Runner:
    def __init__(self, build, corpus, seed, interleave):
        self.verify = os.path.join(build, 'bin', 'asmevo-verify')
        self.corpus = corpus
        self.seed = seed
        self.interleave = interleave
        self.tmp = tempfile.mkdtemp(prefix='asmevo-aiter-')

    def run(self, case, co, spec, inputs, sets=(), extra=()):
        out = os.path.join(self.tmp, case)
        args = [self.verify, 'run', os.path.join(self.corpus, co), '--spec',
                os.path.join(specs, spec), '--output-dir', out, '--format',
                'raw', '--interleave', str(self.interleave)]
        for name, path in inputs.items():
            args += ['--input', '%s=%s' % (name, path)]
        for s in sets:
            args += ['--set', s]
        args += list(extra)
        r = subprocess.run(args, capture_output=True, text=True)
        log = r.stdout + r.stderr
        if r.returncode != 0 or 'result: clean' not in r.stdout:
            raise RuntimeError('emulator run failed (exit %d):\n%s' %
                               (r.returncode, log))
        return out, log

    def path(self, name):
        return os.path.join(self.tmp, name)


# --- top-k softmax -----------------------------------------------------------

def topksoftmax(R, case, bf16):
    rng = random.Random(R.seed * 1000 + 1)
    batch, expert = (100, 128) if not bf16 else (61, 128)
    topk = 8 if bf16 else 4
    renorm = 1
    raw = [rng.gauss(0, 2) for _ in range(batch * expert)]
    if bf16:
        bits = [bf16_bits(x) for x in raw]
        vals = [bf16_value(b) for b in bits]
        write(R.path(case + '_gating.bin'), 'H', bits)
    else:
        vals = [f32(x) for x in raw]
        write(R.path(case + '_gating.bin'), 'f', vals)
    co = ('aiter/hsa/gfx942/topksoftmax/topksoftmax_12x128x8_bf16.co' if bf16
          else 'aiter/hsa/gfx942/topksoftmax/topksoftmax_12x128x4.co')
    spec = ('topksoftmax_12x128x8_bf16.yaml' if bf16
            else 'topksoftmax_12x128x4.yaml')
    out, log = R.run(case, co, spec, {'gating': R.path(case + '_gating.bin')},
                     ['batch=%d' % batch, 'renorm=%d' % renorm],
                     ['--waive-hazard', 'valu-sgpr-valu'])
    idx = read(os.path.join(out, 'idx.bin'), 'i')
    w = read(os.path.join(out, 'w.bin'), 'f')
    worst = 0.0
    for t in range(batch):
        row = vals[t * expert:(t + 1) * expert]
        m = max(row)
        e = [math.exp(x - m) for x in row]
        s = sum(e)
        p = [x / s for x in e]
        order = sorted(range(expert), key=lambda i: -p[i])[:topk]
        ref_w = [p[i] for i in order]
        if renorm:
            s2 = sum(ref_w)
            ref_w = [x / s2 for x in ref_w]
        got_i = idx[t * topk:(t + 1) * topk]
        got_w = w[t * topk:(t + 1) * topk]
        if got_i != order:
            return False, 'token %d: indices %s, expected %s' % (t, got_i,
                                                                  order)
        for a, b in zip(got_w, ref_w):
            err = abs(a - b) / max(abs(b), 1e-30)
            worst = max(worst, err)
            if err > 1e-5:
                return False, 'token %d: weights %s, expected %s' % (
                    t, got_w, ref_w)
    return True, '%d tokens x %d experts, top-%d: indices exact, weights ' \
        'max rel err %.1e' % (batch, expert, topk, worst)


# --- bf16 GEMM ---------------------------------------------------------------

def shuffle_index(n, k, K):
    """Offset of element (n, k) of B[N, K] after shuffle_weight((16, 16))."""
    return ((n // 16 * (K // 32) + k // 32) * 4 + (k % 32) // 8) * 128 + \
        (n % 16) * 8 + k % 8


def bf16gemm(R, case, splitk):
    rng = random.Random(R.seed * 1000 + 2)
    M, N, K = (64, 128, 256) if splitk == 1 else (40, 64, 512)
    a_bits = [bf16_bits(rng.gauss(0, 1)) for _ in range(M * K)]
    b_bits = [bf16_bits(rng.gauss(0, 1)) for _ in range(N * K)]
    shuffled = [0] * (N * K)
    for n in range(N):
        for k in range(K):
            shuffled[shuffle_index(n, k, K)] = b_bits[n * K + k]
    write(R.path(case + '_A.bin'), 'H', a_bits)
    write(R.path(case + '_B.bin'), 'H', shuffled)
    out, log = R.run(case, 'aiter/hsa/gfx942/bf16gemm/'
                     'bf16gemm_fp32bf16_tn_32x64_bshuffle_splitk.co',
                     'bf16gemm_32x64_bshuffle.yaml',
                     {'A': R.path(case + '_A.bin'),
                      'B': R.path(case + '_B.bin')},
                     ['M=%d' % M, 'N=%d' % N, 'K=%d' % K,
                      'splitk=%d' % splitk])
    D = read(os.path.join(out, 'D.bin'), 'f')
    A = [bf16_value(b) for b in a_bits]
    B = [bf16_value(b) for b in b_bits]
    worst = 0.0
    for m in range(M):
        Am = A[m * K:(m + 1) * K]
        for n in range(N):
            Bn = B[n * K:(n + 1) * K]
            ref = math.fsum(x * y for x, y in zip(Am, Bn))
            mag = math.fsum(abs(x * y) for x, y in zip(Am, Bn))
            # f32 accumulation of K terms: bound by K * eps * sum |a b|.
            err = abs(D[m * N + n] - ref) / max(mag, 1e-30)
            worst = max(worst, err)
            if err > K * 2 ** -24:
                return False, 'D[%d][%d] = %r, expected %r' % (
                    m, n, D[m * N + n], ref)
    return True, 'M=%d N=%d K=%d splitk=%d: max error %.1e x sum|a*b|' % (
        M, N, K, splitk, worst)


# --- top-k per row (decode) -------------------------------------------------

def topk_decode(R, case, short):
    rng = random.Random(R.seed * 1000 + 3)
    rows, next_n, stride0 = (4, 2, 5000) if not short else (3, 1, 3000)
    logits = [f32(rng.gauss(0, 1)) for _ in range(rows * stride0)]
    if short:
        seqlens = [1000, 2048, 2600]
    else:
        seqlens = [rng.randint(2100, stride0) for _ in range(rows // next_n)]
    write(R.path(case + '_logits.bin'), 'f', logits)
    write(R.path(case + '_seqlens.bin'), 'i', seqlens)
    out, log = R.run(case, 'aiter/hsa/gfx942/topk_per_row_decode/'
                     'asm_top_k_per_row_decode.co',
                     'topk_per_row_decode.yaml',
                     {'logits': R.path(case + '_logits.bin'),
                      'seqlens': R.path(case + '_seqlens.bin')},
                     ['rows=%d' % rows, 'next_n=%d' % next_n,
                      'stride0=%d' % stride0])
    got = read(os.path.join(out, 'out.bin'), 'i')
    lens = []
    for r in range(rows):
        end = seqlens[r // next_n] - next_n + r % next_n + 1
        lens.append(end)
        row = logits[r * stride0:r * stride0 + end]
        want = set(sorted(range(end), key=lambda i: -row[i])[:2048])
        g = got[r * 2048:(r + 1) * 2048]
        gs = set(g[:min(end, 2048)])
        if gs != want:
            return False, 'row %d (length %d): %d indices differ' % (
                r, end, len(gs ^ want))
        if end < 2048 and any(x != -1 for x in g[end:]):
            return False, 'row %d (length %d): tail not -1: %s' % (
                r, end, sorted(set(g[end:]))[:8])
    return True, '%d rows, lengths %s: top-2048 index sets exact' % (
        rows, lens)


CASES = {
    'topksoftmax': lambda R: topksoftmax(R, 'topksoftmax', False),
    'topksoftmax_bf16': lambda R: topksoftmax(R, 'topksoftmax_bf16', True),
    'bf16gemm': lambda R: bf16gemm(R, 'bf16gemm', 1),
    'bf16gemm_splitk': lambda R: bf16gemm(R, 'bf16gemm_splitk', 2),
    'topk_decode': lambda R: topk_decode(R, 'topk_decode', False),
    'topk_decode_short': lambda R: topk_decode(R, 'topk_decode_short', True),
}


def main():
    args = sys.argv[1:]
    seed, interleave, pos = 0, 0, []
    while args:
        a = args.pop(0)
        if a == '--seed':
            seed = int(args.pop(0))
        elif a == '--interleave':
            interleave = int(args.pop(0))
        else:
            pos.append(a)
    if len(pos) < 2:
        sys.exit(__doc__)
    R = Runner(pos[0], pos[1], seed, interleave)
    names = pos[2:] or list(CASES)
    bad = 0
    for name in names:
        try:
            ok, what = CASES[name](R)
        except RuntimeError as e:
            ok, what = False, str(e)
        print('%s: %s (%s)' % (name, 'ok' if ok else 'FAIL', what))
        bad += not ok
    sys.exit(1 if bad else 0)


if __name__ == '__main__':
    main()
