// covers: member access through a pointer parameter to one struct (p->x, (*p).y, p->v[k]):
// p->x is p[0].x, the struct p points to crosses to the device whole; it is read and written
#include <stdio.h>
#define N 40
struct acc { double x; double y; double v[3]; int count; };
static void compute(int n, struct acc *p, const struct acc *c, double A[N], double B[N])
{
#pragma scop
  for (int i = 0; i < n; i++)
    B[i] = A[i] * c->x + (*c).y + c->v[i % 3];
  for (int i = 0; i < n; i++) {
    p->x = p->x + A[i];
    p->v[i % 3] += B[i];
  }
  (*p).y = p->x * 0.5;
  p->count = p->count + n;
#pragma endscop
}

int main(void)
{
  static double A[N], B[N];
  struct acc p = { 0.0, 0.0, { 0.0, 0.0, 0.0 }, 0 };
  struct acc c = { 1.5, -0.25, { 1.0, 2.0, 3.0 }, 0 };
  for (int t = 0; t < N; t++) { A[t] = (t % 7) * 0.5; B[t] = 0.0; }
  compute(33, &p, &c, A, B);
  compute(0, &p, &c, A, B);
  c.x = -2.0;
  compute(5, &p, &c, A, B);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  fprintf(stderr, "begin dump: B\n");
  for (int t = 0; t < N; t++) fprintf(stderr, "%0.17g\n", B[t]);
  fprintf(stderr, "end   dump: B\n");
  fprintf(stderr, "begin dump: p\n");
  fprintf(stderr, "%0.17g %0.17g %0.17g %0.17g %0.17g %d\n", p.x, p.y, p.v[0], p.v[1], p.v[2], p.count);
  fprintf(stderr, "end   dump: p\n");
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
