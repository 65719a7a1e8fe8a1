// args: --ctx "[n] -> { [i] : i > 0 }"
// expect: option: --ctx: '[n] -> { [i] : i > 0 }' must constrain parameters only
#include <math.h>
void f(int n, double B[100])
{
#pragma scop
  for (int i = 0; i < n; i++)
    B[i] = 0.0;
#pragma endscop
}
