// Package sandbox confines a script's file access to the directories it was
// granted, and writes files atomically so a failed write leaves nothing
// half-written.
package sandbox
