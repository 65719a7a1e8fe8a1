/*
 * cuda_emu.h: run CUDA programs on the CPU, for testing generated code
 * without a GPU.
 *
 * Blocks of a launch run one after another; the threads of a block run as
 * cooperative fibers on one OS thread and switch only at __syncthreads() and
 * at the warp-level operations (__shfl*_sync, __syncwarp), where the lanes of
 * a warp meet as on the hardware: each lane waits until every lane of the mask
 * has arrived at the same operation, then all read the values deposited there.
 * So a missing barrier shows up as wrong results once the fiber order is
 * changed (PPCG_EMU_ORDER=forward|reverse|shuffle, PPCG_EMU_SEED), and
 * __shared__ can simply be `static`: every thread of the running block sees
 * the same storage.  Launches `k<<<g, b>>>(args)` must be rewritten to
 * `ppcg_emu_launch(g, b, [&]() { k(args); })` before compiling with g++
 * (ppcg_py/verify/launch.py does this).
 *
 * Run-time knobs (environment):
 *   PPCG_EMU_ORDER     forward (default) | reverse | shuffle: order of the
 *                      threads in every round between barriers, and of blocks
 *   PPCG_EMU_SEED      seed of the shuffle (default 1)
 *   PPCG_EMU_STACK_KB  fiber stack size in KiB (default 256)
 *   PPCG_EMU_STRICT_BARRIERS=1  abort when some threads of a block wait at a
 *                      barrier that others never reach because they returned
 * Compile-time: -DPPCG_EMU_UCONTEXT switches fibers with swapcontext instead
 * of the hand-written x86-64 switch (used automatically under ASan and on
 * other architectures; swapcontext costs a sigprocmask system call).
 */
#ifndef PPCG_CUDA_EMU_H
#define PPCG_CUDA_EMU_H

#ifndef __cplusplus
#error "cuda_emu.h is C++17: compile the .cu files as C++"
#endif

#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <type_traits>
#include <ucontext.h>
#include <unistd.h>

#define PPCG_EMU 1

#if defined(PPCG_EMU_UCONTEXT) || !defined(__x86_64__) || \
    defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define PPCG_EMU_USE_UCONTEXT 1
#else
#define PPCG_EMU_USE_UCONTEXT 0
#endif

/* ---- CUDA keywords ------------------------------------------------------
 * __restrict__ is left alone: g++ understands it with CUDA's meaning. */
#define __global__
#define __device__
#define __host__
#define __constant__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static

/* ---- built-in types and variables --------------------------------------- */
struct uint3 {
  unsigned int x, y, z;
};

struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};

/* Set by the scheduler before it resumes a fiber. */
inline uint3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;
constexpr int warpSize = 32;

/* ---- min/max as CUDA's math_functions.hpp declares them ------------------
 * The parenthesised names keep a user's function-like min/max macro from
 * expanding here; non-template overloads beat std::min after a
 * `using namespace std`. */
#define PPCG_EMU_INT_MINMAX(R, A, B)                                  \
  inline R(min)(A a, B b) { R x = a, y = b; return x < y ? x : y; }   \
  inline R(max)(A a, B b) { R x = a, y = b; return x > y ? x : y; }
PPCG_EMU_INT_MINMAX(int, int, int)
PPCG_EMU_INT_MINMAX(unsigned int, unsigned int, unsigned int)
PPCG_EMU_INT_MINMAX(unsigned int, int, unsigned int)
PPCG_EMU_INT_MINMAX(unsigned int, unsigned int, int)
PPCG_EMU_INT_MINMAX(long, long, long)
PPCG_EMU_INT_MINMAX(unsigned long, unsigned long, unsigned long)
PPCG_EMU_INT_MINMAX(unsigned long, long, unsigned long)
PPCG_EMU_INT_MINMAX(unsigned long, unsigned long, long)
PPCG_EMU_INT_MINMAX(long long, long long, long long)
PPCG_EMU_INT_MINMAX(unsigned long long, unsigned long long, unsigned long long)
PPCG_EMU_INT_MINMAX(unsigned long long, long long, unsigned long long)
PPCG_EMU_INT_MINMAX(unsigned long long, unsigned long long, long long)
#undef PPCG_EMU_INT_MINMAX
inline float(min)(float a, float b) { return fminf(a, b); }
inline float(max)(float a, float b) { return fmaxf(a, b); }
inline double(min)(double a, double b) { return fmin(a, b); }
inline double(max)(double a, double b) { return fmax(a, b); }
inline double(min)(float a, double b) { return fmin(a, b); }
inline double(max)(float a, double b) { return fmax(a, b); }
inline double(min)(double a, float b) { return fmin(a, b); }
inline double(max)(double a, float b) { return fmax(a, b); }

