// Package subsum has the two inner loops of the exact MMD permutation null
// (runtime/ktest, the method of four Russians): Table builds the 2^r
// subset sums of r rows of a matrix over a tile of columns, and
// MaskedSums adds, for many label permutations at once, the entries of
// one table row picked by each permutation's mask that its column bits
// select. In AVX2 or AVX-512 assembly where the CPU has them (chosen at
// run time by runtime/internal/cpufeat), in Go elsewhere.
//
// Every path rounds alike, so the results are bit-for-bit the same on
// generic, AVX2 and AVX-512: Table adds one row to a smaller subset's sum
// entry by entry, and MaskedSums keeps eight lanes per permutation, lane
// l adding the selected entries of columns c ≡ l (mod 8) in the order of
// c, with plain additions (no FMA) and an unselected entry not added at
// all (so −0 and NaN in unselected entries leave a sum as it is).
package subsum
