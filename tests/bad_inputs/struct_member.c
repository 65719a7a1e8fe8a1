// expect: 8:12: 'pt' has an unsupported type (struct, union or enum type)
#include <math.h>
struct point { double x, y; };
void f(int n, double B[100], struct point pt)
{
#pragma scop
  for (int i = 0; i < n; i++)
    B[i] = pt.x;
#pragma endscop
}
