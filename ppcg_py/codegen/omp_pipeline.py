"""The OpenMP region of a wavefront of time tiles without barriers (schedule/cpu/pipeline.py).

The region's serial loop over the wavefronts holds nothing but the `omp for` over the
tiles of one. Printed so:

    {
      struct ppcg_wavefront ppcg_wave = {0, -1, 0, 0};
      for (w ...) ppcg_wave_row(&ppcg_wave, w);                          // the wavefronts
      if (ppcg_wave_rows(&ppcg_wave)) {
        for (w ...) for (c ...) ppcg_wave_extend(&ppcg_wave, w, c);      // each one's tiles
        if (ppcg_wave_allocate(&ppcg_wave))
          for (w ...) for (c ...) ppcg_wave_pending(&ppcg_wave, w, c);   // a flag per tile run
      }
      #pragma omp parallel
      for (w ...) {
        #pragma omp for ... nowait
        for (c ...) {
          ppcg_wave_wait(&ppcg_wave, w - 1, c);     // one per distance, or
          ppcg_wave_wait_rows(&ppcg_wave, w, c, 1, 1, -1, 0);   // per family of them
          <the tile>
          ppcg_wave_done(&ppcg_wave, w, c);
        }
        if (!ppcg_wave.pending) {     // no memory for the flags: the barriers
          #pragma omp barrier
        }
      }
      free(ppcg_wave.pending);
      free(ppcg_wave.row);
    }

The loops before the region repeat the region's headers, which read only the
parameters and the loops around the region, so they run the same tiles. The flags of
a wavefront span its least to its greatest tile, one after another's: a box over all
wavefronts would hold a wavefront count times the tiles per wavefront (jacobi-1d over
10^8 elements in tiles of 128 steps of 256: 150 GB where 3 MB do). A tile whose flag
was never set (it runs no iteration, or lies outside every wavefront's span) is never
waited for. The flags are bytes, read with acquire and cleared with release, so a tile
sees the writes of the tiles it waited for. The helpers (`PIPELINE_HELPERS`) use GCC's
atomic builtins, which clang and icx also have.
"""
from __future__ import annotations

from copy import deepcopy as copy_of

from pycparser import c_ast

from ..schedule.cpu.pipeline import Waits
from .printer import block_items, declaration

__all__ = ["PIPELINE_HELPERS", "USES_HELPERS", "pipelined_region"]

WAVE = "ppcg_wave"
USES_HELPERS = "ppcg_wave_wait("    # in a file's text where its code needs PIPELINE_HELPERS

PIPELINE_HELPERS = """\
/* The tiles of wavefronts without barriers: a flag per tile, set while it has not run.
   row[3 * r] and row[3 * r + 1]: the least and the greatest tile of wavefront first + r;
   row[3 * r + 2]: where its flags start. */
struct ppcg_wavefront { long first, last; long *row; unsigned char *pending; };
static inline void ppcg_wave_row(struct ppcg_wavefront *w, long i)
{
  if (w->last < w->first)
    w->first = i;
  w->last = i;
}
static inline int ppcg_wave_rows(struct ppcg_wavefront *w)
{
  long n = w->last - w->first + 1;
  if (n <= 0 || !(w->row = (long *) malloc(3 * n * sizeof(long))))
    return 0;
  for (long r = 0; r < n; r++) {
    w->row[3 * r] = 1;
    w->row[3 * r + 1] = 0;
  }
  return 1;
}
static inline void ppcg_wave_extend(struct ppcg_wavefront *w, long i, long j)
{
  long *row = w->row + 3 * (i - w->first);
  if (row[0] > row[1])
    row[0] = row[1] = j;
  row[0] = j < row[0] ? j : row[0];
  row[1] = j > row[1] ? j : row[1];
}
static inline int ppcg_wave_allocate(struct ppcg_wavefront *w)
{
  long total = 0;
  for (long r = 0; r <= w->last - w->first; r++) {
    w->row[3 * r + 2] = total;
    total += w->row[3 * r] <= w->row[3 * r + 1] ? w->row[3 * r + 1] - w->row[3 * r] + 1 : 0;
  }
  w->pending = (unsigned char *) calloc(total > 0 ? total : 1, 1);
  return w->pending != 0;
}
static inline unsigned char *ppcg_wave_flag(struct ppcg_wavefront *w, long i, long j)
{
  long *row;
  if (!w->pending || i < w->first || i > w->last)
    return 0;
  row = w->row + 3 * (i - w->first);
  return j < row[0] || j > row[1] ? 0 : w->pending + row[2] + (j - row[0]);
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
/* Waits for each tile (i - back, j - across) with back >= first, to the first wavefront,
   and slope * back + low <= across <= slope * back + high. */
static inline void ppcg_wave_wait_rows(struct ppcg_wavefront *w, long i, long j, long first, long slope, long low,
                                       long high)
{
  if (!w->pending)
    return;
  for (long back = first; i - back >= w->first; back++)
    for (long across = slope * back + low; across <= slope * back + high; across++)
      ppcg_wave_wait(w, i - back, j - across);
}
static inline void ppcg_wave_done(struct ppcg_wavefront *w, long i, long j)
{
  unsigned char *flag = ppcg_wave_flag(w, i, j);
  if (flag)
    __atomic_store_n(flag, 0, __ATOMIC_RELEASE);
}
"""


