// covers: a struct assignment from an expression that is not a struct variable or element (a
// conditional) is rejected, with a message that says what to write instead
// expect: 12:5: struct assignment from an expression that is not a struct variable or element
#include <stdio.h>
#define N 20
struct pt { double x; double y; };
static void compute(int n, struct pt pts[N], double A[N])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    struct pt p;
    p = A[i] > 0 ? pts[0] : pts[1];
    A[i] = p.x;
  }
#pragma endscop
}

int main(void)
{
  static struct pt pts[N];
  static double A[N];
  compute(N, pts, A);
  printf("%g\n", A[1]);
  return 0;
}
