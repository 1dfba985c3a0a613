//===- Registry.cpp - Suite kernels, their references and tolerances ------===//
//
// u = 2^-24, the unit roundoff of fp32. The error bounds assume the input
// ranges of the launch specs (../specs/*.yaml) and the reduction lengths of
// their sizes; a wrong element, a lost term or a race is orders of magnitude
// above each tolerance (about 1/length of the scale or more).
//
//===----------------------------------------------------------------------===//
#include "Reference.h"

using namespace llvm;
using namespace asmevo::suite;

static const Tolerance Exact{0, 0};
// fp32 dot products / sums of at most ~300 terms, any order: |err| <=
// n u sum|a b| (Higham 3.1); 300 u = 1.8e-5.
static const Tolerance DotProduct{2e-5, 0};

static const KernelReference References[] = {
    {"relu", reluRef, Exact, "max(x, 0) is exact"},
    {"gelu_tanh",
     gelu_tanhRef,
     {2e-6, 0},
     "relative to |x|: tanhf of asmevo_hip.h is within ~3 ulp of a value "
     "<= 1, times 0.5|x|; 1 + tanh cancels for x << 0, so not relative to |y|"},
    {"silu",
     siluRef,
     {1e-6, 0},
     "expf (~1 ulp), one add, IEEE division: <= ~4 ulp of |y|"},
    {"axpby_vec4",
     axpby_vec4Ref,
     {3e-7, 0},
     "relative to |a x| + |b y|: two products and a sum, or an fma: <= 1.5 u "
     "each side"},
    {"scale_residual_f16",
     scale_residual_f16Ref,
     {1.5e-3, 6e-8},
     "relative to |alpha x| + |res|: an fp16 product and sum, each <= 2^-11; "
     "abs: fp16 subnormal spacing 2^-24"},
    {"reduce_sum_rows",
     reduce_sum_rowsRef,
     {2e-6, 0},
     "relative to sum |x|: fp32 summation of depth cols/256 + 8 <= 24 (cols "
     "<= 4096), any order"},
    {"reduce_max_rows", reduce_max_rowsRef, Exact, "max is exact"},
    {"argmax_rows", argmax_rowsRef, Exact,
     "index; ties go to the first column in both"},
    {"softmax_rows",
     softmax_rowsRef,
     {5e-6, 0},
     "relative to |y|: expf ~1 ulp, its argument x - max rounded (<= 10 u for "
     "inputs in [-5, 5]), fp32 row sum of depth <= 24, reciprocal, product"},
    {"layernorm",
     layernormRef,
     {1e-5, 0},
     "relative to |gamma| (|x| + |mean|) rstd + |beta|: two fp32 row sums, "
     "v_rsq_f32 (1 ulp), three roundings; x - mean inherits the mean's "
     "absolute error"},
    {"rmsnorm",
     rmsnormRef,
     {5e-6, 0},
     "relative to |y|: fp32 sum of squares (positive terms, depth <= 30), "
     "v_rsq_f32 (1 ulp), two products"},
    {"matmul_naive", matmul_naiveRef, DotProduct,
     "relative to sum |a b|: fp32 dot product, K <= 300"},
    {"matmul_tiled", matmul_tiledRef, DotProduct,
     "relative to sum |a b|: fp32 dot product, K <= 300"},
    {"gemm_mfma_f16", gemm_mfma_f16Ref, DotProduct,
     "relative to sum |a b|: fp16 products are exact in fp32, MFMA "
     "accumulation order and rounding unspecified, K <= 300"},
    {"gemm_mfma_bf16", gemm_mfma_bf16Ref, DotProduct,
     "relative to |alpha| sum |a b| + |beta c|: bf16 products exact in fp32, "
     "MFMA accumulation order unspecified, K <= 300"},
    {"batched_matmul", batched_matmulRef, DotProduct,
     "relative to sum |a b|: fp32 dot product, K <= 300"},
    {"transpose", transposeRef, Exact, "data movement"},
    {"conv1d", conv1dRef, DotProduct,
     "relative to sum |x w| + |bias|: fp32 dot product of cin * klen <= 300"},
    {"conv2d", conv2dRef, DotProduct,
     "relative to sum |x w| + |bias|: fp32 dot product of c * r * s <= 300"},
    {"maxpool2d", maxpool2dRef, Exact, "max is exact"},
    {"avgpool2d",
     avgpool2dRef,
     {1e-6, 0},
     "relative to sum |x| / count: <= kernel^2 = 9 fp32 additions and an IEEE "
     "division"},
    {"block_scan", block_scanRef, Exact, "int32"},
    {"histogram", histogramRef, Exact, "u32 counts (integer atomics)"},
    {"embedding_gather", embedding_gatherRef, Exact, "data movement"},
    {"scatter_add", scatter_addRef, Exact, "int32 atomics, order-independent"},
    {"topk_rows", topk_rowsRef, Exact,
     "values are copied; ties go to the earlier column in both"},
    {"matmul_bias_relu", matmul_bias_reluRef, DotProduct,
     "relative to sum |a b| + |bias|: fp32 dot product, K <= 300; relu does "
     "not increase an error"},
    {"conv_bn_relu", conv_bn_reluRef, DotProduct,
     "relative to (sum |x w| + |mean|) |gamma rstd| + |beta|: dot product of "
     "9 c <= 300, v_rsq_f32 (1 ulp), three roundings"},
    {"softmax_mask",
     softmax_maskRef,
     {5e-6, 0},
     "relative to |y| (masked: exactly 0): as softmax_rows, plus the rounding "
     "of x * scale"},
    {"gemv", gemvRef, DotProduct,
     "relative to sum |a x|: fp32 dot product, per-lane sums of n/64 terms "
     "and a 6-step wave reduction"},
};

ArrayRef<KernelReference> asmevo::suite::kernelReferences() {
  return References;
}

const KernelReference *asmevo::suite::findKernelReference(StringRef Name) {
  for (const KernelReference &R : References)
    if (Name == R.Name)
      return &R;
  return nullptr;
}
