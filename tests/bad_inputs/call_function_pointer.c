// expect: 7:14: call through a function pointer
#include <math.h>
void f(int n, double B[100], double (*op)(double))
{
#pragma scop
  for (int i = 0; i < n; i++)
    B[i] = (*op)(B[i]);
#pragma endscop
}
