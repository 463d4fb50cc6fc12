// Package dist holds KML's probability distributions: log densities with exact
// gradients with respect to the value and to every parameter, seeded draws,
// moments and supports. It wraps gonum's stat/distuv wherever gonum has the
// distribution.
package dist
