package stdlib

import "io"

// CSVWriter is a value that save() writes as CSV (a posterior's draws).
type CSVWriter interface {
	WriteCSV(w io.Writer) error
}
