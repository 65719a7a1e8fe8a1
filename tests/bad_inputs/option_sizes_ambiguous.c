// args: --sizes "{ kernel[i] -> tile[4]; kernel[i] -> tile[8] }"
// expect: option: --sizes: tile sizes of kernel 0 are not fixed values
#include <math.h>
void f(int n, double B[100])
{
#pragma scop
  for (int i = 0; i < n; i++)
    B[i] = 0.0;
#pragma endscop
}
