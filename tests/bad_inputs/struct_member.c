// expect: 8:12: 'pt' has an unsupported type (union type)
#include <math.h>
union point { double x, y; };
void f(int n, double B[100], union point pt)
{
#pragma scop
  for (int i = 0; i < n; i++)
    B[i] = pt.x;
#pragma endscop
}
