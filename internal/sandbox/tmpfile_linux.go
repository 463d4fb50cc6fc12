package sandbox

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// openUnnamed opens a temporary with no name in dir (O_TMPFILE): a
// process killed while writing it leaves nothing on disk. A file system
// without O_TMPFILE gives an error and the caller names its temporary.
func openUnnamed(dir *os.File) (*os.File, error) {
	fd, err := unix.Openat(int(dir.Fd()), ".", unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), dir.Name()+"/(unnamed)"), nil
}

// linkUnnamed gives the unnamed temporary f the name name in dir. Linking
// an open file by descriptor (AT_EMPTY_PATH) needs a capability a script's
// process rarely has, so it links /proc/self/fd/N, which any process may.
func linkUnnamed(f, dir *os.File, name string) error {
	err := unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(int(f.Fd())), int(dir.Fd()), name, unix.AT_SYMLINK_FOLLOW)
	if err != nil {
		if err2 := unix.Linkat(int(f.Fd()), "", int(dir.Fd()), name, unix.AT_EMPTY_PATH); err2 == nil {
			return nil
		}
	}
	return err
}
