package inference

import (
	"context"
	"math"
	"testing"
	"time"
)

// fn adapts a function of q (value and gradient) to an Model.
type fn struct {
	d int
	f func(grad, q []float64) float64
}

func (o fn) Dim() int { return o.d }
func (o fn) LogDensity(grad, q []float64) (float64, error) {
	return o.f(grad, q), nil
}

func of(o Model) func() (Model, error) { return func() (Model, error) { return o, nil } }

// quadratic is −½(q − c)ᵀA(q − c) with A = [[2, 0.6], [0.6, 1]].
var quadratic = fn{2, func(grad, q []float64) float64 {
	c := []float64{1.5, -0.5}
	d0, d1 := q[0]-c[0], q[1]-c[1]
	grad[0] = -(2*d0 + 0.6*d1)
	grad[1] = -(0.6*d0 + d1)
	return -0.5 * (2*d0*d0 + 1.2*d0*d1 + d1*d1)
}}

// rosenbrock is −(1 − x)² − 100(y − x²)², maximal at (1, 1).
var rosenbrock = fn{2, func(grad, q []float64) float64 {
	x, y := q[0], q[1]
	grad[0] = 2*(1-x) + 400*x*(y-x*x)
	grad[1] = -200 * (y - x*x)
	return -(1-x)*(1-x) - 100*(y-x*x)*(y-x*x)
}}

func TestMaximizeFindsOptima(t *testing.T) {
	for _, c := range []struct {
		name string
		o    Model
		want []float64
	}{{"quadratic", quadratic, []float64{1.5, -0.5}}, {"rosenbrock", rosenbrock, []float64{1, 1}}} {
		r, err := Maximize(context.Background(), of(c.o), Settings{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Converged || math.Abs(r.X[0]-c.want[0]) > 1e-4 || math.Abs(r.X[1]-c.want[1]) > 1e-4 {
			t.Errorf("%s: X %v (converged %v, %s), want %v", c.name, r.X, r.Converged, r.Starts[0].Status, c.want)
		}
		if r.GradNorm > 1e-5 || math.Abs(r.Value) > 1e-8 {
			t.Errorf("%s: value %v, gradient norm %v", c.name, r.Value, r.GradNorm)
		}
	}
}

// bimodal has a local maximum of height 0 at −3 and the global one, of
// height 2, at 3.
var bimodal = fn{1, func(grad, q []float64) float64 {
	x := q[0]
	a := math.Exp(-(x + 3) * (x + 3))
	b := 2 * math.Exp(-(x-3)*(x-3)/4)
	grad[0] = (-2*(x+3)*a - (x-3)/2*b) / (a + b)
	return math.Log(a + b)
}}

func TestMultiStartFindsTheGlobalMaximum(t *testing.T) {
	one, err := Maximize(context.Background(), of(bimodal), Settings{Init: []float64{-2}})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(one.X[0]+3) > 0.1 {
		t.Fatalf("a start at -2 should end in the local mode at -3, got %v", one.X)
	}
	many, err := Maximize(context.Background(), of(bimodal), Settings{Init: []float64{-2}, Starts: 8, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(many.X[0]-3) > 1e-4 {
		t.Errorf("8 starts: X %v, want the global maximum at 3", many.X)
	}
}

func TestFixedCoordinatesStay(t *testing.T) {
	// With q₀ held at 0 the conditional maximum of the quadratic is at
	// q₁ = c₁ + 0.6·c₀ = −0.5 + 0.9 = 0.4.
	r, err := Maximize(context.Background(), of(quadratic), Settings{Init: []float64{0, math.NaN()}, Fixed: []bool{true, false}, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	if r.X[0] != 0 || math.Abs(r.X[1]-0.4) > 1e-6 {
		t.Errorf("X %v, want [0 0.4]", r.X)
	}
}

func TestSameSeedSameResultWhateverTheWorkers(t *testing.T) {
	a, _ := Maximize(context.Background(), of(bimodal), Settings{Starts: 5, Seed: 9, Workers: 1})
	b, _ := Maximize(context.Background(), of(bimodal), Settings{Starts: 5, Seed: 9, Workers: 2})
	for k := range a.Starts {
		if a.Starts[k].X[0] != b.Starts[k].X[0] {
			t.Errorf("start %d differs: %v and %v", k, a.Starts[k].X, b.Starts[k].X)
		}
	}
}

func TestProfileEqualsDirectEvaluation(t *testing.T) {
	var pts [][]float64
	for i := 0; i < 37; i++ {
		pts = append(pts, []float64{float64(i)/6 - 3})
	}
	for _, w := range []int{1, 2} {
		got, err := Profile(context.Background(), of(bimodal), pts, w)
		if err != nil {
			t.Fatal(err)
		}
		g := make([]float64, 1)
		for i, p := range pts {
			want, _ := bimodal.LogDensity(g, p)
			if got[i] != want {
				t.Errorf("workers %d, point %v: %v, want %v", w, p, got[i], want)
			}
		}
	}
}

func TestMaximizeIsCancelled(t *testing.T) {
	slow := fn{2, func(grad, q []float64) float64 {
		time.Sleep(time.Millisecond)
		return rosenbrock.f(grad, q)
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := Maximize(ctx, of(slow), Settings{Starts: 2}); err == nil {
		t.Error("a cancelled optimisation returned no error")
	}
}
