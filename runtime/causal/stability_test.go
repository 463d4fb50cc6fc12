package causal

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Resampling counts what the graph function returns on each subsample:
// checked against a recount from the subsamples themselves (a graph
// function whose answer depends on the rows drawn), the same on 1 and 3
// workers, with subsamples of round(fraction·n) distinct rows.
func TestResamplingCounts(t *testing.T) {
	n := 40
	data := mat.NewDense(n, 2, nil)
	for i := 0; i < n; i++ {
		data.Set(i, 0, float64(i))
	}
	// The edge 0 — 1 is "-->" when row 0 is drawn, absent when row 1 is
	// drawn without row 0, else "<--".
	graph := func(_ context.Context, sub *mat.Dense, _ uint64) (map[[2]int]string, error) {
		col := mat.Col(nil, 0, sub)
		switch {
		case slices.Contains(col, 0):
			return map[[2]int]string{{0, 1}: "-->"}, nil
		case slices.Contains(col, 1):
			return nil, nil
		}
		return map[[2]int]string{{0, 1}: "<--"}, nil
	}
	r := Resampling{Resamples: 50, Fraction: 0.3, Seed: 9}
	var fwd, back int
	for k := 0; k < r.Resamples; k++ {
		rows, _ := r.Subsample(k, n)
		if len(rows) != 12 || !slices.IsSorted(rows) || len(slices.Compact(slices.Clone(rows))) != 12 {
			t.Fatalf("subsample %d: rows %v", k, rows)
		}
		switch {
		case slices.Contains(rows, 0):
			fwd++
		case !slices.Contains(rows, 1):
			back++
		}
	}
	var first []EdgeFrequency
	for _, w := range []int{1, 3} {
		r.Workers = w
		got, err := r.Run(context.Background(), data, graph)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].Adjacent != float64(fwd+back)/50 {
			t.Fatalf("workers %d: %+v, want adjacent %d/50", w, got, fwd+back)
		}
		for _, tf := range got[0].Types {
			want := map[string]int{"-->": fwd, "<--": back}[tf.Type]
			if tf.Frequency != float64(want)/50 {
				t.Errorf("%s: %g, want %d/50", tf.Type, tf.Frequency, want)
			}
		}
		if first == nil {
			first = got
		} else if !slices.EqualFunc(first[0].Types, got[0].Types, func(a, b TypeFrequency) bool { return a == b }) {
			t.Errorf("1 worker %v, 3 workers %v", first, got)
		}
	}
	if fwd == 0 || back == 0 {
		t.Fatalf("the subsamples do not exercise both types: %d, %d", fwd, back)
	}
}

// PC with Fisher's z over subsamples of a strong linear collider x → z ←
// y (n = 400, half the rows): the collider's edges are found, and oriented,
// in nearly every subsample, and x — y almost never.
func TestResamplingPC(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 5))
	g := dag{{}, {}, {0, 1}}
	data := linearData(r, g, 400)
	rs := Resampling{Resamples: 40, Fraction: 0.5, Seed: 3}
	freq, err := rs.Run(context.Background(), data, func(ctx context.Context, sub *mat.Dense, _ uint64) (map[[2]int]string, error) {
		test, err := FisherZ(sub)
		if err != nil {
			return nil, err
		}
		res, err := PC(ctx, 3, test, Settings{Alpha: 0.01, MaxCond: -1, Workers: 1})
		if err != nil {
			return nil, err
		}
		return PCTypes(res), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range freq {
		switch {
		case e.J == 2 && (e.Adjacent < 0.9 || e.Types[0].Type != "-->" || e.Types[0].Frequency < 0.9):
			t.Errorf("edge %d–2: %+v", e.I, e)
		case e.I == 0 && e.J == 1 && e.Adjacent > 0.1:
			t.Errorf("x — y in %g of the subsamples", e.Adjacent)
		}
	}
	if _, err := (Resampling{Resamples: 5, Fraction: 0.01}).Run(context.Background(), data, nil); err == nil {
		t.Errorf("a 4-row subsample: error %v", err)
	}
}
