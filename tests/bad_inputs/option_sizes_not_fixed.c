// args: --sizes "{ kernel[i] -> block[a] : 0 < a < 3 }"
// expect: option: --sizes: block sizes of kernel 0 are not fixed values
void f(int n, double B[100])
{
#pragma scop
  for (int i = 0; i < n; i++)
    B[i] = 0.0;
#pragma endscop
}
