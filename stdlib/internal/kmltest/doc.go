// Package kmltest holds what the KML-level tests of the stdlib domain
// packages share: running a script through the full registry, looking a
// binding up, expecting an error, checking a model's gradient against
// finite differences, reading a CmdStan CSV, and the data scripts two
// domains' tests both start from.
//
// It is imported only from _test.go files. Importing it fills the default
// registry with the whole library (it imports the umbrella stdlib), so a
// domain's external test package (package gp_test) runs scripts that call
// builtins of other domains, as users' scripts do.
package kmltest
