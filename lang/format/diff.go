package format

import (
	"fmt"
	"strings"
)

// Diff returns a unified diff (three lines of context) that turns old into
// new, with headers naming a/NAME and b/NAME, or "" when they are equal.
// It is Myers' O(ND) line diff: formatting changes few lines, so D is small.
func Diff(name, old, new string) string {
	if old == new {
		return ""
	}
	a, b := splitLines(old), splitLines(new)
	ops := myers(a, b)
	var out strings.Builder
	name = strings.TrimPrefix(name, "/")
	fmt.Fprintf(&out, "--- a/%s\n+++ b/%s\n", name, name)
	const context = 3
	for i := 0; i < len(ops); {
		// Find the next change, and the end of its hunk: the first run of
		// more than 2*context equal lines after it.
		for i < len(ops) && ops[i].kind == ' ' {
			i++
		}
		if i == len(ops) {
			break
		}
		start := max(i-context, 0)
		end, same := i, 0
		for j := i; j < len(ops); j++ {
			if ops[j].kind == ' ' {
				same++
				if same > 2*context {
					break
				}
			} else {
				same, end = 0, j+1
			}
		}
		stop := min(end+context, len(ops))
		aLine, bLine := ops[start].a+1, ops[start].b+1
		aN, bN := 0, 0
		for _, op := range ops[start:stop] {
			if op.kind != '+' {
				aN++
			}
			if op.kind != '-' {
				bN++
			}
		}
		if aN == 0 {
			aLine--
		}
		if bN == 0 {
			bLine--
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(aLine, aN), hunkRange(bLine, bN))
		for _, op := range ops[start:stop] {
			out.WriteByte(op.kind)
			out.WriteString(op.text)
			if !strings.HasSuffix(op.text, "\n") {
				out.WriteString("\n\\ No newline at end of file\n")
			}
		}
		i = stop
	}
	return out.String()
}

func hunkRange(start, n int) string {
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

// splitLines splits s after each newline; the last line may lack one.
func splitLines(s string) []string {
	var lines []string
	for s != "" {
		i := strings.IndexByte(s, '\n') + 1
		if i == 0 {
			i = len(s)
		}
		lines = append(lines, s[:i])
		s = s[i:]
	}
	return lines
}

// diffOp is one line of an edit script: kept (' '), deleted ('-') or
// inserted ('+'), with its index in the old (a) and new (b) text.
type diffOp struct {
	kind byte
	text string
	a, b int
}

// myers finds a shortest edit script from a to b.
func myers(a, b []string) []diffOp {
	n, m := len(a), len(b)
	max := n + m
	off := max + 1
	v := make([]int, 2*max+3)
	var trace [][]int
	var d int
search:
	for d = 0; d <= max; d++ {
		trace = append(trace, append([]int(nil), v...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || k != d && v[off+k-1] < v[off+k+1] {
				x = v[off+k+1] // down: an insertion
			} else {
				x = v[off+k-1] + 1 // right: a deletion
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				break search
			}
		}
	}
	// Walk back from (n, m) through the saved frontiers.
	var ops []diffOp
	x, y := n, m
	for ; d > 0; d-- {
		v := trace[d]
		k := x - y
		var prevK int
		if k == -d || k != d && v[off+k-1] < v[off+k+1] {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := v[off+prevK]
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			x, y = x-1, y-1
			ops = append(ops, diffOp{' ', a[x], x, y})
		}
		if x == prevX {
			y--
			ops = append(ops, diffOp{'+', b[y], x, y})
		} else {
			x--
			ops = append(ops, diffOp{'-', a[x], x, y})
		}
	}
	for x > 0 && y > 0 {
		x, y = x-1, y-1
		ops = append(ops, diffOp{' ', a[x], x, y})
	}
	for i, j := 0, len(ops)-1; i < j; i, j = i+1, j-1 {
		ops[i], ops[j] = ops[j], ops[i]
	}
	return ops
}
