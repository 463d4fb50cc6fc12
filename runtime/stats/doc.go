// Package stats computes the quantiles KML reports: sample quantiles by R's
// type 7 interpolation and the standard normal quantile, so that a
// posterior summary, a credible band and the median and quantile builtins
// agree on one definition.
package stats
