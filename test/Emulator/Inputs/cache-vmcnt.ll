; A global load, then a buffer cache operation, then s_waitcnt vmcnt(1):
; vmcnt returns in order and the cache operation's ACK counts on it, so the
; wait completes the load and the v_mov after it reads the loaded value
; (test/Emulator/cache-vmcnt.test). CACHEOP is replaced per target.
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @k(ptr addrspace(1) %in, ptr addrspace(1) %out) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %src = getelementptr i32, ptr addrspace(1) %in, i32 %tid
  %dst = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  %v = call i32 asm sideeffect "global_load_dword $0, $1, off\0ACACHEOP\0As_waitcnt vmcnt(1)\0Av_add_u32 $0, 1, $0\0As_waitcnt vmcnt(0)", "=&v,v"(ptr addrspace(1) %src)
  store i32 %v, ptr addrspace(1) %dst
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
