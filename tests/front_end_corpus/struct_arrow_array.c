// covers: a pointer parameter to an array of structs (struct pt *p): p[i].x, (p + i)->y and
// p->x (the first element); its extent is inferred from the accesses, as for double *A
#include <stdio.h>
#define N 48
struct pt { double x; double y; };
static void compute(int n, struct pt *p, struct pt *q, double *B)
{
#pragma scop
  for (int i = 1; i < n; i++) {
    q[i].x = p[i].x + (p + i - 1)->y;
    (q + i)->y = p->x * p[i].y;
    B[i] = q[i].x - q[i].y;
  }
  q->x = p->y;
#pragma endscop
}

int main(void)
{
  static struct pt p[N], q[N];
  static double B[N];
  for (int t = 0; t < N; t++) { p[t].x = t * 0.5; p[t].y = (t % 5) - 2.0; q[t].x = -1; q[t].y = -2; B[t] = 0; }
  compute(40, p, q, B);
  compute(0, p, q, B);
  compute(1, q, p, B);
  compute(N, q, p, B);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  fprintf(stderr, "begin dump: p\n");
  for (int t = 0; t < N; t++) fprintf(stderr, "%0.17g %0.17g %0.17g %0.17g %0.17g\n", p[t].x, p[t].y, q[t].x, q[t].y, B[t]);
  fprintf(stderr, "end   dump: p\n");
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
