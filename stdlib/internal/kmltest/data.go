package kmltest

// BKEData binds the data of examples/bke_normal_laplace.kml at n = 50 per
// group: samples p and q, their concatenation x, and landmarks z.
const BKEData = `
let p = draw(normal(0, 1), 50, seed: 1)
let q = draw(laplace(0, 1 / sqrt(2)), 50, seed: 2)
let x = concat(p, q)
let z = concat(draw(normal(0, 1), 10, seed: 101), draw(laplace(0, 1 / sqrt(2)), 10, seed: 102))
`

// CausalData binds three dependent series: z, and x and y, each a noisy
// function of z.
const CausalData = `
let z = draw(normal(0, 1), 80, seed: 1)
let x = sin(2 * z) + draw(normal(0, 0.3), 80, seed: 2)
let y = z * z + draw(normal(0, 0.3), 80, seed: 3)
`
