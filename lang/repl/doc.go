// Package repl is KML's interactive prompt on github.com/chzyer/readline:
// line editing, history in the user's cache directory, multi-line input
// (an open bracket, a model body or a trailing operator continues), tab
// completion of names, `:help`, `:load`, `:type` and `:quit`, and Ctrl-C
// that cancels a running evaluation and returns to the prompt.
package repl
