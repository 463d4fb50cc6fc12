package fit_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kml-lang/kml/stdlib/internal/kmltest"
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
	kmltest.ExpectError(t, b.String(), "missing a2, a3, a4, a5, a6, a7, a8, a9 and 1991 more\n")
}

// TestGeneratedVectorDrawsAndBooleans checks that draw from a distribution
// with vector parameters gives one draw per element (Stan's
// normal_rng(vector, sigma)), that a boolean generated quantity is recorded
// as 0/1, and that an error in the generated block is placed there.
func TestGeneratedVectorDrawsAndBooleans(t *testing.T) {
	const model = `let y = [28, 8, -3]
model m {
  theta[3] ~ normal(0, 5)
  y ~ normal(theta, 10)
  generated {
    p = theta[1] > 0
    y_rep = draw(normal(theta, 10), N)
  }
}
let post = sample(m, chains: 1, warmup: 50, draws: 50, seed: 1)
`
	_, out := kmltest.Run(t, "let N = 3\n"+model+`let p = post.p
print(cols(post.y_rep), len(p), sum(p == 0) + sum(p == 1), mean(p) > 0.5)
let d = draw(normal([0, 100], 1), seed: 1)
let e = draw(normal([0, 100], 1), 4, seed: 1)
print(len(d), d[2] > 90, len(e), e[4] > 90, e[3] < 10)
`)
	if want := "3 50 50 true\n2 true 4 true true\n"; out.String() != want {
		t.Errorf("got\n%swant\n%s", out, want)
	}
	kmltest.ExpectError(t, "let N = 5\n"+model, "t.kml:8:37: error: draw: n = 5 is not a multiple of 3")
	kmltest.ExpectError(t, "let N = 5\n"+model, "note: in the model's generated block, run for each draw by the call at t.kml:11:12")
	kmltest.ExpectError(t, `print(draw(normal([0, 1], [1, 2, 3])))`, "its vector parameters have lengths 2 and 3")
}
