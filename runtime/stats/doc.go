// Package stats computes the quantiles KML reports: sample quantiles by R's
// type 7 interpolation and the standard normal quantile, so that a
// posterior summary, a credible band and the median and quantile builtins
// agree on one definition; and the area under the ROC curve (AUC) by
// which novelty scores are judged; and the Wilcoxon signed-rank test by
// which two methods are compared over paired repetitions.
package stats
