// Package causal learns causal graphs from data: the PC algorithm (Spirtes,
// Glymour and Scheines 2000; the order-independent "PC-stable" skeleton of
// Colombo and Maathuis 2014) over any conditional-independence test, and
// the tests it is run with: Fisher's z on partial correlations for
// linear-Gaussian data, and the kernel test of the BKE paper's section 5
// (Flaxman, Neill and Smola 2015): GP regression (ML-II) of each variable on
// the conditioning set, then HSIC on the residuals. Prewhiten removes
// temporal autocorrelation first, by autoregressive residuals. Background
// knowledge (tiers, required and forbidden edges) constrains both PC and
// FCI, the algorithm for latent confounders (Spirtes, Glymour and Scheines
// 2000; Zhang 2008's complete rules), which returns a partial ancestral
// graph.
//
// Files: pc.go (the skeleton, in parallel within a conditioning-set size),
// orient.go (v-structures and Meek's rules), knowledge.go, fci.go (FCI's
// possible-d-sep stage and R0), fcirules.go (R1–R10), pag.go (the PAG and
// its marks), fisherz.go, regress.go (the ML-II GP residuals), kernelci.go
// (GP residuals + HSIC), prewhiten.go.
package causal
