package core

import (
	"math"
	"sort"
	"strings"
	"unicode/utf8"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model/dists"
	"github.com/kml-lang/kml/runtime/dist"
	"github.com/kml-lang/kml/runtime/stats"
)

// HasMoments is a value with a mean and a standard deviation of its own (a
// distribution), which mean and sd return.
type HasMoments interface {
	Moments() (mean, sd float64)
}

// HasMean is a value whose mean is not a reduction of its elements (a
// weighted sample: its weighted mean), which mean returns.
type HasMean interface {
	Mean() (eval.Value, error)
}

// reducer is a reduction of a list of numbers.
type reducer struct {
	spec, doc string
	f         func(xs []float64) (float64, string) // value, or an error message
}

func nonEmpty(what string, xs []float64) string {
	if len(xs) == 0 {
		return what + " of an empty vector"
	}
	return ""
}

var reducers = []reducer{
	{"sum(x)", "The sum of the elements: a number for a vector or n×1 matrix, per column for an n×d matrix; NaN if an element is NaN.", func(xs []float64) (float64, string) {
		return sumOf(xs, 1), ""
	}},
	{"mean(x)", "The mean: a number for a vector or n×1 matrix, a vector of column means for an n×d matrix (rows are observations); the mean of a distribution; the weighted mean Σ w_i x_i / Σ w_i of a weighted sample (kbr). NaN if an element is NaN; finite whenever the mean is (mean([1e308, 1e308]) is 1e308).", func(xs []float64) (float64, string) {
		if e := nonEmpty("mean", xs); e != "" {
			return 0, e
		}
		return meanOf(xs), ""
	}},
	{"var(x)", "The sample variance (n − 1 denominator), per column for a matrix; NaN if an element is NaN.", func(xs []float64) (float64, string) {
		if len(xs) < 2 {
			return 0, "var needs at least 2 values"
		}
		return sampleVar(xs), ""
	}},
	{"sd(x)", "The sample standard deviation (n − 1 denominator), per column for a matrix; the standard deviation of a distribution. NaN if an element is NaN.", func(xs []float64) (float64, string) {
		if len(xs) < 2 {
			return 0, "sd needs at least 2 values"
		}
		return math.Sqrt(sampleVar(xs)), ""
	}},
	{"min(x)", "The smallest element, per column for a matrix; NaN if an element is NaN.", func(xs []float64) (float64, string) {
		if e := nonEmpty("min", xs); e != "" {
			return 0, e
		}
		m := xs[0]
		for _, x := range xs {
			if math.IsNaN(x) {
				return x, "" // math.Min(Inf, NaN) is Inf
			}
			m = math.Min(m, x)
		}
		return m, ""
	}},
	{"max(x)", "The largest element, per column for a matrix; NaN if an element is NaN.", func(xs []float64) (float64, string) {
		if e := nonEmpty("max", xs); e != "" {
			return 0, e
		}
		m := xs[0]
		for _, x := range xs {
			if math.IsNaN(x) {
				return x, "" // math.Max(Inf, NaN) is Inf
			}
			m = math.Max(m, x)
		}
		return m, ""
	}},
	{"median(x)", "The median, per column for a matrix. A NaN element makes it NaN, wherever it sits.", func(xs []float64) (float64, string) {
		if e := nonEmpty("median", xs); e != "" {
			return 0, e
		}
		return stats.SortedQuantile(sorted(xs), 0.5), ""
	}},
}

