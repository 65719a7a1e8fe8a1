// expect: 7:6: pointer operation '*'
#include <math.h>
void f(int n, double B[100], double *p, double *q)
{
#pragma scop
  for (int i = 0; i < n; i++)
    *p = B[i];
#pragma endscop
}
