/* Fuzz 101:23 (structs campaign): the exit value of j, stored after a loop inside a branch no parameter value takes, had an empty domain, and isl could not print it (internal error). */
#include <stdio.h>
#include <math.h>
#define MIN(a, b) (((a) < (b)) ? (a) : (b))
#define MAX(a, b) (((a) > (b)) ? (a) : (b))

struct rec_t {
  int t0[26];
  int B;
};

static void compute(int n, struct rec_t rec[38], int *acc_io)
{
  int acc = *acc_io;
  int w = 3;
  int i, j, k;
#pragma scop
  for (i = 0; i < n - 1; i++)
    rec[i + 1].B = (((rec[i + 1 + 1].B < (i - 2) ? acc : 1) + rec[i - 1 + 1].B) % 1009);
  for (i = n - 1; i >= 0; i -= 2) {
    if (i + i <= n) {
      rec[i + 1].B = ((((6 * acc) - (3 * acc)) + (rec[0 + 1].t0[i % 3 + 1] / 3)) % 1009);
      if (i > n - 1) {
        for (j = i; j < i; j += 2) {
          if (!((i == j) && (j < 5))) {
            if (i + j <= n) {
              rec[2 + 1].B += ((3 * rec[i + j + 1].t0[i + 1]) % 1009);
            }
            rec[j + 1].B = ((rec[j + i + 1].B - (3 * rec[j + 1 + 1].B)) % 1009);
          }
          if ((i + j) % 2 == 0) {
            rec[j + 1].B += ((rec[j + 1].t0[i + j + 1] / 4) % 1009);
          }
        }
      }
    } else {
      for (j = 0; j < i; j++) {
        if (i < 2) {
          if (i < n - 3) {
            rec[j + 1].B = ((rec[i + 1 + 1].t0[2 * i + 1] + (rec[j + 2 + 1].t0[j + i + 1] / 2)) % 1009);
            rec[j + 1].B = ((((6 * acc) - (2 * acc)) - (4 * rec[j - 1 + 1].B)) % 1009);
          }
        }
        if (!((j + i) % 3 == 0)) {
          if (i == n - 1) {
            int v = ((rec[j + 1].B / 4) % 1009);
            rec[2 * i + 1].t0[1 + 1] = ((rec[j + 1].B > (i) ? rec[2 * i + 1].t0[1 - 1 + 1] : 8) % 1009);
            rec[j + 1].B += ((v - (6 * rec[j + 1 + 1].t0[j + 1])) % 1009);
          } else {
            rec[i + 1].B = (((i) - 1) % 1009);
          }
          if ((i > n - 2) && (j < 5)) {
            rec[i + 1].B -= (((j) - (6 * rec[i + 1 + 1].B)) % 1009);
          }
        } else {
          if (((j + i) % 2 == 0) && (i != 3)) {
            rec[i + 1].t0[i + 1] += (rec[i + 1].B % 1009);
            rec[i + 1].t0[j + 1] = (((rec[j + 1].B / 4) + rec[j + 1].B) % 1009);
          }
          w += (rec[j + i + 1].B % 1009);
        }
        for (k = 0; k < MIN(n, j + 2); k++)
          rec[i + 1].B += ((rec[j + 1].B + (rec[k + 1].B + rec[i + 1].B)) % 1009);
      }
    }
    if ((i + i) % 3 == 0) {
      int v2 = ((rec[i + 1].B + (7 * rec[i - 1 + 1].B)) % 1009);
      for (j = i + 1 - 1; j >= 1; j--)
        rec[i + 1].B = ((rec[i - 1 + 1].B + (v2 / 5)) % 1009);
    }
    rec[i + 1].B = (((rec[i + 1].t0[i + 1] - ((2 * i) > 7 ? rec[i + 1].t0[i + 1] : 7)) + (5 * rec[i - 1 + 1].t0[i + 1])) % 1009);
  }
  for (i = n + 2 - 1; i >= n - 3; i--)
    rec[i + 1].t0[i + 1] += ((((5 * rec[i + i + 1].B) - 7) - rec[i + 1].B) % 1009);
#pragma endscop
  /* between two SCoPs */
#pragma scop
  for (i = n - 1; i >= 0; i--) {
    acc -= ((((rec[i + 1].t0[i + 1] / 4) + (2 * rec[i + 1].t0[i + 1 + 1])) + rec[i + 1].t0[i + 1]) % 1009);
    if (i <= 3) {
      for (j = 0; j < n; j++)
        rec[i + 1].t0[j + 1] -= (rec[i + 1 + 1].B % 1009);
    }
    for (j = 2 * i - 1; j > 0 - 1; j--) {
      if (j <= i) {
        if (j <= i) {
          acc = ((((2 * rec[i - 1 + 1].B) - rec[j - 1 + 1].t0[i % 3 + 1]) - (rec[2 * i + 1].t0[j + 1] == rec[i / 2 + 1].B ? 7 : 0)) % 1009);
        } else {
          int v = (((3 * acc) + rec[j + 1].B) % 1009);
          rec[j + 1].B = (((rec[3 + 1].t0[i + 1] - rec[i + 1].B) - (acc > acc ? acc : 0)) % 1009);
        }
      }
      acc = ((((3 * rec[j + 1].t0[i + 1 + 1]) + (i)) + rec[i + 1].t0[i + 1]) % 1009);
      rec[i + 1].t0[j + 1] = (((((i) - rec[i + 1].t0[i - 2 + 1]) - rec[j + i + 1].B) + w) % 1009);
    }
  }
#pragma endscop
  *acc_io = acc;
}

static void dump_int(const char *name, const int *v, int count)
{
  fprintf(stderr, "begin dump: %s\n", name);
  for (int k = 0; k < count; k++)
    fprintf(stderr, "%d\n", v[k]);
  fprintf(stderr, "end   dump: %s\n", name);
}

int main(void)
{
  static struct rec_t rec[38];
  int acc = 0;
  for (int x0 = 0; x0 < 38; x0++)
  for (int x1 = 0; x1 < 26; x1++)
    rec[x0].t0[x1] = (7 * x0 + 13 * x1 + 1) % 17 - 5;
  for (int x0 = 0; x0 < 38; x0++)
    rec[x0].B = (7 * x0 + 6) % 17 - 5;
  compute(13, rec, &acc);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  fprintf(stderr, "begin dump: rec_t0\n");
  for (int x0 = 0; x0 < 38; x0++)
  for (int x1 = 0; x1 < 26; x1++)
    fprintf(stderr, "%d\n", rec[x0].t0[x1]);
  fprintf(stderr, "end   dump: rec_t0\n");
  fprintf(stderr, "begin dump: rec_B\n");
  for (int x0 = 0; x0 < 38; x0++)
    fprintf(stderr, "%d\n", rec[x0].B);
  fprintf(stderr, "end   dump: rec_B\n");
  dump_int("acc", &acc, 1);
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
