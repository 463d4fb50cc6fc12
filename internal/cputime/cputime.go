// Package cputime reads the processor time the process has used, all
// threads: benchmarks report it per operation (cpu-s/op, cpu-ms/op) beside
// wall time, because on a shared machine — CI, or other sessions on the
// same cores — the processor time of the work moves much less than its
// wall time, and ratios between two programs measured that way still
// mean something.
package cputime
