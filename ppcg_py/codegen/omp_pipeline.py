"""The OpenMP region of a wavefront of time tiles without barriers (schedule/cpu/pipeline.py).

The region's serial loop over the wavefronts holds nothing but the `omp for` over the
tiles of one. Printed so:

    {
      struct ppcg_wavefront ppcg_wave = {0, 0, -1, 0, -1};
      for (w ...) for (c ...) ppcg_wave_extend(&ppcg_wave, w, c);     // the tiles' range
      if (ppcg_wave_allocate(&ppcg_wave))
        for (w ...) for (c ...) ppcg_wave_pending(&ppcg_wave, w, c);  // a flag per tile run
      #pragma omp parallel
      for (w ...) {
        #pragma omp for ... nowait
        for (c ...) {
          ppcg_wave_wait(&ppcg_wave, w - 1, c);     // one per distance
          <the tile>
          ppcg_wave_done(&ppcg_wave, w, c);
        }
        if (!ppcg_wave.pending) {     // no memory for the flags: the barriers
          #pragma omp barrier
        }
      }
      free(ppcg_wave.pending);
    }

The two loops before the region repeat the region's headers, which read only the
parameters and the loops around the region, so they run the same tiles. A tile whose
flag was never set (it runs no iteration, or lies outside the range) is never waited
for. The flags are bytes, read with acquire and cleared with release, so a tile sees
the writes of the tiles it waited for. The helpers (`PIPELINE_HELPERS`) use GCC's
atomic builtins, which clang and icx also have.
"""
from __future__ import annotations

from copy import deepcopy as copy_of

from pycparser import c_ast

from .printer import declaration

__all__ = ["PIPELINE_HELPERS", "USES_HELPERS", "pipelined_region"]

WAVE = "ppcg_wave"
USES_HELPERS = "ppcg_wave_wait("    # in a file's text where its code needs PIPELINE_HELPERS

PIPELINE_HELPERS = """\
/* The tiles of a wavefront loop without barriers: a flag per tile, set while it has not run. */
struct ppcg_wavefront { unsigned char *pending; long first0, last0, first1, last1; };
static inline void ppcg_wave_extend(struct ppcg_wavefront *w, long i, long j)
{
  if (w->last0 < w->first0) { w->first0 = i; w->first1 = w->last1 = j; }
  w->last0 = i > w->last0 ? i : w->last0;
  w->first1 = j < w->first1 ? j : w->first1;
  w->last1 = j > w->last1 ? j : w->last1;
}
static inline int ppcg_wave_allocate(struct ppcg_wavefront *w)
{
  if (w->last0 >= w->first0)
    w->pending = (unsigned char *) calloc((w->last0 - w->first0 + 1) * (w->last1 - w->first1 + 1), 1);
  return w->pending != 0;
}
static inline unsigned char *ppcg_wave_flag(struct ppcg_wavefront *w, long i, long j)
{
  if (!w->pending || i < w->first0 || i > w->last0 || j < w->first1 || j > w->last1)
    return 0;
  return w->pending + (i - w->first0) * (w->last1 - w->first1 + 1) + (j - w->first1);
}
static inline void ppcg_wave_pending(struct ppcg_wavefront *w, long i, long j) { *ppcg_wave_flag(w, i, j) = 1; }
static inline void ppcg_wave_wait(struct ppcg_wavefront *w, long i, long j)
{
  unsigned char *flag = ppcg_wave_flag(w, i, j);
  if (flag)
    while (__atomic_load_n(flag, __ATOMIC_ACQUIRE)) {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
}
static inline void ppcg_wave_done(struct ppcg_wavefront *w, long i, long j)
{
  unsigned char *flag = ppcg_wave_flag(w, i, j);
  if (flag)
    __atomic_store_n(flag, 0, __ATOMIC_RELEASE);
}
"""


def pipelined_region(wavefronts: c_ast.For, pragma: c_ast.Pragma, tiles: c_ast.For,
                     waits: tuple[tuple[int, int], ...], region: str, barrier: str) -> c_ast.Compound:
    """The block above for the serial loop `wavefronts` whose body is the one loop
    `tiles` under `pragma` (`omp for ...`, without `nowait`), each tile waiting for
    the tiles `waits` back (wavefronts, tiles); `region` and `barrier` are the OpenMP
    directives' text."""
    w, c = _iterator(wavefronts), _iterator(tiles)
    wave = c_ast.UnaryOp("&", c_ast.ID(WAVE))

    def over_tiles(call: str) -> c_ast.For:
        inner = _header(tiles, c_ast.Compound([_call(call, wave, c_ast.ID(w), c_ast.ID(c))]))
        return _header(wavefronts, c_ast.Compound([inner]))

    waiting = [_call("ppcg_wave_wait", wave, _minus(w, back), _minus(c, across)) for back, across in waits]
    tiles.stmt = c_ast.Compound(waiting + _items(tiles.stmt)
                                + [_call("ppcg_wave_done", wave, c_ast.ID(w), c_ast.ID(c))])
    unflagged = c_ast.UnaryOp("!", c_ast.StructRef(c_ast.ID(WAVE), ".", c_ast.ID("pending")))
    wavefronts.stmt = c_ast.Compound([c_ast.Pragma(pragma.string + " nowait"), tiles,
                                      c_ast.If(unflagged, c_ast.Compound([c_ast.Pragma(barrier)]), None)])
    declared = declaration(WAVE, c_ast.InitList([c_ast.Constant("int", v) for v in ("0", "0", "-1", "0", "-1")]),
                           type_name="struct ppcg_wavefront")
    allocated = c_ast.If(_call("ppcg_wave_allocate", wave), over_tiles("ppcg_wave_pending"), None)
    freed = _call("free", c_ast.StructRef(c_ast.ID(WAVE), ".", c_ast.ID("pending")))
    return c_ast.Compound([declared, over_tiles("ppcg_wave_extend"), allocated, c_ast.Pragma(region), wavefronts,
                           freed])


def _iterator(loop: c_ast.For) -> str:
    return loop.init.decls[0].name


def _header(loop: c_ast.For, body: c_ast.Node) -> c_ast.For:
    """A copy of `loop`'s header around `body`."""
    return c_ast.For(copy_of(loop.init), copy_of(loop.cond), copy_of(loop.next), body)


def _call(name: str, *args: c_ast.Node) -> c_ast.FuncCall:
    return c_ast.FuncCall(c_ast.ID(name), c_ast.ExprList([copy_of(a) for a in args]))


def _minus(name: str, value: int) -> c_ast.Node:
    if value == 0:
        return c_ast.ID(name)
    op = "-" if value > 0 else "+"
    return c_ast.BinaryOp(op, c_ast.ID(name), c_ast.Constant("int", str(abs(value))))


def _items(statement: c_ast.Node) -> list[c_ast.Node]:
    return (statement.block_items or []) if isinstance(statement, c_ast.Compound) else [statement]
