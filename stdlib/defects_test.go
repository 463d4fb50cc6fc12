package stdlib_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestMissingNamesAreCapped checks that logp with thousands of missing
// parameters names the first few and counts the rest, not all on one line.
func TestMissingNamesAreCapped(t *testing.T) {
	var b strings.Builder
	b.WriteString("model m {\n")
	for i := 1; i <= 2000; i++ {
		fmt.Fprintf(&b, "  a%d ~ normal(0, 1)\n", i)
	}
	b.WriteString("}\nprint(logp(m, {a1: 0}))\n")
	expectError(t, b.String(), "missing a2, a3, a4, a5, a6, a7, a8, a9 and 1991 more\n")
}
