package eval

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/kml-lang/kml/lang/ast"
)

// The memory budget bounds the values alive at once (ledger.go) with every
// dense result a builtin or operator allocates (a Gram matrix, a matrix
// product), so that a size that does not fit ends in a clear error instead
// of the Go runtime's fatal "out of memory", which no recover can catch.

// fallbackBudget is the budget where the machine's memory cannot be read.
const fallbackBudget = 4 << 30

// DefaultMemoryBudget is half of the machine's physical memory.
func DefaultMemoryBudget() int64 {
	if total := physicalMemory(); total > 0 {
		return total / 2
	}
	return fallbackBudget
}

// physicalMemory reads MemTotal from /proc/meminfo (Linux); 0 elsewhere.
func physicalMemory() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// ParseBytes reads a size such as 512MB, 8GB, 1.5GiB, 2G or 1000000 (bytes).
// Decimal and binary suffixes are both read as powers of 1024, as memory is
// counted.
func ParseBytes(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	mult := float64(1)
	for _, u := range []struct {
		suffix string
		m      float64
	}{{"TIB", 1 << 40}, {"GIB", 1 << 30}, {"MIB", 1 << 20}, {"KIB", 1 << 10}, {"TB", 1 << 40}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}, {"T", 1 << 40}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.m
			break
		}
	}
	x, err := strconv.ParseFloat(t, 64)
	if err != nil || x <= 0 || x*mult > 1<<62 {
		return 0, fmt.Errorf("a memory size must be a positive number of bytes with an optional unit (512MB, 8GB), got %q", s)
	}
	return int64(x * mult), nil
}

// FormatBytes renders a byte count for messages: 7.5 GB, 320 MB, 12 kB.
func FormatBytes(n float64) string {
	switch {
	case n >= 1<<40:
		return strconv.FormatFloat(n/(1<<40), 'g', 3, 64) + " TB"
	case n >= 1<<30:
		return strconv.FormatFloat(n/(1<<30), 'g', 3, 64) + " GB"
	case n >= 1<<20:
		return strconv.FormatFloat(n/(1<<20), 'g', 3, 64) + " MB"
	}
	return strconv.FormatFloat(n/(1<<10), 'g', 3, 64) + " kB"
}

// MemoryBudget is the most bytes the live values (see ledger.go) and a
// result being allocated may take together.
func (in *Interpreter) MemoryBudget() int64 { return in.opts.MaxMemory }

// MemoryLive is the bytes the live values hold now: the values bound and
// those in flight (ledger.go).
func (in *Interpreter) MemoryLive() int64 { return in.ledger.Live() }

// MemoryFree is what the budget leaves beside the live values: what a
// builtin may allocate now (the kernel tests size their blocks by it).
func (in *Interpreter) MemoryFree() int64 { return max(0, in.opts.MaxMemory-in.ledger.Live()) }

// overBudget is the error for a result of bytes that does not fit in the
// budget beside extra more bytes in flight and the live values, or "" when
// it fits. what names the result, size says how large it is ("50000000
// numbers (381 MB)"), instead what to do.
func (in *Interpreter) overBudget(bytes, extra float64, what, size, instead string) string {
	budget := float64(in.opts.MaxMemory)
	if bytes > budget {
		msg := fmt.Sprintf("%s would be %s, more than the memory budget of %s (kml run --max-memory sets it)",
			what, size, FormatBytes(budget))
		if instead != "" {
			msg += "; " + instead
		}
		return msg
	}
	live := float64(in.ledger.Live())
	if bytes+extra+live <= budget {
		return ""
	}
	held := in.ledger.holders(3)
	if extra > 0 {
		if held != "" {
			held += "; "
		}
		held += FormatBytes(extra) + " in the operands"
	}
	msg := fmt.Sprintf("%s would be %s, with %s held by live values (%s): more than the memory budget of %s (kml run --max-memory sets it)",
		what, size, FormatBytes(live+extra), held, FormatBytes(budget))
	if instead != "" {
		msg += "; " + instead
	} else {
		msg += "; keep fewer large values alive (bind a summary instead of the whole), or raise the budget"
	}
	return msg
}

// denseError is the error for a rows×cols result of what that does not fit
// in the budget beside the live values, or "" when it fits; instead says
// what to do.
func (in *Interpreter) denseError(rows, cols int, what, instead string) string {
	bytes := 8 * float64(rows) * float64(cols)
	return in.overBudget(bytes, 0, what, fmt.Sprintf("%d×%d numbers (%s)", rows, cols, FormatBytes(bytes)), instead)
}

