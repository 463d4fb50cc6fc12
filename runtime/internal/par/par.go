// Package par runs a loop over fixed blocks of an index range on a few
// goroutines: the block-parallel pattern of the Gram matrices, the kernel
// density queries, the GP contractions, the BKE pass, the permutation
// nulls and the PC skeleton.
//
// The blocks are fixed by n and the block size alone, never by the number
// of workers or the schedule, and the body is told which block it runs.
// A caller that sums per block into its own slot and adds the slots in
// block order afterwards (see Sums) gets the same bits on any number of
// cores. Errors and cancellation stay with the caller: a body records its
// block's error in a slot indexed by the block, so that the error
// reported is the first in block order rather than the first in time, and
// checks its context at the top of the body.
package par

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// NumBlocks is the number of blocks of size block that cover [0, n):
// ⌈n/block⌉.
func NumBlocks(n, block int) int {
	if block <= 0 {
		panic(fmt.Sprintf("par: block size %d", block))
	}
	return (n + block - 1) / block
}

// Blocks runs body(b, lo, hi) for every block b of [0, n), where block b
// is [b·block, min((b+1)·block, n)), on at most workers goroutines. See
// Each.
func Blocks(n, block, workers int, body func(b, lo, hi int)) {
	Each(n, block, workers, nil, func(_ struct{}, b, lo, hi int) { body(b, lo, hi) })
}

// Each runs body(s, b, lo, hi) for every block b of [0, n), where block b
// is [b·block, min((b+1)·block, n)), on at most workers goroutines (fewer
// when there are fewer blocks). Blocks are handed out in increasing order
// to whichever worker is free, which balances work that shrinks or grows
// along the range (the rows of a triangle). Each worker calls newScratch
// once, before its first block, and passes the result to every block it
// runs; a nil newScratch gives the zero S. With workers ≤ 1 or a single
// block, the blocks run in order on the calling goroutine.
//
// Each returns when every block has run. A panic in a body does not take
// the process down from another goroutine: the other workers finish their
// current block and stop, and Each panics on the calling goroutine with
// the first panic's value.
func Each[S any](n, block, workers int, newScratch func() S, body func(s S, b, lo, hi int)) {
	nb := NumBlocks(n, block)
	if nb == 0 {
		return
	}
	var next atomic.Int64
	var stop atomic.Bool
	run := func() {
		var s S
		if newScratch != nil {
			s = newScratch()
		}
		for !stop.Load() {
			b := int(next.Add(1)) - 1
			if b >= nb {
				return
			}
			body(s, b, b*block, min((b+1)*block, n))
		}
	}
	workers = min(workers, nb)
	if workers <= 1 {
		run()
		return
	}
	var (
		once  sync.Once
		value any
		wg    sync.WaitGroup
	)
	guarded := func() {
		defer func() {
			if r := recover(); r != nil {
				stop.Store(true)
				once.Do(func() { value = r })
			}
		}()
		run()
	}
	for range workers - 1 {
		wg.Go(guarded)
	}
	guarded()
	wg.Wait()
	if value != nil {
		panic(value)
	}
}

// Sums runs row(s, i, acc) for every i < n, in blocks of size block on at
// most workers goroutines, and adds into dst what the rows accumulate
// into acc (length len(dst)). Each block accumulates into its own zeroed
// slot, and the slots are added into dst in block order, so the sum does
// not depend on the number of workers or the schedule. s is a worker's
// scratch from newScratch, as in Each.
func Sums[S any](dst []float64, n, block, workers int, newScratch func() S, row func(s S, i int, acc []float64)) {
	nh := len(dst)
	nb := NumBlocks(n, block)
	sums := make([]float64, nb*nh)
	Each(n, block, workers, newScratch, func(s S, b, lo, hi int) {
		acc := sums[b*nh : (b+1)*nh]
		for i := lo; i < hi; i++ {
			row(s, i, acc)
		}
	})
	for b := range nb {
		for h, v := range sums[b*nh : (b+1)*nh] {
			dst[h] += v
		}
	}
}
