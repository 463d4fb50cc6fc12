// Package fastexp computes e^x faster than math.Exp and to within 3e-16
// relative error: the kernel loops of BKE and of the Gram matrices spend
// most of their time in exponentials. ExpNeg is the scalar form, inlined
// into loops; Exps exponentiates a whole row at once, in AVX2 or AVX-512
// assembly where the CPU has them (chosen at run time by
// runtime/internal/cpufeat) and in Go elsewhere.
package fastexp