// vectorError is denseError for a result of n numbers.
func (in *Interpreter) vectorError(n int, extra float64, what, instead string) string {
	bytes := 8 * float64(n)
	return in.overBudget(bytes, extra, what, fmt.Sprintf("%d numbers (%s)", n, FormatBytes(bytes)), instead)
}

// CheckDense refuses, before anything is allocated, a dense rows×cols
// result that would not fit in the memory budget beside the live values.
// what names the result ("the Gram matrix"), instead says what to do ("use
// landmarks").
func (a *Args) CheckDense(rows, cols int, what, instead string) error {
	if msg := a.Th.in.denseError(rows, cols, what, instead); msg != "" {
		return a.Fail("%s", msg)
	}
	return nil
}

// CheckVector refuses, before anything is allocated, a result of n numbers
// that would not fit in the memory budget beside the live values; what
// names it ("rep's result").
func (a *Args) CheckVector(n int, what string) error {
	if msg := a.Th.in.vectorError(n, 0, what, ""); msg != "" {
		return a.Fail("%s", msg)
	}
	return nil
}

// checkResult refuses a builtin's result that, with the live values, holds
// more than the budget: the net under builtins that check nothing before
// allocating, so that the live values never outgrow the budget by more
// than one result.
func (a *Args) checkResult(v Value) error {
	if !counted(v) {
		return nil
	}
	in := a.Th.in
	budget, live := in.opts.MaxMemory, in.ledger.Live()
	if n, _, _, _ := elements(v); live+8*int64(n) <= budget {
		if _, plain := v.(*Vec); plain {
			return nil
		}
		if _, plain := v.(*Mat); plain {
			return nil
		}
	}
	extra := in.ledger.extra(v)
	if live+extra <= budget {
		return nil
	}
	return a.Fail("%s", in.overBudget(float64(extra), 0, "the result", FormatBytes(float64(extra)), ""))
}

// checkElementwise refuses an elementwise x op y whose result would not fit:
// a vector or matrix as large as the larger operand, or, for two matrices
// broadcast against each other (n×1 with 1×d), as large as both dimensions.
func (th *Thread) checkElementwise(pos ast.Pos, op string, x, y Value) error {
	nx, rx, cx, mx := elements(x)
	ny, ry, cy, my := elements(y)
	n := max(nx, ny)
	if mx && my {
		n = max(n, max(rx, ry)*max(cx, cy))
	}
	in := th.in
	if 8*(int64(n)+int64(nx)+int64(ny))+in.ledger.Live() <= in.opts.MaxMemory {
		return nil // fits even with both operands counted in full
	}
	if msg := in.vectorError(n, th.operands(x, y), "the result of "+op, ""); msg != "" {
		return ast.Errorf(pos, "%s", msg)
	}
	return nil
}

// operands is the bytes x and y hold beyond the live values.
func (th *Thread) operands(x, y Value) float64 {
	var n int64
	if counted(x) {
		n += th.in.ledger.extra(x)
	}
	if counted(y) {
		n += th.in.ledger.extra(y)
	}
	return float64(n)
}

// elements is how many numbers v holds, with its rows and columns when it is
// a matrix; it reads only the shape.
func elements(v Value) (n, rows, cols int, isMat bool) {
	switch v := v.(type) {
	case *Vec:
		return len(v.Data), 0, 0, false
	case *ADVec:
		return len(v.Vs), 0, 0, false
	case *Mat:
		r, c := v.Dims()
		return r * c, r, c, true
	case *ADMat:
		return v.Rows * v.Cols, v.Rows, v.Cols, true
	}
	return 1, 0, 0, false
}

// checkMatmul refuses a product x @ y whose result would not fit.
func (th *Thread) checkMatmul(pos ast.Pos, x, y Value) error {
	// Only matrix × matrix can be much larger than its operands.
	a, okx := x.(*Mat)
	b, oky := y.(*Mat)
	if !okx || !oky {
		return nil
	}
	rows, _ := a.Dims()
	_, cols := b.Dims()
	bytes := 8 * float64(rows) * float64(cols)
	size := fmt.Sprintf("%d×%d numbers (%s)", rows, cols, FormatBytes(bytes))
	if msg := th.in.overBudget(bytes, th.operands(x, y), "the product", size, "multiply smaller blocks, or use a low-rank form"); msg != "" {
		return ast.Errorf(pos, "%s", msg)
	}
	return nil
}
