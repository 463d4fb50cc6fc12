package eval

// RuntimeBinds is how many calls have had their arguments matched at run
// time rather than by the checker.
func RuntimeBinds() int64 { return runtimeBinds.Load() }
