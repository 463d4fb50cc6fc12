// Package blas3 is KML's level-3 BLAS: DGEMM, DSYRK, DTRSM and DTRMM
// written the BLIS/GotoBLAS way, with a register-blocked micro-kernel in
// assembly. Its init installs Implementation as gonum's float64 BLAS (blas64.Use), so
// gonum's own blocked LAPACK (Dpotrf, Dpotrs, Dgetrf, Dtrtri) and every
// mat.* product and factorisation run on these kernels. runtime/linalg
// imports the package for that side effect, so every KML binary (and every
// runtime package that imports linalg) gets it; a program that uses gonum
// without importing runtime/linalg keeps gonum's pure-Go BLAS.
//
// # Design
//
// C += α·op(A)·op(B) is computed in five loops around a micro-kernel. The
// outer loop cuts the columns of C into slabs of NC, the next cuts the
// depth into slices of KC and packs the KC×NC slab of op(B) into
// micro-panels of NR columns (each KC×NR, row p holding op(B)[p, j:j+NR]);
// the third cuts the rows into blocks of MC and packs the MC×KC block of
// op(A) into micro-panels of MR rows (each KC×MR, row p holding
// op(A)[i:i+MR, p]). The two inner loops walk the micro-panels: the
// micro-kernel multiplies an MR×KC A panel by a KC×NR B panel, holding the
// MR×NR tile of C in registers, and adds α times it into C. Tiles on the
// edges of C go through an MR×NR scratch tile, and packed panels are padded
// with zeros, so the kernel never sees a partial tile.
//
// The block sizes (per vector level, in gemm.go):
//
//   - AVX2+FMA: MR×NR = 6×8, 12 YMM accumulators (two 4-lane vectors per
//     row of the tile) + 2 for the B row + 1 broadcast = 15 of 16 registers;
//     each step of p is 2 loads, 6 broadcasts and 12 FMAs, so the two FMA
//     ports, not the loads, bound it. KC = 256: the B micro-panel (KC×8
//     doubles = 16 KiB) stays in the 48 KiB L1 while A micro-panels (12 KiB)
//     stream through. MC = 144 (a multiple of 6 and 8): the packed A block,
//     144×256×8 B = 288 KiB, sits in the 2 MiB L2 with room for the B
//     micro-panels being streamed. NC = 4080: the packed B slab (8 MiB) is
//     meant for L3.
//   - AVX-512: MR×NR = 8×24, 24 ZMM accumulators (three 8-lane vectors per
//     row), 3 for the B row, one VBROADCASTSD per A element; 11
//     loads per 24 FMAs. KC = 192 keeps the B micro-panel (192×24×8 B =
//     36 KiB) in L1; MC = 192 (A block 288 KiB) in L2; NC = 4080.
//   - portable Go (cpufeat.None, other architectures): 4×4 tiles with 16
//     scalar accumulators, KC = 256, MC = 128, NC = 4096.
//
// Large products split the columns of C (the N loop; the rows when C is
// tall and narrow) into one contiguous part per processor, each packing its
// own panels, so both cores work and no two goroutines write the same part
// of C.
//
// DSYRK packs op(A)ᵀ's KC×NC slab once for every block row of C (MC rows)
// that reaches it, and hands the block rows out to the workers, longest
// first; micro-tiles outside the triangle are skipped and those crossing
// the diagonal go through the scratch tile (syrk.go). Dgemmt, one triangle
// of α·op(A)·op(B) + β·C (MKL's dgemmt, not a blas.Float64 method), runs
// the same code with op(B) packed in the place of op(A)ᵀ. DTRSM is blocked by 64:
// for each diagonal block, the part of B already solved is subtracted with
// one DGEMM (the solve is left-looking, so that DGEMM has the long inner
// dimension), then the block is multiplied by the explicit inverse of the
// 64×64 diagonal block of op(A), which is one more DGEMM. Using inverses of
// diagonal blocks rather than substitution is what makes DTRSM run at DGEMM
// speed; its error grows with the condition of the diagonal blocks, not of
// A, and for the factors of positive definite matrices these are bounded by
// the condition of A (Demmel, Higham & Schreiber 1995, "Stability of block
// LU factorization"). Above order 256 DTRSM first splits the triangle in
// halves, so that the solved part is subtracted in DGEMMs of order k/2,
// k/4, … rather than repacked for every block of 64. DTRMM (for Dtrtri and Dlauum, the Cholesky inverse)
// is the DGEMM loops themselves, in place: the triangle is packed as a
// DGEMM operand with the entries outside it set to zero, and B's slices
// of KC rows (columns, side Right) are taken in the order in which each is
// packed before anything overwrites it (trmm.go). Small problems, where packing does not pay, go to
// gonum's own implementation, as do the routines not written here.
//
// The init also installs Lapack as gonum's LAPACK (lapack64.Use): gonum's
// own, with Dlansy's 1-norm summed in registers (the same sums, bit for
// bit), with Dpocon, the condition estimate mat.Cholesky.Factorize makes of
// every factor, done with row-oriented triangular solves instead of the
// column-walking careful solves of Dlatrs (falling back to gonum's when a
// solve overflows), with Dpotrf recursive on halves above n = 2048 and
// right-looking by panels of 128 with a look-ahead of one panel below
// (potrf.go: the next panel is factored on one core while the rest of the
// trailing matrix is updated on the other), and
// with Dpotri (the Cholesky inverse, mat.Cholesky.InverseTo) and its
// Dtrtri and Dlauum recursive on halves above n = 64 (potri.go), so that
// their work is in DTRMM and DSYRK calls of order n/2, n/4, … instead of
// gonum's panels of 64.
//
// DTRSV with unit stride is overridden too, to run the rows of the
// triangle on gonum's assembly Ddot and Daxpy rather than its scalar loops,
// for the solves of that condition estimate; DTRSM with one right-hand
// side is that DTRSV. From n = 3000 its rows go by blocks of 256 whose
// rectangles are split over two goroutines (trsvpar.go): a solve reads
// each element of A once, and a second core streams A faster.
//
// An interrupt (runtime/interrupt) stops the kernels: every exported
// routine checks it on entry and on return, and the blocked loops check it
// between blocks of MC rows (about 20 ms of work each at n = 6000; DTRMM
// likewise) and between the diagonal blocks of DSYRK and DTRSM, returning
// early;
// the exported routine then panics with interrupt.Stop on the goroutine
// that called it, after its workers are back, so a factorisation of any
// size ends within a block. Only the interrupted run's kernels stop: the
// workers inherit the caller's run. The check is one atomic load while no
// run is interrupted.
//
// Every result is computed in a fixed order that does not depend on the
// number of goroutines (each element of C is summed by one goroutine over
// the same KC slices), so results are reproducible on any machine with the
// same vector level; they differ from gonum's in the last bits because the
// sums are ordered and fused differently.
package blas3
