// covers: calls whose arguments are a struct member's element address (&p[i].w) and an array member (p[i].c)
#include <stdio.h>
#define N 40
struct particle { double w; double c[4]; };
static inline void bump(double *x, double v) { *x = 0.5 * *x + v; }
static void scale(double r[4], double f)
{
  for (int k = 0; k < 4; k++)
    r[k] = r[k] * f;
}
static void compute(int n, struct particle p[N], double A[N])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    bump(&p[i].w, A[i]);
    scale(p[i].c, p[i].w);
    bump(&p[i].c[i % 4], 1.0);
  }
#pragma endscop
}
int main(void)
{
  static struct particle p[N];
  static double A[N];
  static const int sizes[3] = {37, 1, 0};
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  for (int r = 0; r < 3; r++) {
    for (int t = 0; t < N; t++) {
      A[t] = (t % 7) / 7.0;
      p[t].w = (t % 5) * 0.25;
      for (int k = 0; k < 4; k++) p[t].c[k] = (t + k) % 3;
    }
    compute(sizes[r], p, A);
    fprintf(stderr, "begin dump: p%d\n", r);
    for (int t = 0; t < N; t++) {
      fprintf(stderr, "%0.17g\n", p[t].w);
      for (int k = 0; k < 4; k++) fprintf(stderr, "%0.17g\n", p[t].c[k]);
    }
    fprintf(stderr, "end   dump: p%d\n", r);
  }
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
