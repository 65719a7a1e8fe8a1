// expect: 7:14: pointer operation '*'
#include <math.h>
void f(int n, double B[100], double *p)
{
#pragma scop
  for (int i = 0; i < n; i++)
    B[i] = *(p + i);
#pragma endscop
}
