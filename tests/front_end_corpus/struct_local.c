// covers: a struct declared inside the SCoP (struct pt p;), one local per member, and a
// struct assignment from an array element to the local and back
#include <stdio.h>
#define N 40
struct pt { double x; double y; };
static void compute(int n, double A[N], double B[N], struct pt q[N])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    struct pt p;
    p.x = A[i];
    p.y = p.x * 2.0;
    B[i] = p.x + p.y + 1.0;
    struct pt r;
    r = q[i];
    r.x = r.x + p.y;
    q[i] = r;
  }
#pragma endscop
}

int main(void)
{
  static double A[N], B[N];
  static struct pt q[N];
  for (int t = 0; t < N; t++) { A[t] = (t % 6) * 0.5; B[t] = 0.0; q[t].x = t; q[t].y = -t; }
  compute(33, A, B, q);
  compute(0, A, B, q);
  compute(7, A, B, q);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  fprintf(stderr, "begin dump: B\n");
  for (int t = 0; t < N; t++) fprintf(stderr, "%0.17g %0.17g %0.17g\n", B[t], q[t].x, q[t].y);
  fprintf(stderr, "end   dump: B\n");
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
