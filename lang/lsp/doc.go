// Package lsp is `kml lsp`: a language server for KML over stdio, speaking
// the subset of the Language Server Protocol an editor needs for a small
// language: full-text document sync, diagnostics, hover, completion,
// go-to-definition, formatting, shutdown and exit.
//
// # Why a protocol of our own
//
// The server implements JSON-RPC 2.0 with LSP's Content-Length framing
// itself, on encoding/json (jsonrpc.go, about a hundred lines), instead of
// depending on github.com/tliron/glsp. The subset is small and stable (the
// messages above have not changed since LSP 3.0); glsp would bring its own
// logging stack, a websocket and node.js-style transports, and a generated
// protocol package of thousands of declarations into a module whose other
// dependencies are numerical, for a few hundred lines saved. Owning the
// loop also keeps the server single-threaded and deterministic: requests are
// answered in order, one at a time, so an editor test can read the replies
// in the order it sent the requests.
//
// # What it knows
//
// Diagnostics are exactly what `kml check` reports: each open document is
// checked by eval.Interpreter.Check (parse errors from lang/grammar and
// check errors from lang/check) in a fresh interpreter whose sandbox is the
// file's directory, and each positioned error becomes a diagnostic. KML
// positions are 1-based lines and columns counted in characters (runes);
// LSP's are 0-based with columns in UTF-16 code units, and position.go
// converts between the two with the document's text. Nothing is run: hover
// on a user's name gives its kind from the checker's scopes (a value, a
// function with its parameters, a model with its parameters), not its
// value. So the server has nothing to interrupt.
//
// The builtins it knows are the registry in its Config: cmd/kml passes
// the one stdlib.Register filled, as starlark's cmd/starlark wires its
// library in, so this package links no library of its own and a Go
// program can serve the builtins of its own registry.
//
// Hover on a builtin shows its signature and documentation as `:help` does,
// and completion offers what Tab at the REPL offers (a call's named
// arguments first, then names in scope), both through lang/assist.
// Definitions come from the checker's bindings (let, fn, model, imported
// names) and, inside a fn or model, from its parameters and declarations.
//
// Formatting calls Format, which is nil until lang/format is wired in; the
// request then fails with "formatting is not available".
package lsp