// sumOf is the sum of xs divided by n (1 for the sum, len(xs) for the
// mean). When the running sum overflows, the result follows the elements,
// not the order they are added in: a NaN element gives NaN, infinities of
// both signs NaN, of one sign that infinity; and finite elements are summed
// again scaled by the largest magnitude, so mean([1e308, 1e308]) is 1e308
// and sum([1e308, 1e308, -1e308]) is 1e308.
func sumOf(xs []float64, n float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	if !math.IsInf(s, 0) && !math.IsNaN(s) {
		return s / n
	}
	pos, neg, scale := false, false, 0.0
	for _, x := range xs {
		switch {
		case math.IsNaN(x):
			return x
		case math.IsInf(x, 1):
			pos = true
		case math.IsInf(x, -1):
			neg = true
		default:
			scale = math.Max(scale, math.Abs(x))
		}
	}
	switch {
	case pos && neg:
		return math.NaN()
	case pos:
		return math.Inf(1)
	case neg:
		return math.Inf(-1)
	}
	s = 0
	for _, x := range xs {
		s += x / scale
	}
	return s / n * scale
}

// meanOf is the mean of xs (see sumOf).
func meanOf(xs []float64) float64 { return sumOf(xs, float64(len(xs))) }

func sampleVar(xs []float64) float64 {
	m := meanOf(xs)
	s := 0.0
	for _, x := range xs {
		s += (x - m) * (x - m)
	}
	return s / float64(len(xs)-1)
}

func sorted(xs []float64) []float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s
}

func registerReduce(reg *eval.Registry) {
	for _, r := range reducers {
		b := reg.Register(r.spec, r.doc, func(a *eval.Args) (eval.Value, error) {
			if hm, ok := a.Value("x").(HasMean); ok && r.spec == "mean(x)" {
				v, err := hm.Mean()
				if err != nil {
					return nil, a.Errorf("x", "%v", err)
				}
				return v, nil
			}
			if hm, ok := a.Value("x").(HasMoments); ok {
				if dv, ok := hm.(*dists.DistVal); ok && dist.IsImproper(dv.Family) {
					return nil, a.Errorf("x", "%s is improper: it has no %s", dv, strings.TrimSuffix(r.spec, "(x)"))
				}
				if dv, ok := hm.(*dists.DistVal); ok {
					if tr, ok := dv.Family.(*dist.Truncated); ok && !tr.HasMoments() {
						return nil, a.Errorf("x", "the %s of a truncated %s is not computed (only a truncated normal's is); estimate it from draws, e.g. %s(draw(d, 100000))", strings.TrimSuffix(r.spec, "(x)"), dv.Family.Name(), strings.TrimSuffix(r.spec, "(x)"))
					}
				}
				mean, sd := hm.Moments()
				switch r.spec {
				case "mean(x)":
					return eval.Num(mean), nil
				case "sd(x)":
					return eval.Num(sd), nil
				case "var(x)":
					return eval.Num(sd * sd), nil
				}
			}
			if v, ok := a.Value("x").(*eval.ADVec); ok && (r.spec == "sum(x)" || r.spec == "mean(x)") {
				return adSum(v, r.spec == "mean(x)"), nil
			}
			if v, ok := a.Value("x").(*eval.ADNum); ok && (r.spec == "sum(x)" || r.spec == "mean(x)") {
				return v, nil
			}
			return reduce(a, r.f)
		})
		if r.spec == "sum(x)" || r.spec == "mean(x)" {
			b.AD = true
		}
	}
	reg.Register("quantile(x, p)",
		"The p-quantile (p a number or vector in [0, 1]) by linear interpolation between order statistics (R's type 7); per column for a matrix. A NaN element makes every quantile NaN, wherever it sits.",
		func(a *eval.Args) (eval.Value, error) {
			var ps []float64
			if err := a.Unpack("p", &ps); err != nil {
				return nil, err
			}
			for _, p := range ps {
				if !(p >= 0 && p <= 1) {
					return nil, a.Errorf("p", "p must be between 0 and 1, got %v", p)
				}
			}
			cols, matrix, err := columns(a)
			if err != nil {
				return nil, err
			}
			if _, isNum := a.Value("p").(eval.Num); isNum {
				out := make([]float64, len(cols))
				for c, xs := range cols {
					if len(xs) == 0 {
						return nil, a.Errorf("x", "quantile of an empty vector")
					}
					out[c] = stats.SortedQuantile(sorted(xs), ps[0])
				}
				if !matrix {
					return eval.Num(out[0]), nil
				}
				return &eval.Vec{Data: out}, nil
			}
			if matrix {
				return nil, a.Errorf("p", "several quantiles of a matrix: take one column at a time")
			}
			s := sorted(cols[0])
			if len(s) == 0 {
				return nil, a.Errorf("x", "quantile of an empty vector")
			}
			out := make([]float64, len(ps))
			for i, p := range ps {
				out[i] = stats.SortedQuantile(s, p)
			}
			return &eval.Vec{Data: out}, nil
		})
	length := reg.Register("len(x)", "The number of elements of a vector or list, of rows (observations) of a matrix, of characters of a string.",
		func(a *eval.Args) (eval.Value, error) {
			switch v := a.Value("x").(type) {
			case *eval.Vec:
				return eval.Num(len(v.Data)), nil
			case *eval.ADVec:
				return eval.Num(len(v.Vs)), nil
			case *eval.Mat:
				r, _ := v.Dims()
				return eval.Num(r), nil
			case *eval.List:
				return eval.Num(len(v.Elems)), nil
			case eval.Str:
				return eval.Num(utf8.RuneCountInString(string(v))), nil
			case eval.Num, *eval.ADNum:
				return eval.Num(1), nil
			}
			return nil, a.Errorf("x", "len takes a vector, matrix, list or string, got %s", eval.Describe(a.Value("x")))
		})
	length.AD = true
	reg.Register("rows(x)", "The number of rows (observations) of a matrix, or the length of a vector.", func(a *eval.Args) (eval.Value, error) {
		var m *mat.Dense
		if err := a.Unpack("x", &m); err != nil {
			return nil, err
		}
		r, _ := m.Dims()
		return eval.Num(r), nil
	})
	reg.Register("cols(x)", "The number of columns of a matrix (1 for a vector).", func(a *eval.Args) (eval.Value, error) {
		var m *mat.Dense
		if err := a.Unpack("x", &m); err != nil {
			return nil, err
		}
		_, c := m.Dims()
		return eval.Num(c), nil
	})
}

