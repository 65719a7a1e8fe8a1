// args: --tile-sizes abc
// expect: option: --tile-sizes: expected sizes like 32,32,16
#include <math.h>
void f(int n, double B[100])
{
#pragma scop
  for (int i = 0; i < n; i++)
    B[i] = 0.0;
#pragma endscop
}
