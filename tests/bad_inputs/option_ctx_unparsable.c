// args: --ctx "[n] -> { : n >= 4"
// expect: option: --ctx: cannot parse
#include <math.h>
void f(int n, double B[100])
{
#pragma scop
  for (int i = 0; i < n; i++)
    B[i] = 0.0;
#pragma endscop
}