/* ---- device intrinsics that have a plain CPU meaning --------------------- */
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline float __fdividef(float a, float b) { return a / b; }
inline float __expf(float x) { return expf(x); }
inline float __logf(float x) { return logf(x); }
inline float __powf(float a, float b) { return powf(a, b); }
template <class T> inline T __ldg(const T *p) { return *p; }
/* Blocks run one after another and fibers never preempt each other: every write
 * is visible to every later reader, so the fences have nothing to order. */
inline void __threadfence() {}
inline void __threadfence_block() {}
inline void __threadfence_system() {}
/* Fibers never preempt each other, so a plain update is atomic. */
template <class T> inline T atomicAdd(T *p, T v) { T old = *p; *p = old + v; return old; }
template <class T> inline T atomicSub(T *p, T v) { T old = *p; *p = old - v; return old; }
template <class T> inline T atomicAnd(T *p, T v) { T old = *p; *p = old & v; return old; }
template <class T> inline T atomicOr(T *p, T v) { T old = *p; *p = old | v; return old; }
template <class T> inline T atomicXor(T *p, T v) { T old = *p; *p = old ^ v; return old; }
template <class T> inline T atomicCAS(T *p, T compare, T v) { T old = *p; if (old == compare) *p = v; return old; }
/* CUDA's wrapping counters: ((old >= limit) ? 0 : old + 1), and its mirror. */
inline unsigned atomicInc(unsigned *p, unsigned limit) { unsigned old = *p; *p = old >= limit ? 0 : old + 1; return old; }
inline unsigned atomicDec(unsigned *p, unsigned limit) {
  unsigned old = *p; *p = (old == 0 || old > limit) ? limit : old - 1; return old;
}
template <class T> inline T atomicMin(T *p, T v) { T old = *p; *p = v < old ? v : old; return old; }
template <class T> inline T atomicMax(T *p, T v) { T old = *p; *p = v > old ? v : old; return old; }
template <class T> inline T atomicExch(T *p, T v) { T old = *p; *p = v; return old; }

/* ---- runtime API ---------------------------------------------------------- */
enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInsufficientDriver = 35,
  cudaErrorNoDevice = 100,
  cudaErrorLaunchFailure = 719,
};
typedef enum cudaError cudaError_t;

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

typedef struct CUstream_st *cudaStream_t;

namespace ppcg_emu {
inline cudaError_t last_error = cudaSuccess;

inline cudaError_t record(cudaError_t e) {
  if (e != cudaSuccess) last_error = e;
  return e;
}

[[noreturn]] inline void die(const char *what) {
  fprintf(stderr, "ppcg_emu: %s\n", what);
  fflush(stderr);
  abort();
}
}  // namespace ppcg_emu

inline const char *cudaGetErrorString(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInsufficientDriver: return "CUDA driver version is insufficient for CUDA runtime version";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
  }
  return "unknown error";
}

inline cudaError_t cudaGetLastError() {
  cudaError_t e = ppcg_emu::last_error;
  ppcg_emu::last_error = cudaSuccess;
  return e;
}

inline cudaError_t cudaPeekAtLastError() { return ppcg_emu::last_error; }

/* One emulated device; none with PPCG_EMU_NO_DEVICE set (as the runtime of a machine
 * without a GPU answers), so that a program's host path can be run. */
