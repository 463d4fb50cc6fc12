//go:build !amd64 || purego

package cpufeat

func detect() Level { return None }
