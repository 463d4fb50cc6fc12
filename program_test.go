package kml_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/kml-lang/kml"
)

// programSrc exercises what a host runs: data in, a model fitted by NUTS, a
// kernel computation and a map over a fn.
const programSrc = `model m {
  mu ~ normal(0, 5)
  y ~ normal(mu, 1)
}
let post = sample(m, chains: 2, warmup: 150, draws: 150)
let s = summary(post)
let g = gram(rbf(1), cbind(y))
fn sq(v) = v * v
let total = sum(map(y, sq)) + g[1, 2]
`

// TestProgramConcurrent runs one compiled program from eight goroutines at
// once, two per seed and data set: runs with the same seed and data agree
// bit for bit and runs with others differ, so no run sees another's state.
// Under `go test -race` (which .ci/run runs on this test) it also checks
// that nothing is shared unsafely.
func TestProgramConcurrent(t *testing.T) {
	p, err := kml.Compile("prog.kml", programSrc, []string{"y"}, kml.Stdout(&bytes.Buffer{}), kml.Stderr(&bytes.Buffer{}))
	if err != nil {
		t.Fatal(err)
	}
	const runs = 8
	means := make([]float64, runs)
	totals := make([]float64, runs)
	errs := make([]error, runs)
	var wg sync.WaitGroup
	for i := 0; i < runs; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			y := []float64{1.2, 0.7, 2.1, 1.5, float64(i / 2)}
			out := &bytes.Buffer{}
			it, err := p.Run(context.Background(), map[string]any{"y": y}, kml.Seed(uint64(1+i/2)), kml.Stdout(out))
			if err != nil {
				errs[i] = fmt.Errorf("run %d: %s", i, it.FormatError(err))
				return
			}
			post, err := it.Get("post")
			if err != nil {
				errs[i] = err
				return
			}
			means[i] = post.(*kml.Posterior).Summary.Params[0].Mean
			tot, _ := it.Get("total")
			totals[i] = tot.(float64)
		}(i)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < runs; i += 2 {
		if means[i] != means[i+1] || totals[i] != totals[i+1] {
			t.Errorf("runs %d and %d, same seed and data: means %v %v, totals %v %v", i, i+1, means[i], means[i+1], totals[i], totals[i+1])
		}
	}
	if means[0] == means[2] {
		t.Errorf("runs with seeds 1 and 2 gave the same posterior mean %v", means[0])
	}
}

// TestCompileReportsErrors checks that a program with a check error is
// refused by Compile, positioned, before any run.
func TestCompileReportsErrors(t *testing.T) {
	_, err := kml.Compile("bad.kml", "let a = 1\nlet b = a + c\n", []string{"y"})
	if err == nil || !strings.Contains(err.Error(), "bad.kml:2:13") || !strings.Contains(err.Error(), "undefined: c") {
		t.Errorf("Compile: %v", err)
	}
	p, err := kml.Compile("ok.kml", "let b = y + 1\n", []string{"y"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Run(context.Background(), map[string]any{"x": 1.0}); err == nil || !strings.Contains(err.Error(), "missing y, unknown x") {
		t.Errorf("Run with the wrong inputs: %v", err)
	}
	it, err := p.Run(context.Background(), map[string]any{"y": 2.0})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := it.Get("b"); b != 3.0 {
		t.Errorf("b = %v, want 3", b)
	}
}
