// Package rng hands out KML's seeded random streams: every consumer gets its
// own PCG stream from (seed, a named purpose constant).
//
// The discipline:
//
//   - Each purpose has its own Stream constant below; a new consumer adds a
//     constant rather than reusing another's, so adding a draw in one place
//     never shifts the numbers drawn in another.
//   - What runs in parallel draws from streams indexed by its unit of work
//     (Stream.Index: chain c, start k, path p, permutation b), never from a
//     shared one, so results do not depend on the number of workers or on
//     scheduling.
//   - Tests and goroutines never share a stream, and nothing depends on map
//     iteration order.
//
// The constants are fixed forever: they are part of every seeded result
// (scripts, goldens, published figures). Their values spell the purpose in
// ASCII ("nuts", "init", ...). Indexed streams occupy s, s+1, ..., so two
// constants must lie further apart than the largest index used: each indexed
// stream below lies at least 2¹⁷ below the next purpose's, so up to 131,072
// chains, starts, paths or permutations never reach another purpose.
package rng
