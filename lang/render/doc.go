// Package render turns a KML value into what a front end shows: the text
// `print` and the REPL show, an HTML table for a record or a posterior
// summary, and the picture of a figure (plot called without `to:`) as PNG
// or SVG. The REPL (lang/repl) prints Text; the Jupyter kernel
// (lang/jupyter) sends Bundle, the MIME bundle a notebook displays, so a
// value reads the same at the prompt and in a notebook's text/plain.
//
// Pictures are drawn by the value itself (the Image interface): only
// stdlib/plot links the plotting library, and this package stays free of it.
package render
