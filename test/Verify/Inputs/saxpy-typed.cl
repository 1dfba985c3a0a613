// An OpenCL kernel whose metadata carries what HIP's omits: .type_name,
// .name (with -cl-kernel-arg-info) and .reqd_workgroup_size.
__kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void saxpy_typed(__global float *y, __global const float *restrict x,
                 float a, int n) {
  int i = __builtin_amdgcn_workgroup_id_x() * 64 +
          __builtin_amdgcn_workitem_id_x();
  if (i < n)
    y[i] = a * x[i] + y[i];
}
