// covers: a flat array of non-affine size (c[n * m]) read by rows (c[i * m + j]) and within its first row
// (c[j]), and a row before its pointer's first element (d[(i - 1) * m + j], i from 0)
#include <stdio.h>
static void compute(int n, int m, double c[n * m], double r[n], double *d)
{
#pragma scop
  for (int i = 0; i < n; i++) {
    r[i] = 0;
    for (int j = 0; j < m; j++) {
      r[i] += c[i * m + j] * c[j];
      d[(i - 1) * m + j] = d[i * m + j] + r[i];
    }
  }
#pragma endscop
}

static void dump(const char *name, const double *v, int count)
{
  fprintf(stderr, "begin dump: %s\n", name);
  for (int t = 0; t < count; t++) fprintf(stderr, "%0.17g\n", v[t]);
  fprintf(stderr, "end   dump: %s\n", name);
}

int main(void)
{
  enum { SIZE = 1600 };
  static double c[SIZE], r[SIZE], d[SIZE];
  for (int t = 0; t < SIZE; t++) { c[t] = (t % 9) * 0.25; r[t] = -1.0; d[t] = (t % 5) - 2.0; }
  compute(37, 41, c, r, d + 50);
  compute(0, 4, c, r, d + 60);
  compute(3, 0, c, r, d + 70);
  compute(5, 3, c + 40, r + 100, d + 1500);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  dump("c", c, SIZE); dump("r", r, SIZE); dump("d", d, SIZE);
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
