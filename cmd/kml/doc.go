// Command kml runs KML programs, checks and formats them, and offers an
// interactive prompt.
//
//	kml run FILE.kml [--seed N] [--json]
//	kml check [--explain] FILE.kml
//	kml fmt [-w] [-d] [FILE.kml...]
//	kml repl
//	kml version
//	kml help
package main
