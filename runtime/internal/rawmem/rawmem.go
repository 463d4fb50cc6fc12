// Package rawmem allocates float64 buffers without the zeroing make does
// first, for results that their producer overwrites whole anyway.
//
// Why: chol(A) at n = 2000 returns a 32 MB factor. make clears all of it
// on one core before the factorisation writes every element again, a pass
// over memory as long as the copy of A's triangle that the factorisation
// itself needs, and the one piece of serial work left around potrf in the
// builtin (issue 42 asks for none). Go has no public way to allocate
// without clearing, so Float64s calls the runtime's allocator, mallocgc,
// by linkname with needzero false, as cockroachdb's and bytedance's code
// do; the runtime keeps that signature for them (go.dev/issue/67401). The
// buffer holds no pointers, so the collector never reads its contents,
// and it is freed like any other slice.
//
// A caller must write every element before any is read: Float64s's
// contents are whatever the memory held last.
package rawmem

import "unsafe"

//go:linkname mallocgc runtime.mallocgc
func mallocgc(size uintptr, typ unsafe.Pointer, needzero bool) unsafe.Pointer

// Float64s returns a new slice of n float64s whose values are unspecified.
func Float64s(n int) []float64 {
	if n < 0 {
		panic("rawmem: negative length")
	}
	if n == 0 {
		return []float64{}
	}
	return unsafe.Slice((*float64)(mallocgc(uintptr(n)*8, nil, false)), n)
}
