/* A 1-D Jacobi stencil over arrays whose extent is a parameter: the positions have no
   bound the compiler knows, so a block may run several tiles of a launch. */
void jacobi(int tsteps, int n, double A[n], double B[n])
{
#pragma scop
  for (int t = 0; t < tsteps; t++) {
    for (int i = 1; i < n - 1; i++)
      B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
    for (int i = 1; i < n - 1; i++)
      A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1]);
  }
#pragma endscop
}
