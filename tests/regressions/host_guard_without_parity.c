/* Fuzz ci:4 (--tile-sizes 3,4), shrunk: isl dropped the parity guard (m + c0) % 2 == 0 before a single-thread kernel, whose body assumed it and wrote A[23]. Kernels now assume only the div-free hull of the host values. */
#include <stdio.h>
#include <math.h>
#define MIN(a, b) (((a) < (b)) ? (a) : (b))
#define MAX(a, b) (((a) > (b)) ? (a) : (b))

static void compute(int n, int m, double A[26], double *s_io)
{
  double s = *s_io;
#pragma scop
  for (int i = m - 1; i >= 0; i -= 2) {
    if (i + i <= n) {
      for (int j = 1; j < i; j++) {
        if ((j >= i) || (i < 4)) {
          s = 1;
        }
      }
    } else {
      for (int j = MAX(0, i - 3); j < MIN(n, i + 1); j++)
        A[i] = 1;
    }
    for (int j = 0; j < n; j++)
      A[j] = s;
  }
#pragma endscop
  *s_io = s;
}

static void dump_double(const char *name, const double *v, int count)
{
  fprintf(stderr, "begin dump: %s\n", name);
  for (int k = 0; k < count; k++)
    fprintf(stderr, "%0.17g\n", v[k]);
  fprintf(stderr, "end   dump: %s\n", name);
}

int main(void)
{
  static double A[26];
  double s = 0.5;
  for (int x0 = 0; x0 < 26; x0++)
    A[x0] = (double) ((7 * x0 + 1) % 19) / 19 - (double) 0.25;
  compute(23, 31, A, &s);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  dump_double("A", &A[0], 26);
  dump_double("s", &s, 1);
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
