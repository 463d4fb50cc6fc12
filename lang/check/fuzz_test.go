package check_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kml-lang/kml/internal/stoptest"
	"github.com/kml-lang/kml/lang/check"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/grammar"
	_ "github.com/kml-lang/kml/stdlib"
)

var fuzzSeeds = []string{
	`model reg(x, y) {
  beta[cols(x)] ~ normal(0, 3)
  y ~ normal(x @ beta, 1)
}
fn fit(d) = optimize(reg(x: d.x, y: d.y), seed: 1)
let f = fit({x: [[1, 2], [3, 4]], y: [1, 2]})`,
	`let x = read_csv("data/normal_laplace.csv", columns: ["x"])
let z = landmarks(x, 20, seed: 7)
model emb {
  ell ~ gamma(1, 1)
  x ~ bke(rbf(ell), noise: 1, landmarks: z)
}
let post = sample(emb, chains: 4, warmup: 200, draws: 200, seed: 1)
print(summary(post))
let fit = optimize(emb, objective: "ml")
print(fit.ell)
plot(profile(emb, ell: logspace(-2, 2, 200)), to: "marginal.svg")`,
	"let a = [[1, 2], [3, 4]] @ [1, 2]\nlet b = a[1:2, :]",
	"fn f(n) = if n < 1 then 1 else n * f(n - 1)",
	"let r = {a: 1, b: \"s\\n\", c: [1, 2,\n 3]}",
	"model m {\n  w[3] ~ normal(0, 1); k = rbf(w[1])\n  y ~ normal(w, 1)\n}",
	"import \"x.kml\"",
	"let τ2 = -2^-1 % 3 != 4 || !true && false",
	"let x = (1 + ; let y = ]",
	"model m { let",
	"\"unterminated",
	"let x = y[:, ] + z[1:,2:]",
	"@@@ ~~ model model {{{",
	"let a = 1 & 2 | 3",
	"f(a: 1, 2)",
	// Other languages' habits, which the parser's hints look into.
	"real<lower=0, upper=1> s;\nvector[N] y;\nsimplex[ theta",
	"model m { for (i in 1:N) { y[i] ~ dnorm(0, 1) T[0,] } }",
	"x <- 1\ndata { int<lower= N; }\nimport numpy\npm.Normal(\"s\", mu=0)",
	"real<",
}

// FuzzParse checks that no input makes the parser or the checker panic or
// hang: run with go test -fuzz=FuzzParse ./lang/check.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		done := make(chan struct{})
		go func() {
			defer close(done)
			file, err := grammar.Parse("fuzz.kml", src)
			if err != nil && file == nil {
				return
			}
			c := &check.Checker{Universe: eval.Builtins}
			c.File(file, check.NewScope(c.Root()))
			grammar.Incomplete(src)
			grammar.ParseExpr("fuzz.kml", src)
		}()
		// A hang is caught by wall time, loosely (a crowded machine runs
		// this slowly); a slow input by the processor time it took.
		cpu0 := stoptest.ProcessCPU()
		select {
		case <-done:
		case <-time.After(2 * time.Minute):
			t.Fatalf("parsing and checking %q did not end in 2 minutes", src)
		}
		if cpu := stoptest.ProcessCPU() - cpu0; cpu > 5*time.Second {
			t.Fatalf("parsing and checking %q took %v of processor time", src, cpu)
		}
	})
}

// BenchmarkParseCheck10k parses and checks a generated 10,000-line program.
func BenchmarkParseCheck10k(b *testing.B) {
	src := program(10000)
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		file, err := grammar.Parse("big.kml", src)
		if err != nil {
			b.Fatal(err)
		}
		c := &check.Checker{Universe: eval.Builtins}
		if err := c.File(file, check.NewScope(c.Root())); err != nil {
			b.Fatal(err)
		}
	}
}

// program generates a realistic program of about n lines: lets with
// arithmetic and calls, functions, records, comments and models.
func program(n int) string {
	var b strings.Builder
	line := 0
	emit := func(s string) {
		b.WriteString(s)
		b.WriteByte('\n')
		line += strings.Count(s, "\n") + 1
	}
	emit("let x0 = [1, 2, 3, 4]")
	for k := 1; line < n; k++ {
		switch k % 10 {
		case 0:
			emit("# a comment about step " + itoa(k))
		case 1:
			emit("fn f" + itoa(k) + "(a, b) = if a > b then a * 2 + b else sqrt(abs(a - b)) / 3")
		case 2:
			emit("let r" + itoa(k) + " = {mean: mean(x0), sd: sd(x0), first: x0[1], slice: x0[2:3]}")
		case 3:
			emit("model m" + itoa(k) + " {\n  ell ~ gamma(1, 1)\n  w[2] ~ normal(0, ell)\n  k = 2 * rbf(ell) + white()\n  x0 ~ normal(w[1] + w[2], 1)\n}")
		default:
			emit("let x" + itoa(k) + " = (x0 * " + itoa(k) + " + exp(-x0 / 2)) @ [1, 0, 1, 0] - linspace(0, 1, 4)[2] ^ 2")
		}
	}
	return b.String()
}

func itoa(n int) string {
	s := ""
	for n > 0 || s == "" {
		s = string(rune('0'+n%10)) + s
		n /= 10
	}
	return s
}