inline cudaError_t cudaGetDeviceCount(int *count) {
  if (getenv("PPCG_EMU_NO_DEVICE")) {
    *count = 0;
    return ppcg_emu::record(cudaErrorNoDevice);
  }
  *count = 1;
  return cudaSuccess;
}

/* New device memory is filled with 0xFF bytes (NaN for float and double, -1
 * for integers), so elements the generated code forgets to write or copy
 * stand out in the results. */
inline cudaError_t cudaMalloc(void **ptr, size_t bytes) {
  void *mem = malloc(bytes ? bytes : 1);
  *ptr = mem;
  if (!mem) return ppcg_emu::record(cudaErrorMemoryAllocation);
  memset(mem, 0xFF, bytes);
  return cudaSuccess;
}

template <class T> inline cudaError_t cudaMalloc(T **ptr, size_t bytes) {
  return cudaMalloc(reinterpret_cast<void **>(ptr), bytes);
}

inline cudaError_t cudaFree(void *ptr) {
  free(ptr);
  return cudaSuccess;
}

inline cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind) {
  if ((unsigned)kind > cudaMemcpyDefault || (bytes && (!dst || !src)))
    return ppcg_emu::record(cudaErrorInvalidValue);
  if (bytes) memmove(dst, src, bytes);
  return cudaSuccess;
}

/* A rectangle of `height` rows of `width` bytes; rows are `dpitch`/`spitch` bytes apart. */
inline cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                size_t height, cudaMemcpyKind kind) {
  if ((unsigned)kind > cudaMemcpyDefault || width > dpitch || width > spitch ||
      (width && height && (!dst || !src)))
    return ppcg_emu::record(cudaErrorInvalidValue);
  for (size_t row = 0; row < height; row++)
    memmove((char *)dst + row * dpitch, (const char *)src + row * spitch, width);
  return cudaSuccess;
}

inline cudaError_t cudaMemset(void *dst, int value, size_t bytes) {
  if (bytes && !dst) return ppcg_emu::record(cudaErrorInvalidValue);
  if (bytes) memset(dst, value, bytes);
  return cudaSuccess;
}

template <class T>
inline cudaError_t cudaMemcpyToSymbol(T &symbol, const void *src, size_t bytes, size_t offset = 0,
                                      cudaMemcpyKind = cudaMemcpyHostToDevice) {
  memcpy(reinterpret_cast<char *>(&symbol) + offset, src, bytes);
  return cudaSuccess;
}

template <class T>
inline cudaError_t cudaMemcpyFromSymbol(void *dst, const T &symbol, size_t bytes, size_t offset = 0,
                                        cudaMemcpyKind = cudaMemcpyDeviceToHost) {
  memcpy(dst, reinterpret_cast<const char *>(&symbol) + offset, bytes);
  return cudaSuccess;
}

/* Launches run to completion, so there is never anything to wait for. */
inline cudaError_t cudaDeviceSynchronize() { return ppcg_emu::last_error; }
inline cudaError_t cudaThreadSynchronize() { return ppcg_emu::last_error; }
inline cudaError_t cudaDeviceReset() { return cudaSuccess; }

/* Events: the host's monotonic clock when recorded (launches and copies have finished
 * by then, as on a device after cudaEventSynchronize). */
struct ppcg_emu_event { double ms; };
typedef ppcg_emu_event *cudaEvent_t;

inline cudaError_t cudaEventCreate(cudaEvent_t *event) {
  *event = new ppcg_emu_event{0.0};
  return cudaSuccess;
}
inline cudaError_t cudaEventDestroy(cudaEvent_t event) {
  delete event;
  return cudaSuccess;
}
inline cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t = 0) {
  if (!event) return ppcg_emu::record(cudaErrorInvalidValue);
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  event->ms = now.tv_sec * 1e3 + now.tv_nsec * 1e-6;
  return cudaSuccess;
}
inline cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  return event ? cudaSuccess : ppcg_emu::record(cudaErrorInvalidValue);
}
inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end) {
  if (!start || !end) return ppcg_emu::record(cudaErrorInvalidValue);
  *ms = (float)(end->ms - start->ms);
  return cudaSuccess;
}
inline cudaError_t cudaSetDevice(int) { return cudaSuccess; }

