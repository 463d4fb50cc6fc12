// Command kml runs KML programs, checks and formats them, offers an
// interactive prompt, and serves editors as a language server (kml lsp).
//
//	kml run FILE.kml [--seed N] [--json]
//	kml check [--explain] FILE.kml
//	kml fmt [-w] [-d] [FILE.kml...]
//	kml repl
//	kml lsp
//	kml version
//	kml help
package main
