// covers: a cast to a narrower type in a subscript (b[(unsigned char) i], wrapping at 256) and a cast to
// double in a condition ((double) i / 2 < 3.5 divides exactly): neither is affine; a may-access and dynamic control
#include <stdio.h>
#define N 300
static void compute(int n, double a[N], double b[N], double c[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    b[(unsigned char) i] += a[i];
    if ((double) i / 2 < 3.5)
      c[i] = a[i] * 2.0;
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
  static double a[N], b[N], c[N];
  for (int t = 0; t < N; t++) { a[t] = (t % 7) - 3.0; b[t] = t % 5; c[t] = -1.0; }
  compute(300, a, b, c);
  compute(0, a, b, c);
  compute(7, a, b, c);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  dump("a", a, N); dump("b", b, N); dump("c", c, N);
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