/* ---- fibers --------------------------------------------------------------- */
#if !PPCG_EMU_USE_UCONTEXT
/* ppcg_emu_switch(save, to): save the callee-saved registers and the SSE/x87
 * control words on the current stack, store the stack pointer in *save, and
 * resume the fiber whose stack pointer is `to`.  Unlike swapcontext it makes
 * no system call.  A COMDAT section lets every translation unit carry it. */
__asm__(
    ".pushsection .text.ppcg_emu_switch,\"axG\",@progbits,ppcg_emu_switch,comdat\n"
    ".globl ppcg_emu_switch\n"
    ".hidden ppcg_emu_switch\n"
    ".type ppcg_emu_switch,@function\n"
    "ppcg_emu_switch:\n"
    "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
    "  subq $8, %rsp\n  stmxcsr (%rsp)\n  fnstcw 4(%rsp)\n"
    "  movq %rsp, (%rdi)\n"
    "  movq %rsi, %rsp\n"
    "  ldmxcsr (%rsp)\n  fldcw 4(%rsp)\n  addq $8, %rsp\n"
    "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"
    "  ret\n"
    ".size ppcg_emu_switch, .-ppcg_emu_switch\n"
    ".popsection\n");
extern "C" void ppcg_emu_switch(void **save, void *to);
#endif

