package eval

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// Printing limits: longer vectors and matrices are shown with their ends.
const (
	maxVectorShown = 20
	maxRowsShown   = 12
)

// FormatNumber writes x for a person: integers in full, other numbers with 7
// significant digits (as R does), so printed results are stable to rounding
// noise in the last bits.
func FormatNumber(x float64) string {
	switch {
	case math.IsNaN(x):
		return "NaN"
	case math.IsInf(x, 1):
		return "Inf"
	case math.IsInf(x, -1):
		return "-Inf"
	case x == math.Trunc(x) && math.Abs(x) < 1e15:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	s := strconv.FormatFloat(x, 'g', 7, 64)
	if strings.ContainsAny(s, "e") {
		mant, exp, _ := strings.Cut(s, "e")
		if strings.Contains(mant, ".") {
			mant = strings.TrimRight(strings.TrimRight(mant, "0"), ".")
		}
		return mant + "e" + exp
	}
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

func formatVector(xs []float64) string {
	var b strings.Builder
	b.WriteByte('[')
	write := func(from, to int) {
		for i := from; i < to; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(FormatNumber(xs[i]))
		}
	}
	if len(xs) <= maxVectorShown {
		write(0, len(xs))
	} else {
		write(0, maxVectorShown-3)
		b.WriteString(", …")
		for i := len(xs) - 3; i < len(xs); i++ {
			b.WriteString(", ")
			b.WriteString(FormatNumber(xs[i]))
		}
		b.WriteString("] (length " + strconv.Itoa(len(xs)) + ")")
		return b.String()
	}
	b.WriteByte(']')
	return b.String()
}

// formatMatrix writes rows on lines with right-aligned columns, and a shape
// line for a matrix too long to show whole.
func formatMatrix(m *mat.Dense) string {
	r, c := m.Dims()
	rows := make([]int, 0, r)
	if r <= maxRowsShown {
		for i := 0; i < r; i++ {
			rows = append(rows, i)
		}
	} else {
		for i := 0; i < maxRowsShown-3; i++ {
			rows = append(rows, i)
		}
		rows = append(rows, -1)
		for i := r - 3; i < r; i++ {
			rows = append(rows, i)
		}
	}
	cells := make([][]string, len(rows))
	width := make([]int, c)
	for k, i := range rows {
		if i < 0 {
			continue
		}
		cells[k] = make([]string, c)
		for j := 0; j < c; j++ {
			s := FormatNumber(m.At(i, j))
			cells[k][j] = s
			width[j] = max(width[j], len(s))
		}
	}
	var b strings.Builder
	for k, i := range rows {
		if k > 0 {
			b.WriteByte('\n')
		}
		if i < 0 {
			b.WriteString(" ⋮")
			continue
		}
		b.WriteByte('[')
		for j, s := range cells[k] {
			if j > 0 {
				b.WriteString("  ")
			}
			b.WriteString(strings.Repeat(" ", width[j]-len(s)))
			b.WriteString(s)
		}
		b.WriteByte(']')
	}
	if r > maxRowsShown || r == 0 {
		b.WriteString("\n(" + strconv.Itoa(r) + "×" + strconv.Itoa(c) + " matrix)")
	}
	return b.String()
}

// ToJSON converts v to a value encoding/json writes as LANGUAGE.md says:
// records → objects (fields in order), vectors → arrays, matrices → arrays of
// rows, NaN and infinities → null; values with a JSON method use it.
func ToJSON(v Value) any {
	switch v := v.(type) {
	case JSONer:
		return v.JSON()
	case Num:
		return jsonNumber(float64(v))
	case Bool:
		return bool(v)
	case Str:
		return string(v)
	case *Vec:
		out := make([]any, len(v.Data))
		for i, x := range v.Data {
			out[i] = jsonNumber(x)
		}
		return out
	case *Mat:
		r, c := v.Dims()
		out := make([]any, r)
		for i := 0; i < r; i++ {
			row := make([]any, c)
			for j := 0; j < c; j++ {
				row[j] = jsonNumber(v.M.At(i, j))
			}
			out[i] = row
		}
		return out
	case *Record:
		obj := make(OrderedObject, 0, len(v.keys))
		for _, k := range v.keys {
			obj = append(obj, KV{Key: k, Value: ToJSON(v.vals[k])})
		}
		return obj
	case *ADNum:
		return jsonNumber(v.Value())
	case *ADVec:
		return ToJSON(&Vec{Data: v.Values()})
	case *ADMat:
		return ToJSON(&Mat{M: v.Dense()})
	case None:
		return nil
	}
	return v.String()
}

func jsonNumber(x float64) any {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return x
}

// KV is one field of an OrderedObject.
type KV struct {
	Key   string
	Value any
}

// OrderedObject is a JSON object that keeps its fields in order.
type OrderedObject []KV

// MarshalJSON writes the fields in order.
func (o OrderedObject) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, kv := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(kv.Key)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(kv.Value)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}
