package stoptest

import (
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/kml-lang/kml/internal/cputime"
)

// ProcessCPU is the processor time this process has used, all threads.
func ProcessCPU() time.Duration { return cputime.Used() }

// clockTick is the unit of /proc's times (USER_HZ, 100 on Linux).
const clockTick = 10 * time.Millisecond

// ChildCPU is the processor time the running process pid has used so far,
// read from /proc/pid/stat (to 10 ms), and false if it cannot be read.
// After the child exits, os.ProcessState's UserTime and SystemTime give
// its total; the difference is what it used after a signal.
func ChildCPU(pid int) (time.Duration, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The command name, field 2, is in parentheses and may hold spaces:
	// the fields counted from after its closing parenthesis.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	// Fields 14 and 15 of the line (utime, stime) are 12 and 13 here.
	if len(f) < 13 {
		return 0, false
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(u+st) * clockTick, true
}
