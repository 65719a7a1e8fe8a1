// covers: struct members written under data-dependent control: elements no branch writes keep their host values
#include <stdio.h>
#define N 40
struct pt { double x; double y; };
static void compute(int n, struct pt p[N], double A[N])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    if (A[i] > 0.4) {
      p[i].x = A[i] * 2.0;
      p[i].y = A[i] + 1.0;
    }
  }
#pragma endscop
}
int main(void)
{
  static struct pt p[N];
  static double A[N];
  static const int sizes[3] = {37, 1, 0};
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  for (int r = 0; r < 3; r++) {
    for (int t = 0; t < N; t++) { A[t] = (t % 7) / 7.0; p[t].x = t; p[t].y = -t; }
    compute(sizes[r], p, A);
    fprintf(stderr, "begin dump: p%d\n", r);
    for (int t = 0; t < N; t++) fprintf(stderr, "%0.17g %0.17g\n", p[t].x, p[t].y);
    fprintf(stderr, "end   dump: p%d\n", r);
  }
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
