// Package jupyter is KML's Jupyter kernel: the process a notebook server
// starts with a connection file (`kml jupyter kernel -f FILE`), speaking the
// Jupyter messaging protocol 5.3 over ZeroMQ with github.com/go-zeromq/zmq4,
// a pure-Go ZeroMQ, so no C library is needed.
//
// A kernel is one lang/repl Session: a cell means what the same lines mean
// at `kml repl` — names kept from cell to cell, the `:` commands, the same
// completion (complete_request) and help (inspect_request), both from
// lang/assist through the session. A cell's value is sent as
// lang/render's MIME bundle, so a figure (plot without `to:`) shows as PNG
// and SVG and a summary or record as an HTML table beside its text.
// print and warnings arrive as stream output, errors with the caret
// snippet `kml run` prints, and the progress line of a long builtin as a
// display that updates in place (display_data, then update_display_data
// with the same display_id).
//
// Shell requests run one at a time, as the protocol intends; the control
// socket has its own goroutine, so interrupt_request (and SIGINT, for a
// kernelspec with interrupt_mode "signal") cancels the running cell's
// context and calls the interpreter's Interrupt: a fit stops at its next
// check, a factorisation inside gonum at its next block.
//
// Files: wire.go is the message format and its HMAC-SHA256 signature,
// conn.go the connection file and sockets, kernel.go the handlers,
// display.go the progress display, install.go the kernelspec.
package jupyter
