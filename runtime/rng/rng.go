package rng

import "math/rand/v2"

// Stream is the purpose of a random stream: the second word of its PCG
// state, beside the seed.
type Stream uint64

// The streams in use. Indexed ones (marked so) are used through Index.
const (
	// Chain is NUTS chain c's stream (indexed by chain).
	Chain Stream = 0x6e757473 // "nuts"
	// UniformInit is the uniform initialisation of chain c (indexed by
	// chain).
	UniformInit Stream = 0x696e6974 // "init"
	// OptimizeStart is the starting point of optimiser start k (indexed by
	// start).
	OptimizeStart Stream = 0x6f7074 // "opt"
	// PathfinderStarts places Pathfinder's wide, stratified starting points.
	PathfinderStarts Stream = 0x73747274 // "strt"
	// PathfinderPath is Pathfinder path p's stream (indexed by path).
	PathfinderPath Stream = 0x70617468 // "path"
	// PathfinderResample resamples the chains' starting points from the
	// paths' pooled draws.
	PathfinderResample Stream = 0x72657361 // "resa"
	// Permutation is permutation b of a kernel permutation test (indexed by
	// permutation).
	Permutation Stream = 0x7065726d // "perm"
	// WildBootstrap is draw b of a kernel Stein discrepancy test's wild
	// bootstrap: its Rademacher multipliers (indexed by draw).
	WildBootstrap Stream = 0x77696c64 // "wild"
	// OptSplit splits a kernel test's data into the part that chooses the
	// "opt" kernel and the part that is tested.
	OptSplit Stream = 0x73706c74 // "splt"
	// RFF draws the frequencies and phases of random Fourier features.
	RFF Stream = 0x727666 // "rff"
	// Median subsamples pairs for the median heuristic.
	Median Stream = 0x6d6564 // "med"
	// Landmarks chooses landmarks (random rows or k-means++ seeding).
	Landmarks Stream = 0x6c616e64 // "land"
	// BKESplit chooses the rows that bke.Split holds out as landmarks.
	BKESplit Stream = 0x626b65 // "bke"
	// BayesChain draws the NUTS seed of chain c of the "bayes" kernel
	// choice, which runs its chains one by one from their own starting
	// points (indexed by chain).
	BayesChain Stream = 0x62617973 // "bays"
	// Fantasy draws the sampler seeds of kst.Fantasy, one per point.
	Fantasy Stream = 0x66616e74 // "fant"
	// DPM drives dpm.Fit's collapsed Gibbs sampler.
	DPM Stream = 0x64706d // "dpm"
	// Generated seeds the random calls of a model's generated block at
	// draw i (indexed by the draw's position over all chains).
	Generated Stream = 0x67656e00 // "gen"
	// Interpreter is the interpreter's own stream, which draws the seeds
	// of calls given none.
	Interpreter Stream = 0x72756e // "run"
	// Builtin is a builtin's stream, seeded by its seed argument.
	Builtin Stream = 0x6b6d6c // "kml"
	// SBC is simulation k of simulation-based calibration: its prior draw,
	// its data and its sampler's seed (indexed by simulation).
	SBC Stream = 0x73626300 // "sbc"
	// SBCNull draws the uniform ranks that calibrate SBC's ECDF band.
	SBCNull Stream = 0x756e6966 // "unif"
	// Subsample draws the rows of subsample k of causal.Resampling and
	// the seed of its tests (indexed by subsample).
	Subsample Stream = 0x73756273 // "subs"
	// ReplayCheck places the points near a model's first point at which
	// lang/model compares a replay of its recording with fresh walks,
	// seeded by the number of free reals.
	ReplayCheck Stream = 0x72706c79 // "rply"
	// LaplaceSample draws laplace_sample's Gaussian at the mode.
	LaplaceSample Stream = 0x6c706c63 // "lplc"
	// PathfinderFitPath is pathfinder path p's optimisation and its
	// Monte Carlo ELBO draws (indexed by path). It was 0x70667061
	// ("pfpa"), 65012 above Permutation, whose test b drew path b −
	// 65012's stream, and 530 below the resampling's stream, which path
	// 530 (of up to 1024) drew.
	PathfinderFitPath Stream = 0x70667061 // "pfpa"
	// PathfinderFitResample draws pathfinder's importance resampling (it
	// was 0x70667273, "pfrs", within Permutation's indices too).
	PathfinderFitResample Stream = 0x72737066 // "rspf"
	// ForwardLatent draws a latent GP's values at its inputs in forward
	// sampling: prior_predictive and ppc (one stream per call), sbc
	// (indexed by simulation). A model without a latent GP never draws
	// from it, so its draws are as before.
	ForwardLatent Stream = 0x66776466 // "fwdf"
	// RegressBayes draws the importance sample of ci_test's GP regression
	// step with regression "bayes" (runtime/causal.RegressBayes), one
	// stream per regressed column (indexed by column; y's columns from
	// 1<<16).
	RegressBayes Stream = 0x67707262 // "gprb"
	// SVGP shuffles the rows into the minibatches of a stochastic
	// variational GP fit (runtime/gp.SVGP.Fit), one permutation per pass.
	SVGP Stream = 0x73766770 // "svgp"
	// SVGPSoftmax draws the base normals of a multi-class SVGP's Monte
	// Carlo expectations (runtime/gp.NewSVGPMulti), once per fit.
	SVGPSoftmax Stream = 0x736d7867 // "smxg"
)

// Index returns the stream of the i-th unit of work (chain, start, path,
// permutation) of an indexed purpose: s + i.
func (s Stream) Index(i int) Stream { return s + Stream(i) }

// New returns the random stream for seed and purpose s.
func New(seed uint64, s Stream) *rand.Rand {
	return rand.New(Source(seed, s))
}

// Source is New's generator itself, for a caller that must copy its
// state (a fit that can be resumed keeps a copy).
func Source(seed uint64, s Stream) *rand.PCG {
	return rand.NewPCG(seed, uint64(s))
}
