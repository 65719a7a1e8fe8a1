// args: -S 0
// expect: option: -S/--tile-size: expected a positive integer
#include <math.h>
void f(int n, double B[100])
{
#pragma scop
  for (int i = 0; i < n; i++)
    B[i] = 0.0;
#pragma endscop
}
