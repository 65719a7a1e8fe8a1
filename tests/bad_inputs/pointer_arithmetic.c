// expect: 7:7: pointer operation '*'
#include <math.h>
void f(int n, double *p)
{
#pragma scop
  for (int i = 0; i < n; i++)
    *(p + i) = 0.0;
#pragma endscop
}