namespace ppcg_emu {

enum class State : unsigned char { Ready, Waiting, WarpWaiting, Done };
enum class Shuffle : unsigned char { Idx, Up, Down, Xor, Sync };
enum class Order : unsigned char { Forward, Reverse, Shuffle };

struct Fiber {
#if PPCG_EMU_USE_UCONTEXT
  ucontext_t uc;
#else
  void *sp;
#endif
  char *stack; /* lowest usable byte; a guard page lies below it */
  uint3 tid;
  State state;
  const char *wait_file; /* the barrier a waiting fiber is at */
  int wait_line;
  int wait_site; /* unique per __syncthreads() in a translation unit */
  /* at a warp-level operation: its kind, mask, lane argument and width, the value
   * this lane gives, and (once the warp has met) the value it gets */
  Shuffle shfl_kind;
  unsigned shfl_mask;
  int shfl_arg;
  int shfl_width;
  uint64_t shfl_give;
  uint64_t shfl_get;
};

struct Runtime {
  bool configured = false;
  Order order = Order::Forward;
  bool strict_barriers = false;
  uint64_t rng = 1;
  size_t stack_bytes = 256 * 1024;
  size_t page = 4096;
  Fiber *fibers = nullptr;
  unsigned n_fibers = 0;
  unsigned *perm = nullptr; /* buffer of shuffled_order */
  size_t perm_capacity = 0;
  Fiber *current = nullptr;
  void (*body)(void *) = nullptr;
  void *body_ctx = nullptr;
#if PPCG_EMU_USE_UCONTEXT
  ucontext_t scheduler;
#else
  void *scheduler_sp = nullptr;
#endif
};
inline Runtime rt;

inline uint64_t next_random() { /* splitmix64 */
  uint64_t z = (rt.rng += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Turns a stack overflow in a fiber into a message instead of a bare crash. */
inline void on_segv(int sig, siginfo_t *info, void *) {
  char *addr = static_cast<char *>(info->si_addr);
  for (unsigned i = 0; i < rt.n_fibers; ++i) {
    char *stack = rt.fibers[i].stack;
    if (addr >= stack - 16 * rt.page && addr < stack) { /* the guard page, or just below */
      static const char msg[] =
          "ppcg_emu: fiber stack overflow (local arrays too large?); raise PPCG_EMU_STACK_KB\n";
      (void)!write(2, msg, sizeof msg - 1);
      break;
    }
  }
  signal(sig, SIG_DFL); /* returning re-raises the fault with the default action */
}

inline void configure() {
  rt.configured = true;
  if (const char *o = getenv("PPCG_EMU_ORDER"); o && *o) {
    if (!strcmp(o, "forward")) rt.order = Order::Forward;
    else if (!strcmp(o, "reverse")) rt.order = Order::Reverse;
    else if (!strcmp(o, "shuffle")) rt.order = Order::Shuffle;
    else die("PPCG_EMU_ORDER must be forward, reverse or shuffle");
  }
  if (const char *s = getenv("PPCG_EMU_SEED"); s && *s) rt.rng = strtoull(s, nullptr, 0);
  if (const char *k = getenv("PPCG_EMU_STACK_KB"); k && *k) {
    long kb = strtol(k, nullptr, 0);
    if (kb < 16) die("PPCG_EMU_STACK_KB must be at least 16");
    rt.stack_bytes = (size_t)kb * 1024;
  }
  const char *strict = getenv("PPCG_EMU_STRICT_BARRIERS");
  rt.strict_barriers = strict && *strict && strcmp(strict, "0") != 0;
  rt.page = (size_t)sysconf(_SC_PAGESIZE);
  rt.stack_bytes = (rt.stack_bytes + rt.page - 1) / rt.page * rt.page;

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  static char alt_stack[64 * 1024];
  stack_t ss = {};
  ss.ss_sp = alt_stack;
  ss.ss_size = sizeof alt_stack;
  sigaltstack(&ss, nullptr);
  struct sigaction sa = {};
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigaction(SIGSEGV, &sa, nullptr);
#endif
}

/* Stacks are mapped once and reused by every later launch. */
inline void reserve_fibers(unsigned n) {
  if (n <= rt.n_fibers) return;
  Fiber *grown = static_cast<Fiber *>(realloc(rt.fibers, n * sizeof(Fiber)));
  if (!grown) die("out of memory for fibers");
  rt.fibers = grown;
  for (unsigned i = rt.n_fibers; i < n; ++i) {
    size_t bytes = rt.stack_bytes + rt.page;
    void *m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (m == MAP_FAILED) die("cannot map a fiber stack");
    mprotect(m, rt.page, PROT_NONE);
    rt.fibers[i] = Fiber{};
    rt.fibers[i].stack = static_cast<char *>(m) + rt.page;
  }
  rt.n_fibers = n;
}

/* 0..n-1 in a random order, in a buffer that the next call reuses. */
inline const unsigned *shuffled_order(size_t n) {
  if (n > rt.perm_capacity) {
    free(rt.perm);
    rt.perm = static_cast<unsigned *>(malloc(n * sizeof(unsigned)));
    if (!rt.perm) die("out of memory for the shuffle");
    rt.perm_capacity = n;
  }
  unsigned *p = rt.perm;
  for (size_t i = 0; i < n; ++i) p[i] = (unsigned)i;
  for (size_t i = n; i > 1; --i) { /* Fisher-Yates */
    size_t j = next_random() % i;
    unsigned t = p[i - 1];
    p[i - 1] = p[j];
    p[j] = t;
  }
  return p;
}

inline void to_scheduler(Fiber *f) {
#if PPCG_EMU_USE_UCONTEXT
  swapcontext(&f->uc, &rt.scheduler);
#else
  ppcg_emu_switch(&f->sp, rt.scheduler_sp);
#endif
}

inline void to_fiber(Fiber *f) {
#if PPCG_EMU_USE_UCONTEXT
  swapcontext(&rt.scheduler, &f->uc);
#else
  ppcg_emu_switch(&rt.scheduler_sp, f->sp);
#endif
}

[[noreturn]] inline void fiber_main() {
  Fiber *f = rt.current;
  rt.body(rt.body_ctx);
  f->state = State::Done;
  to_scheduler(f);
  die("finished fiber resumed");
}

inline void start_fiber(Fiber *f) {
  f->state = State::Ready;
#if PPCG_EMU_USE_UCONTEXT
  getcontext(&f->uc);
  f->uc.uc_stack.ss_sp = f->stack;
  f->uc.uc_stack.ss_size = rt.stack_bytes;
  f->uc.uc_link = nullptr;
  makecontext(&f->uc, reinterpret_cast<void (*)()>(fiber_main), 0);
#else
  /* The frame ppcg_emu_switch pops: control words, r15..rbp, return address
   * (fiber_main), then a null return address for fiber_main itself, which
   * leaves rsp = 8 mod 16 on entry as the ABI requires. */
  uintptr_t top = (reinterpret_cast<uintptr_t>(f->stack) + rt.stack_bytes) & ~uintptr_t(15);
  void **frame = reinterpret_cast<void **>(top - 72);
  uint32_t mxcsr;
  uint16_t fpucw;
  __asm__ volatile("stmxcsr %0\n\tfnstcw %1" : "=m"(mxcsr), "=m"(fpucw));
  memcpy(&frame[0], &mxcsr, 4);
  memcpy(reinterpret_cast<char *>(&frame[0]) + 4, &fpucw, 2);
  for (int i = 1; i <= 6; ++i) frame[i] = nullptr;
  frame[7] = reinterpret_cast<void *>(&fiber_main);
  frame[8] = nullptr;
  f->sp = frame;
#endif
}

[[noreturn]] inline void barrier_error(const char *what, const Fiber *a, const Fiber *b) {
  fprintf(stderr,
          "ppcg_emu: %s in block (%u,%u,%u): thread (%u,%u,%u) waits at %s:%d, "
          "thread (%u,%u,%u) %s",
          what, blockIdx.x, blockIdx.y, blockIdx.z, a->tid.x, a->tid.y, a->tid.z, a->wait_file,
          a->wait_line, b->tid.x, b->tid.y, b->tid.z,
          b->state == State::Done ? "has returned" : "waits at ");
  if (b->state == State::Waiting) fprintf(stderr, "%s:%d", b->wait_file, b->wait_line);
  fputc('\n', stderr);
  die("barrier divergence");
}

/* The lanes of warp w that exist in a block of n threads: a bit per lane. */
inline unsigned lanes_of_warp(unsigned w, unsigned n) {
  unsigned first = w * 32, count = n - first < 32 ? n - first : 32;
  return count == 32 ? 0xffffffffu : (1u << count) - 1;
}

/* Lets the warps whose lanes all wait at one warp-level operation go on: each gets
 * the value of the lane it names (its own where that lane is outside its segment
 * of `width` lanes or not in the mask). True when some warp went on. */
inline bool meet_warps(unsigned n) {
  bool released = false;
  for (unsigned w = 0; w * 32 < n; ++w) {
    Fiber *lane = &rt.fibers[w * 32];
    unsigned exist = lanes_of_warp(w, n), waiting = 0, mask = 0;
    const Fiber *first = nullptr;
    for (unsigned l = 0; l < 32; ++l) {
      if (!(exist >> l & 1u) || lane[l].state != State::WarpWaiting) continue;
      if (!first) first = &lane[l], mask = lane[l].shfl_mask;
      else if (lane[l].wait_site != first->wait_site || lane[l].shfl_mask != first->shfl_mask)
        barrier_error("lanes of a warp wait at different warp-level operations", first, &lane[l]);
      waiting |= 1u << l;
    }
    if (!first) continue;
    mask &= exist;
    if ((waiting & mask) != mask) {      /* a lane of the mask has not arrived yet */
      for (unsigned l = 0; l < 32; ++l)
        if ((mask >> l & 1u) && lane[l].state == State::Done)
          barrier_error("a lane of the mask has returned before the warp-level operation", first, &lane[l]);
      continue;
    }
    if (waiting & ~mask) {
      unsigned l = (unsigned)__builtin_ctz(waiting & ~mask);
      barrier_error("a lane outside the mask waits at a warp-level operation", first, &lane[l]);
    }
    for (unsigned l = 0; l < 32; ++l) {
      if (!(mask >> l & 1u)) continue;
      Fiber *f = &lane[l];
      int width = f->shfl_width, base = (int)l & ~(width - 1), src = (int)l;
      switch (f->shfl_kind) {
        case Shuffle::Idx: src = base + (f->shfl_arg & (width - 1)); break;
        case Shuffle::Up: src = (int)l - f->shfl_arg >= base ? (int)l - f->shfl_arg : (int)l; break;
        case Shuffle::Down: src = (int)l + f->shfl_arg < base + width ? (int)l + f->shfl_arg : (int)l; break;
        case Shuffle::Xor: src = ((int)l ^ f->shfl_arg) < base + width ? (int)l ^ f->shfl_arg : (int)l; break;
        case Shuffle::Sync: break;
      }
      if (src < 0 || src > 31 || !(mask >> src & 1u)) src = (int)l;
      f->shfl_get = lane[src].shfl_give;
    }
    for (unsigned l = 0; l < 32; ++l)
      if (mask >> l & 1u) lane[l].state = State::Ready;
    released = true;
  }
  return released;
}

/* Runs one block: in each round every ready fiber runs up to its next barrier,
 * warp-level operation or end, in the configured order; warps whose lanes have
 * met go on in the next round, and when none can, the block's barrier opens. */
inline void run_block(unsigned n) {
  for (unsigned i = 0; i < n; ++i) {
    Fiber *f = &rt.fibers[i];
    f->tid = uint3{i % blockDim.x, i / blockDim.x % blockDim.y, i / (blockDim.x * blockDim.y)};
    start_fiber(f);
  }
  for (;;) {
    const unsigned *order = rt.order == Order::Shuffle ? shuffled_order(n) : nullptr;
    for (unsigned i = 0; i < n; ++i) {
      unsigned k = order ? order[i] : rt.order == Order::Reverse ? n - 1 - i : i;
      Fiber *f = &rt.fibers[k];
      if (f->state != State::Ready) continue;
      threadIdx = f->tid;
      rt.current = f;
      to_fiber(f);
    }
    rt.current = nullptr;
    if (meet_warps(n)) continue;
    const Fiber *waiting = nullptr, *done = nullptr;
    for (unsigned i = 0; i < n; ++i) {
      const Fiber *f = &rt.fibers[i];
      if (f->state == State::Done) {
        done = f;
      } else if (f->state == State::WarpWaiting) {
        barrier_error("a warp-level operation is not reached by every lane of its mask", f,
                      waiting ? waiting : done ? done : f);
      } else if (!waiting) {
        waiting = f;
      } else if (f->wait_site != waiting->wait_site ||
                 (f->wait_file != waiting->wait_file && strcmp(f->wait_file, waiting->wait_file))) {
        barrier_error("threads wait at different barriers", waiting, f);
      }
    }
    if (!waiting) return;
    if (done && rt.strict_barriers) barrier_error("barrier not reached by all threads", waiting, done);
    for (unsigned i = 0; i < n; ++i)
      if (rt.fibers[i].state == State::Waiting) rt.fibers[i].state = State::Ready;
  }
}

inline void launch(dim3 grid, dim3 block, void (*body)(void *), void *ctx, size_t dynamic_shared) {
  if (rt.current) die("kernel launch from device code is not supported");
  if (dynamic_shared) die("dynamic shared memory (extern __shared__) is not supported");
  if (!rt.configured) configure();
  unsigned long long threads = (unsigned long long)block.x * block.y * block.z;
  if (!grid.x || !grid.y || !grid.z || !threads || threads > 1024 || block.x > 1024 ||
      block.y > 1024 || block.z > 64 || grid.x > 2147483647u || grid.y > 65535 ||
      grid.z > 65535) {
    record(cudaErrorInvalidConfiguration);
    return;
  }
  reserve_fibers((unsigned)threads);
  gridDim = grid;
  blockDim = block;
  rt.body = body;
  rt.body_ctx = ctx;
  size_t blocks = (size_t)grid.x * grid.y * grid.z;
  /* Blocks follow the order too; the thread shuffles reuse shuffled_order's
   * buffer, so the block order needs its own copy. */
  unsigned *block_order = nullptr;
  if (rt.order == Order::Shuffle) {
    block_order = static_cast<unsigned *>(malloc(blocks * sizeof(unsigned)));
    if (!block_order) die("out of memory for the block order");
    memcpy(block_order, shuffled_order(blocks), blocks * sizeof(unsigned));
  }
  for (size_t i = 0; i < blocks; ++i) {
    size_t b = block_order ? block_order[i] : rt.order == Order::Reverse ? blocks - 1 - i : i;
    blockIdx = uint3{(unsigned)(b % grid.x), (unsigned)(b / grid.x % grid.y),
                     (unsigned)(b / ((size_t)grid.x * grid.y))};
    run_block((unsigned)threads);
  }
  free(block_order);
  threadIdx = blockIdx = uint3{0, 0, 0};
}

inline void syncthreads(const char *file, int line, int site) {
  Fiber *f = rt.current;
  if (!f) die("__syncthreads() called outside a kernel");
  f->state = State::Waiting;
  f->wait_file = file;
  f->wait_line = line;
  f->wait_site = site;
  to_scheduler(f);
}

/* A lane at a warp-level operation: waits until the lanes of `mask` have met. */
template <class T>
T warp_exchange(Shuffle kind, unsigned mask, T value, int arg, int width, const char *file, int line,
                int site) {
  static_assert(sizeof(T) <= sizeof(uint64_t), "a shuffled value has at most 8 bytes");
  Fiber *f = rt.current;
  if (!f) die("a warp-level operation called outside a kernel");
  if (width <= 0 || width > 32 || (width & (width - 1))) die("__shfl*_sync: width must be a power of two up to 32");
  unsigned linear = (unsigned)(f - rt.fibers);
  if (!(mask >> (linear % 32) & 1u)) die("__shfl*_sync: the calling lane is not in the mask");
  f->shfl_kind = kind;
  f->shfl_mask = mask;
  f->shfl_arg = arg;
  f->shfl_width = width;
  f->shfl_give = 0;
  memcpy(&f->shfl_give, &value, sizeof(T));
  f->state = State::WarpWaiting;
  f->wait_file = file;
  f->wait_line = line;
  f->wait_site = site;
  to_scheduler(f);
  T result;
  memcpy(&result, &f->shfl_get, sizeof(T));
  return result;
}

template <class F> void call_body(void *body) { (*static_cast<F *>(body))(); }

}  // namespace ppcg_emu

/* A macro, so that each barrier in the source is told apart from the others. */
#define __syncthreads() ::ppcg_emu::syncthreads(__FILE__, __LINE__, __COUNTER__)

/* Warp-level operations: macros too, for the same reason; `width` defaults to 32. */
#define PPCG_EMU_SHFL(kind, mask, value, arg, ...)                                              \
  ::ppcg_emu::warp_exchange(::ppcg_emu::Shuffle::kind, (mask), (value), (int)(arg),           \
                            ppcg_emu_width(__VA_ARGS__ + 0), __FILE__, __LINE__, __COUNTER__)
inline int ppcg_emu_width(int w) { return w ? w : 32; }
#define __shfl_sync(mask, value, lane, ...) PPCG_EMU_SHFL(Idx, mask, value, lane, __VA_ARGS__)
#define __shfl_up_sync(mask, value, delta, ...) PPCG_EMU_SHFL(Up, mask, value, delta, __VA_ARGS__)
#define __shfl_down_sync(mask, value, delta, ...) PPCG_EMU_SHFL(Down, mask, value, delta, __VA_ARGS__)
#define __shfl_xor_sync(mask, value, lanes, ...) PPCG_EMU_SHFL(Xor, mask, value, lanes, __VA_ARGS__)
#define __syncwarp(...) ((void)PPCG_EMU_SHFL(Sync, ppcg_emu_mask(__VA_ARGS__ + 0u), 0, 0))
inline unsigned ppcg_emu_mask(unsigned m) { return m ? m : 0xffffffffu; }

/* What a rewritten `k<<<grid, block[, shared, stream]>>>(args)` calls. */
template <class F>
void ppcg_emu_launch(dim3 grid, dim3 block, F &&body, size_t dynamic_shared = 0,
                     cudaStream_t = nullptr) {
  using Body = typename std::remove_reference<F>::type;
  ppcg_emu::launch(grid, block, &ppcg_emu::call_body<Body>,
                   const_cast<void *>(static_cast<const void *>(&body)), dynamic_shared);
}

#endif /* PPCG_CUDA_EMU_H */
