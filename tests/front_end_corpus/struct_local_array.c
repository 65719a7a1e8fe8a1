// covers: arrays of structs declared inside a SCoP (struct s t[2]; with a scalar and an array
// member, as PPCG's struct5.c), and a struct local with an array member: one local array per
// member (t_a[2], t_b[2][4]), expanded over the loops around the declaration
#include <stdio.h>
#define N 40
struct s { int a; double b[4]; };
static void compute(int n, double A[N], double B[N], struct s q[N])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    struct s t[2];
    t[0].a = i;
    t[1].a = 2 * i + 1;
    for (int k = 0; k < 4; k++) {
      t[0].b[k] = B[i] * k;
      t[1].b[k] = t[0].b[k] + t[0].a;
    }
    A[i] = t[0].a + t[1].b[2] + t[1].a * 0.5;
    struct s u;
    u = q[i];
    u.b[i % 4] = u.b[i % 4] + t[1].b[3];
    t[0] = u;
    q[i].a = t[0].a + 1;
    q[i].b[0] = t[0].b[i % 4];
  }
#pragma endscop
}

int main(void)
{
  static double A[N], B[N];
  static struct s q[N];
  for (int t = 0; t < N; t++) {
    A[t] = 0.0; B[t] = (t % 6) * 0.5; q[t].a = t;
    for (int k = 0; k < 4; k++) q[t].b[k] = t - k * 0.25;
  }
  compute(33, A, B, q);
  compute(0, A, B, q);
  compute(7, A, B, q);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  fprintf(stderr, "begin dump: A\n");
  for (int t = 0; t < N; t++)
    fprintf(stderr, "%0.17g %d %0.17g %0.17g %0.17g %0.17g\n", A[t], q[t].a, q[t].b[0], q[t].b[1], q[t].b[2], q[t].b[3]);
  fprintf(stderr, "end   dump: A\n");
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
