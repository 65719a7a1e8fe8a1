// args: --sizes "{ kernel[i] -> grid[0,1] }"
// expect: option: --sizes: grid sizes of kernel 0 must be positive
#include <math.h>
void f(int n, double B[100])
{
#pragma scop
  for (int i = 0; i < n; i++)
    B[i] = 0.0;
#pragma endscop
}
