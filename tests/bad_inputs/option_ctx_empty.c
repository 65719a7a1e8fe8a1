// args: --ctx "[n] -> { : n < 0 and n > 0 }"
// expect: option: --ctx: no parameter values satisfy
#include <math.h>
void f(int n, double B[100])
{
#pragma scop
  for (int i = 0; i < n; i++)
    B[i] = 0.0;
#pragma endscop
}
