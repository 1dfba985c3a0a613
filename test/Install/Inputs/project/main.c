/* The device code, as hipcc's host object would carry it. */
__asm__(".section .hip_fatbin,\"a\",@progbits\n"
        ".p2align 12\n"
        ".incbin \"" FATBIN "\"\n"
        ".previous\n");
int main(void) { return 0; }
