// args: --assume-non-negative-parameters --ctx "[n] -> { : n < 0 }"
// expect: option: and --assume-non-negative-parameters
#include <math.h>
void f(int n, double B[100])
{
#pragma scop
  for (int i = 0; i < n; i++)
    B[i] = 0.0;
#pragma endscop
}
