//go:build unix

package lease

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// checkDir refuses a lease directory another user could tamper with:
// every component from / down must be a directory owned by root or by
// this user and, when others may write it, carry the sticky bit (as /tmp
// does); no component may be a symbolic link other than root's own (a
// system link such as macOS's /var), and the directory itself may be no
// link at all. Another user's /tmp/openpocket-leases (or a link to one)
// is thus refused, not used.
func checkDir(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	me := os.Geteuid()
	cur := string(filepath.Separator)
	parts := strings.Split(strings.Trim(abs, string(filepath.Separator)), string(filepath.Separator))
	for i := -1; i < len(parts); i++ {
		if i >= 0 {
			if parts[i] == "" {
				continue
			}
			cur = filepath.Join(cur, parts[i])
		}
		fi, err := os.Lstat(cur)
		if err != nil {
			return err
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			return nil // no ownership to check on this system
		}
		owner := int(st.Uid)
		final := i == len(parts)-1
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			if final || owner != 0 {
				return fmt.Errorf("lease directory %s: %s is a symbolic link (owned by uid %d); expected a directory path without links another user controls", abs, cur, owner)
			}
			continue
		case !fi.IsDir():
			return fmt.Errorf("lease directory %s: %s is not a directory", abs, cur)
		case owner != 0 && owner != me:
			return fmt.Errorf("lease directory %s: %s is owned by uid %d, not by you (uid %d) or root; another user could take or forge your device leases", abs, cur, owner, me)
		case fi.Mode().Perm()&0o022 != 0 && fi.Mode()&fs.ModeSticky == 0:
			return fmt.Errorf("lease directory %s: %s is writable by others (mode %v) without the sticky bit", abs, cur, fi.Mode().Perm())
		}
	}
	return nil
}
