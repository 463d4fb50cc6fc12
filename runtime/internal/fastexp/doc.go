// Package fastexp computes e^x for x ≤ 0 faster than math.Exp and to
// within 3e-16 relative error: the kernel loops of BKE and of the Gram
// matrices spend most of their time in exponentials.
package fastexp
