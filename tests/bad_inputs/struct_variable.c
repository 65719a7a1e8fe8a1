// expect: 8:12: struct 'q' used as a whole value
#include <math.h>
struct s { double v; };
void f(int n, double B[100], struct s q)
{
#pragma scop
  for (int i = 0; i < n; i++)
    B[i] = q;
#pragma endscop
}
