/* Resolves CUDA includes of generated code to the CPU emulation. */
#include "../cuda_emu.h"
