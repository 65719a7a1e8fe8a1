/* PENCIL's built-ins for the pencil_builtin_* programs' original build (gcc):
   ppcg-py reads them as pet does and prints none of them. */
int imin(int a, int b) { return a < b ? a : b; }
int imax(int a, int b) { return a > b ? a : b; }
unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }
unsigned umax(unsigned a, unsigned b) { return a > b ? a : b; }
void __pencil_assume(int condition) { (void) condition; }
void __pencil_kill() {}
