// Package plot holds the plot builtin: the only package of the module
// that imports gonum.org/v1/plot, so an embedder that leaves it out does
// not link it (stdlib's TestOnlyPlotReachesGonumPlot keeps it so).
package plot
