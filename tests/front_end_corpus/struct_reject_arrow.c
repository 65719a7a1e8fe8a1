// covers: a member access through a pointer (p->x) is rejected with a located message
// expect: 10:12: member access through a pointer ('->')
#include <stdio.h>
#define N 16
struct pt { double x; double y; };
static void compute(int n, struct pt *p, double B[N])
{
#pragma scop
  for (int i = 0; i < n; i++)
    B[i] = p->x + i;
#pragma endscop
}

int main(void)
{
  static double B[N];
  struct pt p = { 1.0, 2.0 };
  compute(N, &p, B);
  printf("%g\n", B[3]);
  return 0;
}
