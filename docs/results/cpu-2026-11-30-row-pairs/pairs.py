"""A hand experiment on ppcg-py's C outputs, not part of the compiler: each loop whose body
is exactly row loops of one assignment each (jacobi-2d's rows of B and of A one back)
becomes pairs of its iterations (unroll-and-jam by 2), each row loop computing both
iterations' values before storing either, under `omp simd`, then the odd one left.
No legality check: the dumps must be compared (README.md).
Usage: python3 pairs.py OUTPUT.c PAIRED.c"""
import re, sys
src = open(sys.argv[1]).read().split('\n')
out = []; i = 0; count = 0
head_re = re.compile(r'^(\s*)for \(int (c\d+) = (.*); \2 <= (.*); \2\+\+\) \{$')
row_re = re.compile(r'^\s*for \(int (c\d+) = .*\) \{$')
while i < len(src):
    m = head_re.match(src[i])
    rows = []
    if m:
        j = i + 1
        while j + 2 < len(src) and row_re.match(src[j]) and src[j + 2].strip() == '}':
            rows.append((src[j], src[j + 1])); j += 3
        if rows and src[j].strip() == '}' and len(src[j]) - len(src[j].lstrip()) == len(m.group(1)) and all(' = ' in st for _, st in rows):
            ind, c, lo, hi = m.groups()
            out.append(f'{ind}{{')
            out.append(f'{ind}int {c} = {lo};')
            out.append(f'{ind}for (; {c} + 1 <= {hi}; {c} += 2) {{')
            for hdr, st in rows:
                lhs, rhs = st.strip().rstrip(';').split(' = ', 1)
                sh = lambda e: re.sub(rf'\b{c}\b', f'({c} + 1)', e)
                out.append(f'{ind}  #pragma omp simd')
                out.append(hdr)
                out.append(f'{ind}    double v0 = {rhs}, v1 = {sh(rhs)};')
                out.append(f'{ind}    {lhs} = v0;')
                out.append(f'{ind}    {sh(lhs)} = v1;')
                out.append(f'{ind}  }}')
            out.append(f'{ind}}}')
            out.append(f'{ind}for (; {c} <= {hi}; {c}++) {{')
            for hdr, st in rows:
                out += [hdr, st, f'{ind}  }}']
            out.append(f'{ind}}}')
            out.append(f'{ind}}}')
            i = j + 1; count += 1
            continue
    out.append(src[i]); i += 1
open(sys.argv[2], 'w').write('\n'.join(out))
print('loops paired:', count, file=sys.stderr)