// columns returns x's columns: one for a number, vector or n×1 matrix
// (matrix false), d for an n×d matrix.
func columns(a *eval.Args) ([][]float64, bool, error) {
	switch v := a.Value("x").(type) {
	case eval.Num:
		return [][]float64{{float64(v)}}, false, nil
	case *eval.Vec:
		return [][]float64{v.Data}, false, nil
	case *eval.Mat:
		r, c := v.Dims()
		if c == 1 {
			xs, _ := eval.ToFloats(v)
			return [][]float64{xs}, false, nil
		}
		out := make([][]float64, c)
		for j := range out {
			out[j] = make([]float64, r)
			for i := range out[j] {
				out[j][i] = v.M.At(i, j)
			}
		}
		return out, true, nil
	}
	return nil, false, a.Errorf("x", "x must be numbers, got %s", eval.Describe(a.Value("x")))
}

func reduce(a *eval.Args, f func([]float64) (float64, string)) (eval.Value, error) {
	cols, matrix, err := columns(a)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(cols))
	for c, xs := range cols {
		v, msg := f(xs)
		if msg != "" {
			return nil, a.Errorf("x", "%s", msg)
		}
		out[c] = v
	}
	if !matrix {
		return eval.Num(out[0]), nil
	}
	return &eval.Vec{Data: out}, nil
}

func adSum(v *eval.ADVec, mean bool) eval.Value {
	if len(v.Vs) == 0 {
		return eval.Num(0)
	}
	w := 1.0
	if mean {
		w = 1 / float64(len(v.Vs))
	}
	return &eval.ADNum{T: v.T, V: v.T.Func(v.Vs, func(x, d []float64) float64 {
		s := 0.0
		for i, xi := range x {
			d[i] = w
			s += w * xi
		}
		return s
	})}
}
