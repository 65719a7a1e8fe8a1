// covers: __pencil_kill of a temporary array at the end of the SCoP (not copied back), of a scalar and of one element; the calls print nothing
// link: lib/pencil.c
#include <stdio.h>
#define N 40
void __pencil_kill();
void kernel(int n, double a[N], double tmp[N], double c[N])
{
  double s;
#pragma scop
  for (int i = 0; i < n; i++)
    tmp[i] = a[i] * 2 + 1;
  for (int i = 1; i < n; i++) {
    s = tmp[i] + tmp[i - 1];
    c[i] = s * 0.25;
    __pencil_kill(s, tmp[i - 1]);
  }
  for (int i = 0; i < n; i++)
    a[i] = c[i] - a[i];
  __pencil_kill(tmp);
#pragma endscop
}

static void dump(const char *name, const double *v, int count)
{
  fprintf(stderr, "begin dump: %s\n", name);
  for (int k = 0; k < count; k++) fprintf(stderr, "%0.17g\n", v[k]);
  fprintf(stderr, "end   dump: %s\n", name);
}
int main(void)
{
  static double a[N], tmp[N], c[N];
  for (int i = 0; i < N; i++) {
    a[i] = (i % 5) / 5.0;
    c[i] = (i % 3) / 3.0;
  }
  kernel(N - 3, a, tmp, c);
  kernel(0, a, tmp, c);
  kernel(N, a, tmp, c);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  dump("a", a, N); dump("c", c, N);
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
