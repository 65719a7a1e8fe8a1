/* Functions the ext_* programs of the corpus only declare: the verify harness links
   this file with both the original program and ppcg-py's output. Each keeps state
   of its own that the programs dump (ext_trace), so that a call run twice, skipped
   or run out of order shows. */
#include <string.h>

static double trace[64];
static int calls;

static void note(double v)
{
  trace[calls % 64] += v * (1 + calls % 7);
  calls++;
}

/* every ext_ program defines these globals */
extern double ext_matrix[40][30];
extern double ext_scale;

/* a logger that looks at the program's data: the row before the one about to be computed */
void log_value(double v) { note(v); }

void log_progress(int i) { note(i + (i > 0 ? ext_matrix[i - 1][1] : 0)); }

double ext_trace(int k) { return k < 64 ? trace[k] : calls; }

/* reads a global the program declares */
double scaled_value(double v) { note(v); return v * ext_scale; }

int next_value(void)
{
  static int state = 7;
  state = (state * 13 + 5) % 101;
  note(state);
  return state;
}

void scale_row(int n, double *row, double f)
{
  for (int k = 0; k < n; k++)
    row[k] *= f;
  note(f);
}

double row_sum(int n, const double *row)
{
  double s = 0;
  for (int k = 0; k < n; k++)
    s += row[k];
  note(n);
  return s;
}

void bump(double *p, double by) { *p += by; note(by); }

void accumulate(double *total, double v) { *total += v; }

double smooth_step(double v) { return v * v * (3 - 2 * v); }

/* ext_member_row.c: rows of a member array of a struct element */
void add_to_row(int n, int *row, int v)
{
  for (int k = 0; k < n; k++)
    row[k] += v;
  note(v);
}

int block_sum(int block[6][5])
{
  int s = 0;
  for (int k = 0; k < 6; k++)
    for (int l = 0; l < 5; l++)
      s += block[k][l] * (k + 1);
  note(s);
  return s;
}