def pipelined_region(wavefronts: c_ast.For, pragma: c_ast.Pragma, tiles: c_ast.For,
                     waits: Waits, region: str, barrier: str) -> c_ast.Compound:
    """The block above for the serial loop `wavefronts` whose body is the one loop
    `tiles` under `pragma` (`omp for ...`, without `nowait`), each tile waiting for
    the tiles `waits` names (pipeline.py); `region` and `barrier` are the OpenMP
    directives' text."""
    w, c = _iterator(wavefronts), _iterator(tiles)
    wave = c_ast.UnaryOp("&", c_ast.ID(WAVE))

    def over_tiles(call: str) -> c_ast.For:
        inner = _header(tiles, c_ast.Compound([_call(call, wave, c_ast.ID(w), c_ast.ID(c))]))
        return _header(wavefronts, c_ast.Compound([inner]))

    waiting = [_call("ppcg_wave_wait", wave, _minus(w, back), _minus(c, across)) for back, across in waits.vectors]
    waiting += [_call("ppcg_wave_wait_rows", wave, c_ast.ID(w), c_ast.ID(c), *map(_number, family))
                for family in waits.families]
    tiles.stmt = c_ast.Compound(waiting + block_items(tiles.stmt)
                                + [_call("ppcg_wave_done", wave, c_ast.ID(w), c_ast.ID(c))])
    unflagged = c_ast.UnaryOp("!", _field("pending"))
    wavefronts.stmt = c_ast.Compound([c_ast.Pragma(pragma.string + " nowait"), tiles,
                                      c_ast.If(unflagged, c_ast.Compound([c_ast.Pragma(barrier)]), None)])
    declared = declaration(WAVE, c_ast.InitList([c_ast.Constant("int", v) for v in ("0", "-1", "0", "0")]),
                           type_name="struct ppcg_wavefront")
    rows = _header(wavefronts, c_ast.Compound([_call("ppcg_wave_row", wave, c_ast.ID(w))]))
    flagged = c_ast.If(_call("ppcg_wave_allocate", wave), over_tiles("ppcg_wave_pending"), None)
    counted = c_ast.If(_call("ppcg_wave_rows", wave), c_ast.Compound([over_tiles("ppcg_wave_extend"), flagged]),
                       None)
    return c_ast.Compound([declared, rows, counted, c_ast.Pragma(region), wavefronts,
                           _call("free", _field("pending")), _call("free", _field("row"))])


def _field(name: str) -> c_ast.StructRef:
    return c_ast.StructRef(c_ast.ID(WAVE), ".", c_ast.ID(name))


def _iterator(loop: c_ast.For) -> str:
    return loop.init.decls[0].name


def _header(loop: c_ast.For, body: c_ast.Node) -> c_ast.For:
    """A copy of `loop`'s header around `body`."""
    return c_ast.For(copy_of(loop.init), copy_of(loop.cond), copy_of(loop.next), body)


def _call(name: str, *args: c_ast.Node) -> c_ast.FuncCall:
    return c_ast.FuncCall(c_ast.ID(name), c_ast.ExprList([copy_of(a) for a in args]))


def _number(value: int) -> c_ast.Node:
    constant = c_ast.Constant("int", str(abs(value)))
    return constant if value >= 0 else c_ast.UnaryOp("-", constant)


def _minus(name: str, value: int) -> c_ast.Node:
    if value == 0:
        return c_ast.ID(name)
    op = "-" if value > 0 else "+"
    return c_ast.BinaryOp(op, c_ast.ID(name), c_ast.Constant("int", str(abs(value))))

