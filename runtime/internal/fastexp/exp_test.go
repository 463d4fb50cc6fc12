package fastexp

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// refExp returns e^x to 200 bits: x = k ln2 + r, |r| ≤ ½ ln2, with ln2 from
// 2 atanh(1/3) and e^r from its Taylor series.
func refExp(x float64) *big.Float {
	const prec = 200
	k := math.Round(x / math.Ln2)
	r := new(big.Float).SetPrec(prec).SetFloat64(x)
	r.Sub(r, new(big.Float).SetPrec(prec).Mul(bigLn2, big.NewFloat(k)))
	sum := new(big.Float).SetPrec(prec).SetFloat64(1)
	term := new(big.Float).SetPrec(prec).SetFloat64(1)
	for j := 1; j < 60; j++ {
		term.Mul(term, r)
		term.Quo(term, big.NewFloat(float64(j)))
		sum.Add(sum, term)
	}
	return sum.SetMantExp(sum, int(k))
}

var bigLn2 = func() *big.Float {
	const prec = 200
	third := new(big.Float).SetPrec(prec).Quo(big.NewFloat(1), big.NewFloat(3))
	ln2 := new(big.Float).SetPrec(prec)
	pow := new(big.Float).SetPrec(prec).Set(third) // (1/3)^(2j+1)
	ninth := new(big.Float).SetPrec(prec).Mul(third, third)
	for j := 0; j < 130; j++ {
		t := new(big.Float).SetPrec(prec).Quo(pow, big.NewFloat(float64(2*j+1)))
		ln2.Add(ln2, t)
		pow.Mul(pow, ninth)
	}
	return ln2.Mul(ln2, big.NewFloat(2))
}()

func TestExpNeg(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 82))
	xs := []float64{0, math.Copysign(0, -1), -1e-300, -1e-17, -0.5, -math.Ln2 / 128, -math.Ln2 / 64, -math.Ln2, -1, -700, -708}
	for k := 0; k < 7000; k++ {
		xs = append(xs, -708*rng.Float64())
		xs = append(xs, -rng.Float64())
		xs = append(xs, -math.Ln2/128*(float64(rng.IntN(130700))+rng.Float64()*1e-9)) // near reduction boundaries
	}
	var worst, worstX float64
	for _, x := range xs {
		ref := refExp(x)
		got := new(big.Float).SetPrec(200).SetFloat64(ExpNeg(x))
		diff := new(big.Float).SetPrec(200).Sub(got, ref)
		rel, _ := diff.Quo(diff, ref).Float64()
		if math.Abs(rel) > worst {
			worst, worstX = math.Abs(rel), x
		}
	}
	t.Logf("largest relative error %.3g (%.2f ulp of 2⁻⁵²) at x = %v", worst, worst/0x1p-52, worstX)
	if worst > 3e-16 {
		t.Errorf("relative error %g at x = %v exceeds 3e-16", worst, worstX)
	}
}

// TestExpTable recomputes expTable: 2^(j/128) as the seventh iterated
// square root of 2^j in 256-bit arithmetic, rounded once to float64.
func TestExpTable(t *testing.T) {
	for j := range expTable {
		v := new(big.Float).SetPrec(256).SetMantExp(big.NewFloat(1), j)
		for range 7 {
			v.Sqrt(v)
		}
		f, _ := v.Float64()
		if got := expTable[j]; got != math.Float64bits(f) {
			t.Errorf("expTable[%d] = %#x, want %#x (%v)", j, got, math.Float64bits(f), f)
		}
	}
}
