// covers: a C11 anonymous struct member is rejected with a message that says what to write
// expect: 5:30: anonymous struct or union member: give it a name
#include <stdio.h>
#define N 20
struct pt { double m; struct { double x; double y; }; };
static void compute(int n, struct pt pts[N], double A[N])
{
#pragma scop
  for (int i = 0; i < n; i++)
    A[i] = pts[i].x * pts[i].m;
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
